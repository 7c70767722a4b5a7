/* Fuzz target: the parsers of values given as text (numbers, counts, NAME=VALUE, a sweep's grid)
 * and the escaping of quoted input, each on the whole input as one string. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/params.h"
#include "fuzz_check.h"
#include "study/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pl_error err;

    double x;
    if (pl_parse_double(text, &x, &err, "x") == PL_OK) {
        if (!isfinite(x) || (x != 0 && fabs(x) < DBL_MIN))
            abort(); /* accepted numbers are finite and normal */
    } else
        fuzz_check_message(&err);

    long n;
    if (pl_parse_long(text, &n, &err, "n") != PL_OK)
        fuzz_check_message(&err);

    pl_setting setting;
    if (pl_setting_parse(text, &setting, &err) == PL_OK) {
        if (!setting.name[0] || strchr(setting.name, '=') || !isfinite(setting.value))
            abort();
    } else
        fuzz_check_message(&err);

    double *values = NULL;
    size_t count = 0;
    if (pl_parse_grid(text, "grid", &values, &count, &err) == PL_OK) {
        if (count == 0)
            abort();
        for (size_t j = 0; j < count; j++)
            if (!(values[j] > 0) || !isfinite(values[j]) || (j > 0 && !(values[j] > values[j - 1])))
                abort();
    } else
        fuzz_check_message(&err);
    free(values);

    char escaped[64];
    size_t len = pl_escape(text, escaped, sizeof escaped);
    if (len >= sizeof escaped || strlen(escaped) != len)
        abort();
    for (const unsigned char *p = (const unsigned char *)escaped; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            abort();
    free(text);
    return 0;
}
