#include "io/outdir.h"
#include "io/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Manifests and journals larger than this are not penlim's. */
#define MAX_MANIFEST_BYTES (64L << 20)
#define MAX_DEPTH 8

/* What a message about the directory starts with: the program's option ("--out: "), or nothing
 * for the library's callers, whose message names the directory alone. */
static const char *tag(const pl_output *out)
{
    return out->prefix ? out->prefix : "";
}

/* ---- where --out may be ----------------------------------------------------------------------- */

/* The system's programs, libraries, configuration, state and kernel interfaces: --out may be
 * neither these directories nor any inside them. */
static const char *const system_trees[] = {"/bin",      "/boot",    "/dev",       "/etc",      "/lib", "/lib32",
                                           "/lib64",    "/libx32",  "/proc",      "/sbin",     "/sys", "/usr",
                                           "/var/lib",  "/var/log", "/var/cache", "/var/spool"};
/* Directories shared by many users or programs: a study goes into a directory of its own inside
 * them, never into one of these itself (whose contents a --force would mix with its files).
 * /dev/shm, memory shared as /tmp is, is the one directory inside /dev that may hold a study. */
static const char *const shared_dirs[] = {"/dev/shm", "/home", "/media", "/mnt", "/opt", "/root",
                                          "/run",     "/snap", "/srv",   "/tmp", "/var", "/var/tmp"};

static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const char *pl_outdir_system_path(const char *canonical, const char *home)
{
    if (strcmp(canonical, "/") == 0)
        return "the root directory";
    for (size_t k = 0; k < sizeof shared_dirs / sizeof shared_dirs[0]; k++)
        if (strcmp(canonical, shared_dirs[k]) == 0)
            return "a directory shared by the whole system";
    for (size_t k = 0; k < sizeof system_trees / sizeof system_trees[0]; k++)
        if (is_under(canonical, system_trees[k]) && !is_under(canonical, "/dev/shm"))
            return strcmp(canonical, system_trees[k]) == 0 ? "a system directory" : "inside a system directory";
    /* /var and /run hold the system's state (mail, backups, locks, daemons' sockets): only their
     * scratch trees, /var/tmp and a user's runtime directory /run/user/UID, may hold a study, and the
     * user's runtime directory itself is shared as /tmp is. */
    if (is_under(canonical, "/run/user") && strcmp(canonical, "/run/user") != 0 &&
        strchr(canonical + strlen("/run/user/"), '/') == NULL)
        return "a directory shared by the whole system";
    if (strcmp(canonical, "/run/user") == 0 ||
        (is_under(canonical, "/var") && strcmp(canonical, "/var") != 0 && !is_under(canonical, "/var/tmp")) ||
        (is_under(canonical, "/run") && strcmp(canonical, "/run") != 0 && !is_under(canonical, "/run/user")))
        return "inside a system directory";
    if (home && home[0] && strcmp(canonical, home) == 0)
        return "the home directory";
    return NULL;
}

/* What path designates: absolute, with the links of the part that exists resolved (as the kernel
 * resolves them when the rest is created) and the rest appended, in canonical; *missing says
 * whether there is a rest.  0, EINVAL for a "." or ".." in the rest (which mkdir -p would create
 * only to leave), EDANGLING where a link leads nowhere, or the errno of the part that exists. */
#define EDANGLING (-1)
static int resolve(const char *path, char *canonical, size_t len, int *missing)
{
    char head[PATH_MAX], tail[PATH_MAX] = "", real[PATH_MAX];
    snprintf(head, sizeof head, "%s", path);
    for (size_t n = strlen(head); n > 1 && head[n - 1] == '/'; n--)
        head[n - 1] = '\0';
    while (!realpath(head, real)) {
        struct stat sb;
        if (errno != ENOENT || strcmp(head, ".") == 0 || strcmp(head, "/") == 0)
            return errno;
        if (lstat(head, &sb) == 0) /* there, but not to be resolved: a link to nothing */
            return EDANGLING;
        char *slash = strrchr(head, '/');
        const char *name = slash ? slash + 1 : head;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            return EINVAL;
        char t[PATH_MAX];
        if (snprintf(t, sizeof t, "%s%s%s", name, tail[0] ? "/" : "", tail) >= (int)sizeof t)
            return ENAMETOOLONG;
        memcpy(tail, t, sizeof tail);
        if (!slash)
            snprintf(head, sizeof head, ".");
        else if (slash == head)
            snprintf(head, sizeof head, "/");
        else
            for (*slash = '\0'; slash > head + 1 && slash[-1] == '/'; slash--)
                slash[-1] = '\0';
    }
    *missing = tail[0] != '\0';
    int k = snprintf(canonical, len, "%s%s%s", real, tail[0] && strcmp(real, "/") != 0 ? "/" : "", tail);
    return k >= 0 && (size_t)k < len ? 0 : ENAMETOOLONG;
}

