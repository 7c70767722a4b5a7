#include "io/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Manifests and journals larger than this are not penlim's. */
#define MAX_MANIFEST_BYTES (64L << 20)
#define MAX_DEPTH 8

pl_status pl_outdir_open(pl_output *out, pl_error *err)
{
    size_t len = strlen(out->root);
    if (len == 0)
        return pl_fail(err, PL_ERR_INPUT, "--out needs a directory name");
    if (len + PL_OUTPUT_RESERVE >= PATH_MAX)
        return pl_fail(err, PL_ERR_INPUT, "--out is too long (%zu characters; at most %d)", len,
                       PATH_MAX - PL_OUTPUT_RESERVE - 1);
    for (const char *c = out->root; *c;) {
        size_t n = strcspn(c, "/");
        if (n > NAME_MAX)
            return pl_fail(err, PL_ERR_INPUT, "--out: a component of %.40s... is longer than %d characters", out->root,
                           NAME_MAX);
        c += n + (c[n] == '/');
    }
    pl_error mk;
    if (pl_make_dir(out->root, &mk) != PL_OK)
        return pl_fail(err, PL_ERR_INPUT, "--out: %s", mk.message);
    char path[PATH_MAX];
    if (pl_output_path(out, NULL, PL_LOCK_NAME, path, sizeof path, err) != PL_OK)
        return PL_ERR_INPUT;
    if (access(out->root, W_OK | X_OK) != 0)
        return pl_fail(err, PL_ERR_INPUT, "--out: cannot write to %s: %s", out->root, strerror(errno));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, out->mode);
    if (fd < 0)
        return pl_fail(err, PL_ERR_INPUT, "--out: cannot write to %s: %s", out->root, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        int saved = errno;
        close(fd);
        if (busy)
            return pl_fail(err, PL_ERR_INPUT, "%s is in use by another penlim (it holds %s/%s)", out->root, out->root,
                           PL_LOCK_NAME);
        return pl_fail(err, PL_ERR_INPUT, "--out: cannot lock %s: %s", path, strerror(saved));
    }
    out->lock_fd = fd;
    return PL_OK;
}

void pl_outdir_close(pl_output *out)
{
    if (out->lock_fd >= 0)
        close(out->lock_fd);
    out->lock_fd = -1;
}

/* ---- manifests ------------------------------------------------------------------------------- */

/* A path a manifest may list: relative, no empty, "." or ".." component, not a bookkeeping file. */
static int valid_path(const char *p)
{
    size_t len = strlen(p);
    if (len == 0 || len >= PATH_MAX - PL_OUTPUT_RESERVE || p[0] == '/' || strcmp(p, PL_MANIFEST_NAME) == 0 ||
        strcmp(p, PL_JOURNAL_NAME) == 0 || strcmp(p, PL_LOCK_NAME) == 0)
        return 0;
    for (const char *c = p; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') || n > NAME_MAX)
            return 0;
        c += n;
        if (*c == '/' && *++c == '\0')
            return 0;
    }
    for (const char *c = p; *c; c++)
        if ((unsigned char)*c < 0x20)
            return 0;
    return 1;
}

static int valid_files(const json_t *a)
{
    if (!json_is_array(a))
        return 0;
    for (size_t k = 0; k < json_array_size(a); k++) {
        const char *p = json_string_value(json_array_get(a, k));
        if (!p || strlen(p) != json_string_length(json_array_get(a, k)) || !valid_path(p))
            return 0;
    }
    return 1;
}

pl_status pl_manifest_parse(const char *text, size_t len, json_t **manifest, pl_error *err)
{
    *manifest = NULL;
    json_error_t je;
    json_t *m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    const json_t *version = json_object_get(m, "penlim_manifest");
    const char *command = json_string_value(json_object_get(m, "command"));
    const json_t *runs = json_object_get(m, "runs");
    const char *refined = json_string_value(json_object_get(m, "refined"));
    int ok = json_is_object(m) && json_is_integer(version) && json_integer_value(version) == 1 && command &&
             (strcmp(command, "run") == 0 || strcmp(command, "sweep") == 0 || strcmp(command, "limit") == 0 ||
              strcmp(command, "compare") == 0) &&
             valid_files(json_object_get(m, "files")) && (!runs || (json_is_array(runs) && refined));
    for (size_t k = 0; ok && runs && k < json_array_size(runs); k++) {
        const json_t *r = json_array_get(runs, k);
        const char *dir = json_string_value(json_object_get(r, "directory"));
        ok = json_is_object(r) && json_is_number(json_object_get(r, refined)) &&
             json_is_string(json_object_get(r, "status")) && dir && valid_path(dir) &&
             valid_files(json_object_get(r, "files"));
    }
    if (!ok) {
        json_decref(m);
        return pl_fail(err, PL_ERR_INPUT, "not a penlim manifest%s%s", m ? "" : ": ", m ? "" : je.text);
    }
    *manifest = m;
    return PL_OK;
}

