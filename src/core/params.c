#include "core/params.h"
#include "core/number.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int pl_param_find(const pl_param_spec *specs, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(specs[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void bound_text(double b, char *buf, size_t len)
{
    if (isinf(b))
        snprintf(buf, len, "%sinf", b < 0 ? "-" : "");
    else
        snprintf(buf, len, "%g", b);
}

void pl_param_range_text(const pl_param_spec *spec, char *buf, size_t len)
{
    char lo[32], hi[32];
    bound_text(spec->min, lo, sizeof lo);
    bound_text(spec->max, hi, sizeof hi);
    int lo_open = (spec->flags & PL_PARAM_MIN_OPEN) || isinf(spec->min);
    int hi_open = (spec->flags & PL_PARAM_MAX_OPEN) || isinf(spec->max);
    snprintf(buf, len, "%c%s, %s%c", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
}

pl_status pl_param_check(const pl_param_spec *spec, double value, pl_error *err)
{
    int ok = isfinite(value);
    if (ok)
        ok = (spec->flags & PL_PARAM_MIN_OPEN) ? value > spec->min : value >= spec->min;
    if (ok)
        ok = (spec->flags & PL_PARAM_MAX_OPEN) ? value < spec->max : value <= spec->max;
    if (!ok) {
        char range[80];
        pl_param_range_text(spec, range, sizeof range);
        /* the description says what the parameter is, and why its range ends where it does */
        char v[PL_NUMBER_LEN];
        return pl_fail(err, PL_ERR_INPUT, "parameter %s = %s is out of range %s (%s)", spec->name,
                       pl_format_double(value, v, sizeof v), range, spec->description ? spec->description : "");
    }
    return PL_OK;
}

pl_status pl_setting_parse(const char *text, pl_setting *out, pl_error *err)
{
    const char *eq = strchr(text, '=');
    size_t len = eq ? (size_t)(eq - text) : 0;
    if (!eq || len == 0)
        return pl_fail(err, PL_ERR_INPUT, "--set expects NAME=VALUE, got '%s'", text);
    if (len >= sizeof out->name)
        return pl_fail(err, PL_ERR_INPUT, "--set: parameter name too long in '%s'", text);
    memcpy(out->name, text, len);
    out->name[len] = '\0';
    return pl_parse_double(eq + 1, &out->value, err, out->name);
}