/* A home directory as canonical path ("" if none). */
static void canonical_home(const char *home, char *out)
{
    out[0] = '\0';
    if (home && home[0] && !realpath(home, out))
        out[0] = '\0';
}

static pl_status hold(pl_output *out, int fd, pl_error *err)
{
    int *p = realloc(out->lock_fds, (out->nlocks + 1) * sizeof *p);
    if (!p) {
        close(fd);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    out->lock_fds = p;
    out->lock_fds[out->nlocks++] = fd;
    return PL_OK;
}

/* A shared lock on each directory above canonical (those that exist): a command writing one of
 * them holds it exclusively, so that neither writes inside the other.  A directory that cannot be
 * opened or locked cannot be locked by another penlim either, and is passed over. */
static pl_status lock_above(pl_output *out, const char *canonical, pl_error *err)
{
    for (size_t i = 0; canonical[i]; i++) {
        if (canonical[i] != '/')
            continue;
        char dir[PATH_MAX]; /* "/", "/a", "/a/b" for "/a/b/c" */
        snprintf(dir, sizeof dir, "%.*s", i == 0 ? 1 : (int)i, canonical);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
            int busy = errno == EWOULDBLOCK;
            close(fd);
            if (busy)
                return pl_fail(err, PL_ERR_INPUT, "%s is in use: another penlim writes %s, which holds it", out->root,
                               dir);
            continue;
        }
        pl_status s = hold(out, fd, err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}

/* The exclusive lock on the root itself (open): busy if another penlim writes it, or writes a
 * directory inside it (which holds it shared). */
static pl_status lock_root(pl_output *out, int *unlocked, pl_error *err)
{
    if (flock(out->root_fd, LOCK_EX | LOCK_NB) == 0)
        return PL_OK;
    if (errno == EWOULDBLOCK)
        return pl_fail(err, PL_ERR_INPUT, "%s is in use by another penlim (writing it or a directory inside it)",
                       out->root);
    if (unlocked)
        *unlocked = 1; /* no flock on directories here (some network file systems) */
    return PL_OK;
}

pl_status pl_outdir_open(pl_output *out, int *unlocked, pl_error *err)
{
    if (unlocked)
        *unlocked = 0;
    size_t len = strlen(out->root);
    if (len == 0)
        return pl_fail(err, PL_ERR_INPUT, "%sno directory given", tag(out));
    if (len + PL_OUTPUT_RESERVE >= PATH_MAX)
        return pl_fail(err, PL_ERR_INPUT, "%sthe path is too long (%zu characters; at most %d)", tag(out), len,
                       PATH_MAX - PL_OUTPUT_RESERVE - 1);
    for (const char *c = out->root; *c;) {
        size_t n = strcspn(c, "/");
        if (n > NAME_MAX)
            return pl_fail(err, PL_ERR_INPUT, "%sa component of %.40s... is longer than %d characters", tag(out), out->root,
                           NAME_MAX);
        c += n + (c[n] == '/');
    }
    /* Where it is, before anything is opened or walked. */
    char canonical[PATH_MAX];
    int missing = 0, e = resolve(out->root, canonical, sizeof canonical, &missing);
    if (e == EINVAL)
        return pl_fail(err, PL_ERR_INPUT, "%s%s has '.' or '..' after a directory that does not exist", tag(out), out->root);
    if (e == EDANGLING)
        return pl_fail(err, PL_ERR_INPUT, "%s%s is or passes through a symbolic link to nothing", tag(out), out->root);
    if (e != 0)
        return pl_fail(err, PL_ERR_IO, "%scannot create %s: %s", tag(out), out->root, strerror(e));
    char home[PATH_MAX], user_home[PATH_MAX];
    canonical_home(getenv("HOME"), home);
    struct passwd pw, *found = NULL;
    char pwbuf[4096];
    canonical_home(getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &found) == 0 && found ? pw.pw_dir : NULL,
                   user_home);
    const char *what = pl_outdir_system_path(canonical, home);
    if (!what)
        what = pl_outdir_system_path(canonical, user_home);
    if (what)
        return pl_fail(err, PL_ERR_INPUT, "%s%s is %s: give the results a directory of their own", tag(out), canonical,
                       what);
    if (!missing) {
        out->root_fd = open(out->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (out->root_fd < 0)
            return pl_fail(err, PL_ERR_IO, "%scannot open %s: %s", tag(out), out->root,
                           errno == ENOTDIR ? "not a directory" : strerror(errno));
        if (access(out->root, W_OK | X_OK) != 0)
            return pl_fail(err, PL_ERR_IO, "%scannot write to %s: %s", tag(out), out->root, strerror(errno));
    } else { /* made by pl_outdir_begin, inside the part that exists: a directory it can write */
        char exists[PATH_MAX];
        snprintf(exists, sizeof exists, "%s", canonical);
        struct stat sb;
        while (strcmp(exists, "/") != 0 && lstat(exists, &sb) != 0)
            *(strrchr(exists, '/') == exists ? exists + 1 : strrchr(exists, '/')) = '\0';
        if (lstat(exists, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return pl_fail(err, PL_ERR_IO, "%scannot create %s: %s is not a directory", tag(out), out->root, exists);
        if (access(exists, W_OK | X_OK) != 0)
            return pl_fail(err, PL_ERR_IO, "%scannot create %s: %s", tag(out), out->root, strerror(errno));
    }
    pl_status s = lock_above(out, canonical, err);
    if (s == PL_OK && !missing)
        s = lock_root(out, unlocked, err);
    return s;
}

/* A new directory made at last, once the command is sure to write: its parents (mkdir -p), then
 * itself, which must not have appeared meanwhile (another command creating it), then locked. */
static pl_status create_root(pl_output *out, pl_error *err)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", out->root);
    for (size_t n = strlen(parent); n > 1 && parent[n - 1] == '/'; n--)
        parent[n - 1] = '\0';
    char *slash = strrchr(parent, '/');
    if (slash)
        *(slash == parent ? slash + 1 : slash) = '\0';
    pl_error mk;
    if (slash && pl_make_dir(parent, &mk) != PL_OK)
        return pl_fail(err, PL_ERR_INPUT, "%s%s", tag(out), mk.message);
    if (mkdir(out->root, 0777) != 0)
        return pl_fail(err, PL_ERR_INPUT, "%scannot create %s: %s", tag(out), out->root,
                       errno == EEXIST ? "it appeared meanwhile (another command?)" : strerror(errno));
    pl_status s = pl_output_open(out, err);
    if (s == PL_OK)
        s = lock_root(out, NULL, err);
    /* the directories made above it are locked as those that existed were */
    char canonical[PATH_MAX];
    if (s == PL_OK && realpath(out->root, canonical))
        s = lock_above(out, canonical, err);
    return s;
}

void pl_outdir_close(pl_output *out)
{
    pl_output_close(out);
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

/* content_hashes: absent, or an object of 16 hex digits per path. */
static int valid_hashes(const json_t *h)
{
    if (!h)
        return 1;
    if (!json_is_object(h))
        return 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)h, key, v) {
        const char *x = json_string_value(v);
        if (!x || strlen(x) != PL_HASH_LEN - 1 || strspn(x, "0123456789abcdef") != PL_HASH_LEN - 1)
            return 0;
    }
    return 1;
}

pl_status pl_manifest_parse(const char *text, size_t len, json_t **manifest, pl_error *err)
{
    *manifest = NULL;
    /* jansson's parser does not survive every failed allocation (under a memory limit json_loadb
     * crashed inside): the memory it takes, a few times the text's, is asked for first and released
     * just before it parses, so that running out is found here. */
    void *room = len < SIZE_MAX / 32 ? malloc(16 * len + 65536) : NULL;
    if (!room)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory reading a manifest");
    free(room);
    json_error_t je;
    json_t *m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    const json_t *version = json_object_get(m, "penlim_manifest");
    const char *command = json_string_value(json_object_get(m, "command"));
    const json_t *runs = json_object_get(m, "runs");
    const char *refined = json_string_value(json_object_get(m, "refined"));
    int ok = json_is_object(m) && json_is_integer(version) && json_integer_value(version) == 1 && command &&
             (strcmp(command, "run") == 0 || strcmp(command, "sweep") == 0 || strcmp(command, "limit") == 0 ||
              strcmp(command, "compare") == 0 || strcmp(command, "impact-law") == 0 || strcmp(command, "study") == 0) &&
             valid_files(json_object_get(m, "files")) && valid_hashes(json_object_get(m, "content_hashes")) &&
             (!runs || (json_is_array(runs) && refined));
    for (size_t k = 0; ok && runs && k < json_array_size(runs); k++) {
        const json_t *r = json_array_get(runs, k);
        const char *dir = json_string_value(json_object_get(r, "directory"));
        ok = json_is_object(r) && json_is_number(json_object_get(r, refined)) &&
             json_is_string(json_object_get(r, "status")) && dir && valid_path(dir) &&
             valid_files(json_object_get(r, "files"));
    }
    if (!m && json_error_code(&je) == json_error_out_of_memory)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory reading a manifest");
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
    json_t *m = json_object(), *params = pl_parameters_json(model), *options = json_object();
    for (size_t k = 0; k < solver->noptions; k++)
        if (!refined || strcmp(solver->options[k].name, refined) != 0)
            PL_JSON_SET(options, solver->options[k].name, pl_json_number(opts->option[k]));
    PL_JSON_SET(m, "penlim_manifest", json_integer(1));
    PL_JSON_SET(m, "penlim_version", json_string(PENLIM_VERSION));
    PL_JSON_SET(m, "command", json_string(command));
    PL_JSON_SET(m, "case", json_string(model->type->name));
    PL_JSON_SET(m, "parameters", params);
    PL_JSON_SET(m, "law", json_string(model->law_type->name));
    PL_JSON_SET(m, "law_parameters", pl_law_parameters_json(model));
    PL_JSON_SET(m, "solver", json_string(solver->name));
    PL_JSON_SET(m, "options", options);
    PL_JSON_SET(m, "t_end", pl_json_number(opts->t_end));
    PL_JSON_SET(m, "samples", json_integer((json_int_t)opts->samples));
    PL_JSON_SET(m, "sampling", json_string(PL_SAMPLING));
    PL_JSON_SET(m, "max_steps", json_integer(opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS));
    PL_JSON_SET(m, "contacts", json_string(pl_contacts_name(pl_contacts_resolve(opts->contacts, model->m))));
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
    const char *keys[] = {"command", "case", "model", "parameters", "law", "law_parameters", "solver",
                          "options", "t_end", "samples", "sampling", "max_steps", "refined"};
    /* the storage of the contacts: the files differ; a manifest of before it stored them dense */
    const char *ca = json_string_value(json_object_get(a, "contacts"));
    const char *cb = json_string_value(json_object_get(b, "contacts"));
    if (strcmp(ca ? ca : "dense", cb ? cb : "dense") != 0)
        return 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const json_t *x = json_object_get(a, keys[k]), *y = json_object_get(b, keys[k]);
        int optional = strncmp(keys[k], "law", 3) == 0; /* absent from the manifests of before the laws */
        if (optional && !x && !y)
            continue;
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

const char *pl_outdir_hash(const pl_outdir_state *st, const char *rel)
{
    return json_string_value(json_object_get(st->hashes, rel));
}

/* m, of the same settings as request, records rel's hash, and it is the latest one (st's). */
static int recorded(const pl_outdir_state *st, const json_t *m, const json_t *request, const char *rel)
{
    const char *h = json_string_value(json_object_get(json_object_get(m, "content_hashes"), rel));
    const char *latest = pl_outdir_hash(st, rel);
    return m && same_settings(m, request) && h && latest && strcmp(h, latest) == 0;
}

int pl_outdir_reusable_file(const pl_outdir_state *st, const json_t *request, const char *rel)
{
    return recorded(st, st->manifest, request, rel) || recorded(st, st->journal, request, rel);
}

/* ---- what the directory holds ------------------------------------------------------------------ */

/* ".NAME.XXXXXX", as pl_file_open names its temporaries. */
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

/* Read and check a manifest or journal (a regular file, no link followed): *m, or NULL with *bad
 * = 0 if absent, 1 if it is not one (a link, a FIFO, too large, malformed: a file penlim did not
 * write).  A read that fails is an error of its own (PL_ERR_IO with the reason, PL_ERR_NOMEM),
 * never taken for a malformed file. */
static pl_status load_manifest(const pl_output *out, const char *name, json_t **m, int *bad, pl_error *err)
{
    *m = NULL;
    *bad = 0;
    pl_error e;
    int fd = pl_output_open_file(out, name, &e);
    if (fd < 0 && errno == ENOENT)
        return PL_OK;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR || errno == EINVAL || errno == ENXIO))
        return *bad = 1, PL_OK;
    if (fd < 0)
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%s%s", tag(out), e.message);
    char where[PATH_MAX + NAME_MAX + 2], *text;
    size_t len;
    snprintf(where, sizeof where, "%s/%s", out->root, name);
    pl_status s = pl_read_fd(fd, where, MAX_MANIFEST_BYTES, 0, &text, &len, &e);
    close(fd);
    if (s == PL_ERR_INPUT) /* too large */
        return *bad = 1, PL_OK;
    if (s != PL_OK)
        return pl_fail(err, s, "%s%s", tag(out), e.message);
    s = pl_manifest_parse(text, len, m, &e);
    free(text);
    if (s == PL_ERR_NOMEM)
        return pl_fail(err, s, "%sout of memory reading %s", tag(out), where);
    *bad = s != PL_OK;
    return PL_OK;
}

/* Why a listed path cannot be a file penlim wrote, or NULL if it is a regular file or absent. */
static const char *listed_problem(const pl_output *out, const char *rel)
{
    char name[NAME_MAX + 1];
    int dir = pl_output_parent(out, rel, name);
    if (dir < 0)
        return errno == ELOOP || errno == ENOTDIR ? "passes through a symbolic link or a file" : NULL;
    struct stat sb;
    int r = fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW);
    close(dir);
    if (r != 0 || S_ISREG(sb.st_mode))
        return NULL;
    return S_ISLNK(sb.st_mode) ? "is a symbolic link"
           : S_ISDIR(sb.st_mode) ? "is a directory"
                                 : "is not a regular file (a FIFO, socket or device)";
}

