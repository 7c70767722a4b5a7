/* What every fuzz target asserts of a message: non-empty, one line, no control characters. */
#ifndef PL_FUZZ_CHECK_H
#define PL_FUZZ_CHECK_H

#include <stdlib.h>

#include "core/status.h"

static inline void fuzz_check_message(const pl_error *err)
{
    if (!err->message[0])
        abort();
    for (const unsigned char *p = (const unsigned char *)err->message; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            abort();
}

#endif
