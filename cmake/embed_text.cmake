# Generates a C file defining `const char SYMBOL[]`, the text of INPUT (NUL-terminated), so that the
# program can write it out.  Arguments: -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT} "/* Generated from ${INPUT} by cmake/embed_text.cmake; do not edit. */\nconst char ${SYMBOL}[] = {${bytes}0x00};\n")