static pl_status add_listed(const pl_output *out, pl_outdir_state *st, const json_t *m, pl_error *err)
{
    const json_t *files = json_object_get(m, "files");
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < json_array_size(files); k++) {
        const char *p = json_string_value(json_array_get(files, k));
        if (pl_strings_has(&st->owned, p))
            continue;
        const char *problem = listed_problem(out, p);
        if (!problem) {
            s = pl_strings_add(&st->owned, p, err);
            continue;
        }
        char why[PATH_MAX + 64];
        snprintf(why, sizeof why, "%s, which %s", p, problem);
        if (!pl_strings_has(&st->unsafe, why))
            s = pl_strings_add(&st->unsafe, why, err);
    }
    const json_t *runs = json_object_get(m, "runs");
    for (size_t r = 0; s == PL_OK && r < json_array_size(runs); r++)
        s = add_listed(out, st, json_array_get(runs, r), err);
    return s;
}

/* Every entry under the directory fd (root/rel) that is not a directory; fd is closed.  Links
 * are entries, never followed. */
static pl_status walk(const pl_output *out, int fd, const char *rel, int depth, pl_outdir_state *st,
                      pl_strings *found, pl_error *err)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_INPUT, "%scannot read %s/%s: %s", tag(out), out->root,
                       rel, strerror(errno));
    }
    pl_status s = PL_OK;
    struct dirent *e;
    while (s == PL_OK && (errno = 0, e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[PATH_MAX];
        if (snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >= (int)sizeof sub ||
            strlen(out->root) + strlen(sub) + 2 > PATH_MAX) {
            s = pl_fail(err, PL_ERR_INPUT, "%sa path in %s is too long", tag(out), out->root);
            break;
        }
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(sb.st_mode) && depth < MAX_DEPTH) {
            int child = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            s = child >= 0 ? walk(out, child, sub, depth + 1, st, found, err)
                           : pl_fail(err, PL_ERR_INPUT, "%scannot read %s/%s: %s", tag(out), out->root, sub,
                                     strerror(errno));
        } else if (!S_ISDIR(sb.st_mode) && is_temporary(e->d_name))
            s = pl_strings_add(&st->temporaries, sub, err);
        else if (depth > 0 || (strcmp(sub, PL_LOCK_NAME) != 0 && strcmp(sub, PL_MANIFEST_NAME) != 0 &&
                               strcmp(sub, PL_JOURNAL_NAME) != 0))
            s = pl_strings_add(found, sub, err);
    }
    if (s == PL_OK && errno != 0) /* readdir's NULL: the end, or a read error (never taken for the end) */
        s = pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%scannot read %s/%s: %s", tag(out), out->root, rel,
                    strerror(errno));
    closedir(d);
    return s;
}

