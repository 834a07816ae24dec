# Writes the file IN as a C byte array `kfuse_bundle_header` into OUT.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN}; do not edit. */\n#include <stddef.h>\n"
     "extern const unsigned char kfuse_bundle_header[];\nextern const size_t kfuse_bundle_header_size;\n"
     "const unsigned char kfuse_bundle_header[] = {${bytes}0};\n"
     "const size_t kfuse_bundle_header_size = ${size};\n")