json_t *pl_manifest_new(const char *command, const pl_model *model, const pl_solver_type *solver,
                        const pl_solve_opts *opts, const char *refined)
{
    json_t *m = json_object(), *params = json_object(), *options = json_object();
    for (size_t k = 0; k < model->type->nparams; k++)
        PL_JSON_SET(params, model->type->params[k].name, pl_json_number(model->par[k]));
    for (size_t k = 0; k < solver->noptions; k++)
        if (!refined || strcmp(solver->options[k].name, refined) != 0)
            PL_JSON_SET(options, solver->options[k].name, pl_json_number(opts->option[k]));
    PL_JSON_SET(m, "penlim_manifest", json_integer(1));
    PL_JSON_SET(m, "penlim_version", json_string(PENLIM_VERSION));
    PL_JSON_SET(m, "command", json_string(command));
    PL_JSON_SET(m, "case", json_string(model->type->name));
    PL_JSON_SET(m, "parameters", params);
    PL_JSON_SET(m, "solver", json_string(solver->name));
    PL_JSON_SET(m, "options", options);
    PL_JSON_SET(m, "t_end", pl_json_number(opts->t_end));
    PL_JSON_SET(m, "samples", json_integer((json_int_t)opts->samples));
    PL_JSON_SET(m, "max_steps", json_integer(opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS));
    if (refined) {
        PL_JSON_SET(m, "refined", json_string(refined));
        PL_JSON_SET(m, "runs", json_array());
    }
    PL_JSON_SET(m, "files", json_array());
    return m;
}

static json_t *strings_json(const pl_strings *s)
{
    json_t *a = json_array();
    for (size_t k = 0; s && k < s->n; k++)
        PL_JSON_APPEND(a, json_string(s->items[k]));
    return a;
}

pl_status pl_manifest_set_files(json_t *m, const pl_strings *files, pl_error *err)
{
    if (json_object_set_new(m, "files", strings_json(files)) != 0)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    return PL_OK;
}

pl_status pl_manifest_add_run(json_t *m, double value, const char *status, const char *dir, const pl_strings *files,
                              pl_error *err)
{
    const char *refined = json_string_value(json_object_get(m, "refined"));
    json_t *r = json_object();
    PL_JSON_SET(r, refined ? refined : "value", pl_json_number(value));
    PL_JSON_SET(r, "status", json_string(status));
    PL_JSON_SET(r, "directory", json_string(dir));
    PL_JSON_SET(r, "files", strings_json(files));
    if (json_array_append_new(json_object_get(m, "runs"), r) != 0)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    return PL_OK;
}

/* The same settings: what a run's results depend on. */
static int same_settings(const json_t *a, const json_t *b)
{
    const char *keys[] = {"command", "case", "model", "parameters", "solver", "options", "t_end", "samples",
                          "max_steps", "refined"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const json_t *x = json_object_get(a, keys[k]), *y = json_object_get(b, keys[k]);
        if (!x || !y || !json_equal((json_t *)x, (json_t *)y))
            return 0;
    }
    return 1;
}

static int listed_run(const json_t *m, const json_t *request, const char *dir, double value, int pending_ok)
{
    if (!m || !same_settings(m, request))
        return 0;
    const char *refined = json_string_value(json_object_get(m, "refined"));
    const json_t *runs = json_object_get(m, "runs");
    for (size_t k = 0; k < json_array_size(runs); k++) {
        const json_t *r = json_array_get(runs, k);
        const char *status = json_string_value(json_object_get(r, "status"));
        if (strcmp(json_string_value(json_object_get(r, "directory")), dir) == 0 &&
            json_number_value(json_object_get(r, refined)) == value &&
            (strcmp(status, "ok") == 0 || (pending_ok && strcmp(status, "pending") == 0)))
            return 1;
    }
    return 0;
}

int pl_outdir_reusable(const pl_outdir_state *st, const json_t *request, const char *dir, double value)
{
    return listed_run(st->manifest, request, dir, value, 0) || listed_run(st->journal, request, dir, value, 1);
}