pl_status pl_outdir_scan(const pl_output *out, pl_outdir_state *st, pl_error *err)
{
    memset(st, 0, sizeof *st);
    if (!(st->hashes = json_object()))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    if (out->root_fd < 0)
        return PL_OK; /* a new directory: nothing in it */
    int bad_manifest, bad_journal;
    pl_status s = load_manifest(out, PL_MANIFEST_NAME, &st->manifest, &bad_manifest, err);
    if (s == PL_OK)
        s = load_manifest(out, PL_JOURNAL_NAME, &st->journal, &bad_journal, err);
    if (s != PL_OK)
        return s;
    if (bad_manifest)
        s = pl_strings_add(&st->foreign, PL_MANIFEST_NAME, err);
    if (s == PL_OK && bad_journal)
        s = pl_strings_add(&st->foreign, PL_JOURNAL_NAME, err);
    if (s == PL_OK && st->manifest)
        s = add_listed(out, st, st->manifest, err);
    if (s == PL_OK && st->journal)
        s = add_listed(out, st, st->journal, err);
    /* the journal, written after the manifest, has the latest hashes */
    json_t *from[] = {json_object_get(st->manifest, "content_hashes"), json_object_get(st->journal, "content_hashes")};
    for (size_t k = 0; s == PL_OK && k < 2; k++)
        if (from[k] && json_object_update(st->hashes, from[k]) != 0)
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_strings found = {0};
    int fd = s == PL_OK ? openat(out->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (s == PL_OK)
        s = fd >= 0 ? walk(out, fd, "", 0, st, &found, err)
                    : pl_fail(err, PL_ERR_INPUT, "%scannot read %s: %s", tag(out), out->root, strerror(errno));
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
    json_decref(st->hashes);
    pl_strings_free(&st->owned);
    pl_strings_free(&st->unsafe);
    pl_strings_free(&st->temporaries);
    pl_strings_free(&st->foreign);
    memset(st, 0, sizeof *st);
}

pl_status pl_outdir_verify(const pl_output *out, const pl_outdir_state *st, const char *rel, pl_error *err)
{
    const char *want = pl_outdir_hash(st, rel);
    if (!want)
        return pl_fail(err, PL_ERR_INPUT, "%s/%s: no content hash recorded", out->root, rel);
    pl_error e;
    int fd = pl_output_open_file(out, rel, &e);
    if (fd < 0 && (errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EINVAL))
        return pl_fail(err, PL_ERR_INPUT, "%s", e.message);
    if (fd < 0)
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%s", e.message);
    char got[PL_HASH_LEN];
    pl_status s = pl_hash_fd(fd, got, &e);
    close(fd);
    if (s != PL_OK)
        return pl_fail(err, s, "%s/%s: %s", out->root, rel, e.message);
    if (strcmp(got, want) != 0)
        return pl_fail(err, PL_ERR_INPUT, "%s/%s has changed since penlim wrote it (content hash %s, recorded %s)",
                       out->root, rel, got, want);
    return PL_OK;
}

/* ---- writing --------------------------------------------------------------------------------- */

/* Why penlim cannot write ROOT/rel (a link, or a file where it needs a directory, on the way; a
 * directory, link or special file at the path), or NULL. */
static const char *planned_problem(const pl_output *out, const char *rel)
{
    char name[NAME_MAX + 1];
    int dir = pl_output_parent(out, rel, name);
    if (dir < 0)
        return errno == ELOOP || errno == ENOTDIR ? "it passes through a symbolic link or a file" : NULL;
    struct stat sb;
    int r = fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW);
    close(dir);
    if (r != 0 || S_ISREG(sb.st_mode))
        return NULL;
    return S_ISLNK(sb.st_mode) ? "it is a symbolic link"
           : S_ISDIR(sb.st_mode) ? "it is a directory"
                                 : "it is not a regular file (a FIFO, socket or device)";
}

