# SPDX-License-Identifier: Apache-2.0
# cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -P embed.cmake
# Writes `const char name[]` holding the input's bytes and a terminating NUL, as C source, so
# the library carries its PTX without a compiler or assembler tricks.
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n    "
       bytes "${bytes}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT} by cmake/embed.cmake. */\n"
     "extern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] = {\n    ${bytes}0x00};\n")
