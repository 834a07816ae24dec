# kfuseConfig.cmake: what find_package(kfuse) gives a CUDA project (docs/build-integration.md).
#
#   find_package(kfuse REQUIRED)
#   kfuse_optimize(mylib)                               # every annotated .cu of the target
#   kfuse_optimize(mylib SOURCES src/a.cu RECORDS ${CMAKE_SOURCE_DIR}/h200.db
#                  TARGET_GPU "NVIDIA H200")
#
# Also KFUSE_EXECUTABLE, KFUSE_LAUNCH_EXECUTABLE (for CMAKE_CUDA_COMPILER_LAUNCHER) and the
# imported executable kfuse::kfuse.
cmake_minimum_required(VERSION 3.20)
include(CMakeFindDependencyMacro)
find_dependency(CUDAToolkit)

get_filename_component(_kfuse_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(KFUSE_EXECUTABLE "${_kfuse_prefix}/bin/kfuse")
set(KFUSE_LAUNCH_EXECUTABLE "${_kfuse_prefix}/bin/kfuse-launch")
if(NOT EXISTS "${KFUSE_EXECUTABLE}")
  set(kfuse_FOUND FALSE)
  set(kfuse_NOT_FOUND_MESSAGE "no kfuse at ${KFUSE_EXECUTABLE}")
  return()
endif()
if(NOT TARGET kfuse::kfuse)
  add_executable(kfuse::kfuse IMPORTED)
  set_target_properties(kfuse::kfuse PROPERTIES IMPORTED_LOCATION "${KFUSE_EXECUTABLE}")
endif()
find_library(KFUSE_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})

# kfuse_optimize(TARGET [SOURCES file...] [RECORDS db] [TARGET_GPU name])
#
# Each annotated .cu of TARGET (those with `// kfuse:` lines; SOURCES narrows the set) is
# replaced in the build by kfuse's output: a generated source under
# ${CMAKE_CURRENT_BINARY_DIR}/kfuse/TARGET/, remade when the source, the records or kfuse
# change. kfuse only selects from the tuning records (--no-measure: a build never tunes),
# so the output is the source itself unless the records hold a verified, faster variant
# for TARGET_GPU (default: the one GPU model the records hold for the source). RECORDS
# defaults to $KFUSE_RECORDS at configure time, else kfuse's default database. The
# libraries kfuse's variants may call (cuBLAS, cuBLASLt, and cuDNN where it is found) are
# linked to TARGET.
function(kfuse_optimize target)
  cmake_parse_arguments(PARSE_ARGV 1 KF "" "RECORDS;TARGET_GPU" "SOURCES")
  if(KF_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kfuse_optimize: unknown arguments: ${KF_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kfuse_optimize: '${target}' is not a target")
  endif()
  get_target_property(srcdir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  if(NOT KF_SOURCES)
    set(KF_SOURCES ${sources})
  endif()
  set(records "${KF_RECORDS}")
  if(NOT records AND DEFINED ENV{KFUSE_RECORDS})
    set(records "$ENV{KFUSE_RECORDS}")
  endif()
  set(options --no-measure)
  set(depends "${KFUSE_EXECUTABLE}")
  if(records)
    get_filename_component(records "${records}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND options --records "${records}")
    list(APPEND depends "${records}")
  endif()
  if(KF_TARGET_GPU)
    list(APPEND options --target-gpu "${KF_TARGET_GPU}")
  endif()
  # what the parser needs of the target's flags: its include directories and definitions
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  # ($<SEMICOLON>: the lists are split into arguments only after evaluation)
  list(APPEND options "$<$<BOOL:${incs}>:-I$<JOIN:${incs},$<SEMICOLON>-I>>"
       "$<$<BOOL:${defs}>:-D$<JOIN:${defs},$<SEMICOLON>-D>>")

  set(replaced "")
  foreach(src IN LISTS KF_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${srcdir}")
    if(NOT abs MATCHES "\\.cu$")
      continue()
    endif()
    file(READ "${abs}" text)
    if(NOT text MATCHES "// kfuse:")
      continue()
    endif()
    file(RELATIVE_PATH rel "${srcdir}" "${abs}")
    string(REPLACE "../" "__/" rel "${rel}")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/kfuse/${target}/${rel}")
    get_filename_component(outdir "${out}" DIRECTORY)
    get_filename_component(absdir "${abs}" DIRECTORY)
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${outdir}"
      COMMAND "${KFUSE_EXECUTABLE}" "${abs}" -o "${out}" ${options}
      DEPENDS "${abs}" ${depends}
      COMMENT "kfuse ${rel}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    # the original's neighbours ("x.h" beside it) stay reachable from the output
    set_source_files_properties("${out}" PROPERTIES GENERATED TRUE INCLUDE_DIRECTORIES "${absdir}")
    list(APPEND replaced "${abs}")
    set(new_${abs} "${out}")
  endforeach()

  set(new_sources "")
  foreach(src IN LISTS sources)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${srcdir}")
    if(abs IN_LIST replaced)
      list(APPEND new_sources "${new_${abs}}")
    else()
      list(APPEND new_sources "${src}")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${new_sources})
  set(libs CUDA::cublas CUDA::cublasLt)
  if(KFUSE_CUDNN_LIBRARY)
    list(APPEND libs "${KFUSE_CUDNN_LIBRARY}")
  endif()
  # as target_link_libraries(PRIVATE) would, without clashing with either of its signatures
  set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES ${libs})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
    foreach(lib IN LISTS libs)
      set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:${lib}>")
    endforeach()
  endif()
  set_property(TARGET ${target} APPEND PROPERTY KFUSE_OPTIMIZED_SOURCES ${replaced})
endfunction()