/* Remove ROOT/rel (a file or a link, never followed) and the directories it leaves empty. */
static pl_status remove_file(const pl_output *out, const char *rel, pl_error *err)
{
    char name[NAME_MAX + 1];
    int dir = pl_output_parent(out, rel, name);
    if (dir < 0)
        return errno == ENOENT ? PL_OK
                               : pl_fail(err, PL_ERR_IO, "cannot remove %s/%s: %s", out->root, rel,
                                         errno == ELOOP || errno == ENOTDIR
                                             ? "it passes through a symbolic link or a file"
                                             : strerror(errno));
    struct stat sb;
    if (fstatat(dir, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(sb.st_mode)) {
        close(dir);
        return PL_OK;
    }
    int r = unlinkat(dir, name, 0), saved = errno;
    close(dir);
    if (r != 0 && saved != ENOENT)
        return pl_fail(err, PL_ERR_IO, "cannot remove %s/%s: %s", out->root, rel, strerror(saved));
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s", rel);
    for (char *slash = strrchr(sub, '/'); slash; slash = strrchr(sub, '/')) {
        *slash = '\0';
        int parent = pl_output_parent(out, sub, name);
        if (parent < 0)
            break;
        r = unlinkat(parent, name, AT_REMOVEDIR);
        close(parent);
        if (r != 0)
            break;
    }
    return PL_OK;
}

/* The hashes recorded for these files, as a JSON object (those without one left out). */
static json_t *hashes_json(const pl_strings *files, const pl_strings *hashes, const pl_outdir_state *st)
{
    json_t *h = json_object();
    for (size_t k = 0; h && k < files->n; k++) {
        const char *x = hashes ? hashes->items[k] : pl_outdir_hash(st, files->items[k]);
        if (x && x[0] && json_object_set_new(h, files->items[k], json_string(x)) != 0) {
            json_decref(h);
            return NULL;
        }
    }
    return h;
}

pl_status pl_outdir_begin(pl_output *out, const pl_outdir_state *st, json_t *journal, const pl_strings *planned,
                          const pl_strings *keep, pl_error *err)
{
    pl_status s = PL_OK;
    if (out->root_fd < 0)
        s = create_root(out, err);
    for (size_t k = 0; s == PL_OK && k < planned->n; k++) {
        const char *problem = planned_problem(out, planned->items[k]);
        if (problem)
            s = pl_fail(err, PL_ERR_INPUT,
                        "%scannot write %s/%s: %s (penlim follows no link inside the directory; remove it)", tag(out), out->root,
                        planned->items[k], problem);
    }
    pl_strings files = {0};
    for (size_t k = 0; s == PL_OK && k < st->owned.n; k++)
        s = pl_strings_add(&files, st->owned.items[k], err);
    for (size_t k = 0; s == PL_OK && k < planned->n; k++)
        if (!pl_strings_has(&files, planned->items[k]))
            s = pl_strings_add(&files, planned->items[k], err);
    if (s == PL_OK)
        s = pl_manifest_set_files(journal, &files, err);
    pl_strings_free(&files);
    json_t *kept = s == PL_OK ? hashes_json(keep, NULL, st) : NULL;
    if (s == PL_OK && (!kept || json_object_set_new(journal, "content_hashes", kept) != 0))
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
    if (s == PL_OK)
        s = pl_write_json(out, NULL, PL_JOURNAL_NAME, json_incref(journal), err);
    if (s == PL_OK && unlinkat(out->root_fd, PL_MANIFEST_NAME, 0) != 0 && errno != ENOENT)
        s = pl_fail(err, PL_ERR_IO, "cannot remove %s/%s: %s", out->root, PL_MANIFEST_NAME, strerror(errno));
    for (size_t k = 0; s == PL_OK && k < st->temporaries.n; k++)
        s = remove_file(out, st->temporaries.items[k], err);
    for (size_t k = 0; s == PL_OK && k < st->owned.n; k++)
        if (!pl_strings_has(keep, st->owned.items[k]))
            s = remove_file(out, st->owned.items[k], err);
    /* a foreign file where this command writes (--force): replaced, removed now so that nothing
     * (gnuplot included) writes into it in place */
    for (size_t k = 0; s == PL_OK && k < planned->n; k++)
        if (!pl_strings_has(keep, planned->items[k]) && pl_strings_has(&st->foreign, planned->items[k]))
            s = remove_file(out, planned->items[k], err);
    return s;
}

pl_status pl_outdir_journal_update(pl_output *out, json_t *journal, pl_error *err)
{
    json_t *h = json_object_get(journal, "content_hashes");
    if (!json_is_object(h)) {
        if (json_object_set_new(journal, "content_hashes", h = json_object()) != 0)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < out->written.n; k++)
        if (out->hashes.items[k][0] && json_object_set_new(h, out->written.items[k], json_string(out->hashes.items[k])) != 0)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_status s = pl_output_sync(out, err); /* the files on disk before the journal says they are */
    return s == PL_OK ? pl_write_json(out, NULL, PL_JOURNAL_NAME, json_incref(journal), err) : s;
}

typedef struct {
    char *file, *hash;
} file_hash;

static int compare_files(const void *a, const void *b)
{
    return strcmp(((const file_hash *)a)->file, ((const file_hash *)b)->file);
}

/* Order files (and their hashes alongside) by name. */
static pl_status sort_files(pl_strings *files, pl_strings *hashes, pl_error *err)
{
    if (files->n < 2)
        return PL_OK;
    file_hash *p = malloc(files->n * sizeof *p);
    if (!p)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < files->n; k++)
        p[k] = (file_hash){files->items[k], hashes->items[k]};
    qsort(p, files->n, sizeof *p, compare_files);
    for (size_t k = 0; k < files->n; k++) {
        files->items[k] = p[k].file;
        hashes->items[k] = p[k].hash;
    }
    free(p);
    pl_strings_reindex(files);
    pl_strings_reindex(hashes);
    return PL_OK;
}

