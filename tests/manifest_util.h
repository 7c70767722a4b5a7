/* Reading a command's manifest back from a test (with cli_util.h's scratch directory). */
#ifndef PL_TEST_MANIFEST_UTIL_H
#define PL_TEST_MANIFEST_UTIL_H

#include <jansson.h>
#include <string.h>

#include "cli_util.h"

/* Whether dir/SUB/manifest.json lists FILE among its files. */
static inline int manifest_lists(const char *sub, const char *file)
{
    char name[512];
    snprintf(name, sizeof name, "%s/manifest.json", sub);
    char *text = slurp(name);
    json_t *m = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    int found = 0;
    json_t *files = json_object_get(m, "files");
    for (size_t k = 0; k < json_array_size(files); k++)
        found |= strcmp(json_string_value(json_array_get(files, k)), file) == 0;
    json_decref(m);
    return found;
}

#endif
