# Writes the file IN as a NUL-terminated C byte array NAME (default kfuse_bundle_header), with
# NAME_size its length without the NUL, into OUT.
if(NOT NAME)
  set(NAME kfuse_bundle_header)
endif()
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN}; do not edit. */\n#include <stddef.h>\n"
     "extern const unsigned char ${NAME}[];\nextern const size_t ${NAME}_size;\n"
     "const unsigned char ${NAME}[] = {${bytes}0};\n"
     "const size_t ${NAME}_size = ${size};\n")
