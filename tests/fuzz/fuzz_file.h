/* For fuzz targets of file readers: the input written to a file the reader can open. */
#ifndef PL_FUZZ_FILE_H
#define PL_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The path of a file holding exactly data[0..size) (one file per process, rewritten for each
 * input and removed at exit), or NULL if it could not be written. */
const char *fuzz_input_file(const uint8_t *data, size_t size);

#endif