/* ---- what the directory holds ------------------------------------------------------------------ */

/* ".NAME.XXXXXX", as pl_file_open (mkstemp) names its temporaries. */
static int is_temporary(const char *name)
{
    size_t len = strlen(name);
    if (len < 9 || name[0] != '.' || name[len - 7] != '.')
        return 0;
    for (size_t k = len - 6; k < len; k++)
        if (!((name[k] >= 'a' && name[k] <= 'z') || (name[k] >= 'A' && name[k] <= 'Z') ||
              (name[k] >= '0' && name[k] <= '9')))
            return 0;
    return 1;
}

/* Read and check a manifest or journal; absent: *m = NULL and 0; malformed: 1. */
static int load_manifest(const pl_output *out, const char *name, json_t **m)
{
    *m = NULL;
    char path[PATH_MAX];
    if (pl_output_path(out, NULL, name, path, sizeof path, NULL) != PL_OK)
        return 1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return errno != ENOENT;
    struct stat st;
    int bad = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_MANIFEST_BYTES;
    char *text = bad ? NULL : malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        ssize_t k = read(fd, text + got, (size_t)st.st_size - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    bad = bad || !text || got != (size_t)st.st_size || pl_manifest_parse(text, got, m, NULL) != PL_OK;
    free(text);
    return bad;
}

static pl_status add_listed(pl_strings *owned, const json_t *m, pl_error *err)
{
    const json_t *files = json_object_get(m, "files");
    for (size_t k = 0; k < json_array_size(files); k++) {
        const char *p = json_string_value(json_array_get(files, k));
        if (!pl_strings_has(owned, p) && pl_strings_add(owned, p, err) != PL_OK)
            return PL_ERR_NOMEM;
    }
    const json_t *runs = json_object_get(m, "runs");
    for (size_t r = 0; r < json_array_size(runs); r++) {
        pl_status s = add_listed(owned, json_array_get(runs, r), err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}

/* Every entry under root/rel that is not a directory (symbolic links are not followed). */
static pl_status walk(const pl_output *out, const char *rel, int depth, pl_outdir_state *st, pl_strings *found,
                      pl_error *err)
{
    char path[PATH_MAX];
    if (pl_output_path(out, rel, NULL, path, sizeof path, err) != PL_OK)
        return PL_ERR_INPUT;
    DIR *d = opendir(path);
    if (!d)
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_INPUT, "--out: cannot read %s: %s", path,
                       strerror(errno));
    pl_status s = PL_OK;
    struct dirent *e;
    while (s == PL_OK && (errno = 0, e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[PATH_MAX], full[PATH_MAX];
        if (snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >= (int)sizeof sub ||
            pl_output_path(out, sub, NULL, full, sizeof full, err) != PL_OK) {
            s = pl_fail(err, PL_ERR_INPUT, "--out: a path in %s is too long", out->root);
            break;
        }
        struct stat sb;
        if (lstat(full, &sb) != 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(sb.st_mode) && depth < MAX_DEPTH)
            s = walk(out, sub, depth + 1, st, found, err);
        else if (!S_ISDIR(sb.st_mode) && is_temporary(e->d_name))
            s = pl_strings_add(&st->temporaries, sub, err);
        else if (depth > 0 || (strcmp(sub, PL_LOCK_NAME) != 0 && strcmp(sub, PL_MANIFEST_NAME) != 0 &&
                               strcmp(sub, PL_JOURNAL_NAME) != 0))
            s = pl_strings_add(found, sub, err);
    }
    if (s == PL_OK && errno != 0) /* readdir's NULL: the end, or a read error (never taken for the end) */
        s = pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "--out: cannot read %s: %s", path,
                    strerror(errno));
    closedir(d);
    return s;
}

pl_status pl_outdir_scan(const pl_output *out, pl_outdir_state *st, pl_error *err)
{
    memset(st, 0, sizeof *st);
    int bad_manifest = load_manifest(out, PL_MANIFEST_NAME, &st->manifest);
    int bad_journal = load_manifest(out, PL_JOURNAL_NAME, &st->journal);
    pl_status s = PL_OK;
    if (bad_manifest)
        s = pl_strings_add(&st->foreign, PL_MANIFEST_NAME, err);
    if (s == PL_OK && bad_journal)
        s = pl_strings_add(&st->foreign, PL_JOURNAL_NAME, err);
    if (s == PL_OK && st->manifest)
        s = add_listed(&st->owned, st->manifest, err);
    if (s == PL_OK && st->journal)
        s = add_listed(&st->owned, st->journal, err);
    pl_strings found = {0};
    if (s == PL_OK)
        s = walk(out, "", 0, st, &found, err);
    for (size_t k = 0; s == PL_OK && k < found.n; k++)
        if (!pl_strings_has(&st->owned, found.items[k]))
            s = pl_strings_add(&st->foreign, found.items[k], err);
    pl_strings_free(&found);
    return s;
}

void pl_outdir_state_free(pl_outdir_state *st)
{
    json_decref(st->manifest);
    json_decref(st->journal);
    pl_strings_free(&st->owned);
    pl_strings_free(&st->temporaries);
    pl_strings_free(&st->foreign);
    memset(st, 0, sizeof *st);
}

/* ---- writing --------------------------------------------------------------------------------- */

/* Remove ROOT/rel (a file or a link, never followed) and the directories it leaves empty. */
static pl_status remove_file(const pl_output *out, const char *rel, pl_error *err)
{
    char path[PATH_MAX];
    if (pl_output_path(out, rel, NULL, path, sizeof path, err) != PL_OK)
        return PL_ERR_IO;
    struct stat sb;
    if (lstat(path, &sb) != 0 || S_ISDIR(sb.st_mode))
        return PL_OK;
    if (unlink(path) != 0 && errno != ENOENT)
        return pl_fail(err, PL_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    size_t root_len = strlen(out->root);
    for (char *slash = strrchr(path, '/'); slash && (size_t)(slash - path) > root_len; slash = strrchr(path, '/')) {
        *slash = '\0';
        if (rmdir(path) != 0)
            break;
    }
    return PL_OK;
}

pl_status pl_outdir_begin(pl_output *out, const pl_outdir_state *st, json_t *journal, const pl_strings *planned,
                          const pl_strings *keep, pl_error *err)
{
    pl_strings files = {0};
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < st->owned.n; k++)
        s = pl_strings_add(&files, st->owned.items[k], err);
    for (size_t k = 0; s == PL_OK && k < planned->n; k++)
        if (!pl_strings_has(&files, planned->items[k]))
            s = pl_strings_add(&files, planned->items[k], err);
    if (s == PL_OK)
        s = pl_manifest_set_files(journal, &files, err);
    pl_strings_free(&files);
    if (s == PL_OK)
        s = pl_write_json(out, NULL, PL_JOURNAL_NAME, json_incref(journal), err);
    char path[PATH_MAX];
    if (s == PL_OK && (s = pl_output_path(out, NULL, PL_MANIFEST_NAME, path, sizeof path, err)) == PL_OK &&
        unlink(path) != 0 && errno != ENOENT)
        s = pl_fail(err, PL_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    for (size_t k = 0; s == PL_OK && k < st->temporaries.n; k++)
        s = remove_file(out, st->temporaries.items[k], err);
    for (size_t k = 0; s == PL_OK && k < st->owned.n; k++)
        if (!pl_strings_has(keep, st->owned.items[k]))
            s = remove_file(out, st->owned.items[k], err);
    return s;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

pl_status pl_outdir_finish(pl_output *out, const pl_outdir_state *st, const pl_strings *planned, json_t *manifest,
                           pl_error *err)
{
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < planned->n; k++)
        if (!pl_strings_has(&out->written, planned->items[k]) && !pl_strings_has(&st->foreign, planned->items[k]))
            s = remove_file(out, planned->items[k], err);
    /* sorted: the runs of a sweep complete in any order */
    pl_strings files = {0};
    for (size_t k = 0; s == PL_OK && k < out->written.n; k++)
        s = pl_strings_add(&files, out->written.items[k], err);
    if (files.n > 1)
        qsort(files.items, files.n, sizeof *files.items, compare_strings);
    if (s == PL_OK)
        s = pl_manifest_set_files(manifest, &files, err);
    pl_strings_free(&files);
    if (s == PL_OK)
        s = pl_write_json(out, NULL, PL_MANIFEST_NAME, json_incref(manifest), err);
    char path[PATH_MAX];
    if (s == PL_OK && (s = pl_output_path(out, NULL, PL_JOURNAL_NAME, path, sizeof path, err)) == PL_OK &&
        unlink(path) != 0 && errno != ENOENT)
        s = pl_fail(err, PL_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    return s;
}
