/* Fuzz target: a directory's manifest.json or .penlim.journal, as pl_outdir_scan reads it.  The
 * input is the file's text; bad text must be refused with a one-line message, never a crash, and
 * an accepted manifest must list only paths the directory's cleanup may touch (relative, no empty,
 * "." or ".." component, no bookkeeping file).  The matching of a resumed sweep's runs
 * (pl_outdir_reusable) then runs on it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "io/outdir.h"

static void check_path(const json_t *s)
{
    const char *p = json_string_value(s);
    if (!p || strlen(p) != json_string_length(s) || !p[0] || p[0] == '/' || strcmp(p, PL_MANIFEST_NAME) == 0 ||
        strcmp(p, PL_JOURNAL_NAME) == 0 || strcmp(p, PL_LOCK_NAME) == 0)
        abort();
    for (const char *c = p;;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            abort();
        for (size_t k = 0; k < n; k++)
            if ((unsigned char)c[k] < 0x20)
                abort();
        if (!c[n])
            break;
        c += n + 1;
    }
}

static void check_files(const json_t *o)
{
    const json_t *files = json_object_get(o, "files");
    if (!json_is_array(files))
        abort();
    for (size_t k = 0; k < json_array_size(files); k++)
        check_path(json_array_get(files, k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy: a read past the text is then a sanitizer report. */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    json_t *m;
    pl_error err;
    if (pl_manifest_parse(text, size, &m, &err) != PL_OK) {
        fuzz_check_message(&err);
        if (m)
            abort();
        free(text);
        return 0;
    }
    free(text);
    const char *command = json_string_value(json_object_get(m, "command"));
    if (!json_is_object(m) || !command)
        abort();
    check_files(m);
    const json_t *runs = json_object_get(m, "runs");
    const char *refined = json_string_value(json_object_get(m, "refined"));
    if (runs && !refined)
        abort();
    /* with the settings a run's reuse compares, the manifest matches itself */
    const char *keys[] = {"case", "model", "parameters", "solver", "options", "t_end", "samples", "sampling", "max_steps"};
    int settings = 1;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        settings = settings && json_object_get(m, keys[k]);
    pl_outdir_state st = {.manifest = m, .journal = m};
    for (size_t k = 0; k < json_array_size(runs); k++) {
        const json_t *r = json_array_get(runs, k);
        check_files(r);
        check_path(json_object_get(r, "directory"));
        /* the manifest as its own request: every listed run is matched against it */
        const char *dir = json_string_value(json_object_get(r, "directory"));
        double value = json_number_value(json_object_get(r, refined));
        const char *status = json_string_value(json_object_get(r, "status"));
        int reusable = pl_outdir_reusable(&st, m, dir, value);
        if (settings && (strcmp(status, "ok") == 0 || strcmp(status, "pending") == 0) && !reusable)
            abort();
    }
    (void)pl_outdir_reusable(&st, m, "runs/001", 1.0);
    json_decref(m);
    return 0;
}
