#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[256];
static int fd = -1;

static void remove_file(void)
{
    if (fd >= 0)
        unlink(path);
}

const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/penlim-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if ((fd = mkstemp(path)) < 0)
            return NULL;
        atexit(remove_file);
    }
    /* Rewritten in place: a new file per input would cost more than most readers. */
    if (ftruncate(fd, 0) != 0)
        return NULL;
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            return NULL;
        done += (size_t)n;
    }
    return path;
}