pl_status pl_outdir_finish(pl_output *out, const pl_outdir_state *st, const pl_strings *planned, json_t *manifest,
                           pl_error *err)
{
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < planned->n; k++)
        if (!pl_strings_has(&out->written, planned->items[k]) && !pl_strings_has(&st->foreign, planned->items[k]))
            s = remove_file(out, planned->items[k], err);
    /* sorted: the runs of a sweep complete in any order */
    pl_strings files = {0}, hashes = {0};
    for (size_t k = 0; s == PL_OK && k < out->written.n; k++)
        if ((s = pl_strings_add(&files, out->written.items[k], err)) == PL_OK)
            s = pl_strings_add(&hashes, out->hashes.items[k], err);
    if (s == PL_OK)
        s = sort_files(&files, &hashes, err);
    if (s == PL_OK)
        s = pl_manifest_set_files(manifest, &files, err);
    json_t *h = s == PL_OK ? hashes_json(&files, &hashes, st) : NULL;
    if (s == PL_OK && (!h || json_object_set_new(manifest, "content_hashes", h) != 0))
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_strings_free(&files);
    pl_strings_free(&hashes);
    if (s == PL_OK)
        s = pl_output_sync(out, err); /* every file on disk before the manifest lists it */
    if (s == PL_OK)
        s = pl_write_json(out, NULL, PL_MANIFEST_NAME, json_incref(manifest), err);
    if (s == PL_OK && unlinkat(out->root_fd, PL_JOURNAL_NAME, 0) != 0 && errno != ENOENT)
        s = pl_fail(err, PL_ERR_IO, "cannot remove %s/%s: %s", out->root, PL_JOURNAL_NAME, strerror(errno));
    return s;
}
