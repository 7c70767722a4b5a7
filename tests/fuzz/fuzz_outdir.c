/* Fuzz target: an output directory that is not what its manifest says, written into as a command
 * does (pl_outdir_open, scan, begin, the files, the journal, finish).  The input builds the
 * directory: its first 10 bytes give each of 10 paths a kind (absent, file, directory, link to a
 * directory or a file outside, dangling link, FIFO), the next byte the command's choices (--force,
 * reuse of what the manifest lists), and the rest, split on its first NUL byte, is manifest.json and
 * .penlim.journal.  Whatever the input:
 *   - nothing outside the directory changes (the links' targets keep their names and contents);
 *   - nothing blocks on a FIFO (libFuzzer's -timeout);
 *   - a refusal is a one-line message, and a refusal by pl_outdir_begin leaves the directory as it was;
 *   - once begun, every file is written, and the manifest then lists only regular files inside the
 *     directory whose content hashes verify. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "io/outdir.h"

static char scratch[256], root[300], outside[300];

/* What the directory may hold, parents before children. */
static const char *const paths[] = {"a.csv",  "lnk",   "runs", "runs/001", "runs/001/trajectory.csv",
                                    "runs/001/summary.json", "sub", "sub/x", "gnuplot.log", "limit"};
#define NPATHS (sizeof paths / sizeof paths[0])

/* What a command plans to write (some through the paths above). */
static const char *const planned_files[] = {"a.csv", "b.json", "runs/001/trajectory.csv", "runs/001/summary.json",
                                            "sub/x", "gnuplot.log", "limit/summary.json"};
#define NPLANNED (sizeof planned_files / sizeof planned_files[0])

/* Remove name in dirfd and all below it, never following a link. */
static void remove_tree_at(int at, const char *name)
{
    struct stat sb;
    if (fstatat(at, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d && fd >= 0)
            close(fd);
        for (struct dirent *e; d && (e = readdir(d));)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                remove_tree_at(dirfd(d), e->d_name);
        if (d)
            closedir(d);
        unlinkat(at, name, AT_REMOVEDIR);
    } else
        unlinkat(at, name, 0);
}

/* A description of the tree below path (names, kinds, sizes, link targets, contents' hashes), in a
 * growing buffer; links never followed. */
static void describe(int fd_in, const char *rel, char **buf, size_t *len)
{
    DIR *d = fdopendir(fd_in);
    if (!d) {
        close(fd_in);
        return;
    }
    /* sorted: readdir's order is the file system's */
    char *names[64];
    size_t n = 0;
    for (struct dirent *e; n < 64 && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            names[n++] = strdup(e->d_name);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (size_t k = 0; k < n; k++) {
        struct stat sb;
        char line[1024], target[300] = "", hash[PL_HASH_LEN] = "";
        if (!names[k] || fstatat(dirfd(d), names[k], &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISLNK(sb.st_mode)) {
            ssize_t t = readlinkat(dirfd(d), names[k], target, sizeof target - 1);
            target[t > 0 ? t : 0] = '\0';
        }
        if (S_ISREG(sb.st_mode)) {
            int fd = openat(dirfd(d), names[k], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0 && pl_hash_fd(fd, hash, NULL) != PL_OK)
                hash[0] = '\0';
            if (fd >= 0)
                close(fd);
        }
        int w = snprintf(line, sizeof line, "%s/%s %o %lld %s %s\n", rel, names[k], (unsigned)sb.st_mode,
                         (long long)sb.st_size, target, hash);
        char *grown = realloc(*buf, *len + (size_t)w + 1);
        if (!grown)
            abort();
        *buf = grown;
        memcpy(*buf + *len, line, (size_t)w + 1);
        *len += (size_t)w;
        if (S_ISDIR(sb.st_mode)) {
            char sub[600];
            snprintf(sub, sizeof sub, "%s/%s", rel, names[k]);
            int fd = openat(dirfd(d), names[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd >= 0)
                describe(fd, sub, buf, len);
        }
    }
    for (size_t k = 0; k < n; k++)
        free(names[k]);
    closedir(d);
}

static char *tree(const char *path)
{
    char *buf = calloc(1, 1);
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!buf)
        abort();
    if (fd >= 0)
        describe(fd, "", &buf, &len);
    return buf;
}

static char *outside_before;

static void remove_scratch(void)
{
    int fd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        remove_tree_at(fd, "root");
        remove_tree_at(fd, "outside");
        close(fd);
    }
    rmdir(scratch);
    free(outside_before);
}

static int write_text(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, (const char *)data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return close(fd) == 0 && done == size;
}

/* One scratch directory per process: outside/ (what links point to) and root/ (rebuilt per input). */
static int make_scratch(void)
{
    if (scratch[0])
        return 1;
    /* every file written is fsynced: in memory (/dev/shm) where there is no TMPDIR, 50 times faster */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/penlim-fuzz-outdir-XXXXXX", tmp);
    if (!mkdtemp(scratch)) {
        scratch[0] = '\0';
        return 0;
    }
    snprintf(root, sizeof root, "%s/root", scratch);
    snprintf(outside, sizeof outside, "%s/outside", scratch);
    char path[400];
    snprintf(path, sizeof path, "%s/dir", outside);
    if (mkdir(outside, 0700) != 0 || mkdir(path, 0700) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/precious.txt", outside);
    if (!write_text(path, "precious\n", 9))
        return 0;
    snprintf(path, sizeof path, "%s/dir/inner.txt", outside);
    if (!write_text(path, "inner\n", 6))
        return 0;
    outside_before = tree(outside);
    atexit(remove_scratch);
    return 1;
}

/* Make each path of the given kind, inside root only: a path below a link or a file is skipped. */
static void build(const uint8_t *kinds)
{
    pl_output out;
    pl_output_init(&out, root, 0600, NULL);
    if (pl_output_open(&out, NULL) != PL_OK)
        return;
    char target[400], name[NAME_MAX + 1];
    for (size_t k = 0; k < NPATHS; k++) {
        int dir = pl_output_parent(&out, paths[k], name);
        if (dir < 0)
            continue;
        switch (kinds[k] % 7) {
        case 1: {
            int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd >= 0 && write(fd, paths[k], strlen(paths[k])) < 0)
                abort();
            if (fd >= 0)
                close(fd);
            break;
        }
        case 2: mkdirat(dir, name, 0700); break;
        case 3: snprintf(target, sizeof target, "%s/dir", outside); (void)!symlinkat(target, dir, name); break;
        case 4: snprintf(target, sizeof target, "%s/precious.txt", outside); (void)!symlinkat(target, dir, name); break;
        case 5: snprintf(target, sizeof target, "%s/nothing", outside); (void)!symlinkat(target, dir, name); break;
        case 6: mkfifoat(dir, name, 0600); break;
        default: break; /* absent */
        }
        close(dir);
    }
    pl_output_free(&out);
}

static void check_outside(void)
{
    char *now = tree(outside);
    if (strcmp(now, outside_before) != 0)
        abort(); /* something outside the directory changed */
    free(now);
}

/* Every file the manifest lists is a regular file inside the directory with its recorded hash. */
static void check_written(void)
{
    pl_output out;
    pl_output_init(&out, root, 0600, NULL);
    pl_outdir_state st;
    pl_error err;
    if (pl_output_open(&out, &err) != PL_OK || pl_outdir_scan(&out, &st, &err) != PL_OK)
        abort();
    if (!st.manifest || st.unsafe.n > 0 || st.journal)
        abort();
    const json_t *files = json_object_get(st.manifest, "files");
    for (size_t k = 0; k < json_array_size(files); k++)
        if (pl_outdir_verify(&out, &st, json_string_value(json_array_get(files, k)), &err) != PL_OK)
            abort();
    pl_outdir_state_free(&st);
    pl_output_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < NPATHS + 1 || !make_scratch())
        return 0;
    int top = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return 0;
    remove_tree_at(top, "root");
    close(top);
    if (mkdir(root, 0700) != 0)
        return 0;
    build(data);
    int force = data[NPATHS] & 1, reuse = data[NPATHS] & 2;
    const uint8_t *text = data + NPATHS + 1;
    size_t len = size - NPATHS - 1;
    const uint8_t *nul = memchr(text, 0, len);
    size_t mlen = nul ? (size_t)(nul - text) : len;
    char path[600];
    snprintf(path, sizeof path, "%s/%s", root, PL_MANIFEST_NAME);
    if (mlen > 0)
        write_text(path, text, mlen);
    snprintf(path, sizeof path, "%s/%s", root, PL_JOURNAL_NAME);
    if (nul && len - mlen > 1)
        write_text(path, nul + 1, len - mlen - 1);

    pl_output out;
    pl_output_init(&out, root, 0600, NULL);
    pl_outdir_state st = {0};
    pl_strings planned = {0}, keep = {0};
    pl_error err;
    int unlocked;
    json_t *journal = NULL, *manifest = NULL;
    if (pl_outdir_open(&out, &unlocked, &err) != PL_OK)
        abort(); /* the scratch directory is one --out accepts: else nothing here is tested */
    pl_status s = pl_outdir_scan(&out, &st, &err);
    if (s != PL_OK) {
        fuzz_check_message(&err);
        goto done;
    }
    if (!force && (st.unsafe.n > 0 || st.foreign.n > 0))
        goto done; /* the program refuses here (outdir_start) */
    for (size_t k = 0; k < NPLANNED; k++)
        if (pl_strings_add(&planned, planned_files[k], &err) != PL_OK)
            abort();
    /* reused as a resumed sweep reuses a run: listed, planned again, and verified */
    for (size_t k = 0; reuse && k < st.owned.n; k++)
        if (pl_strings_has(&planned, st.owned.items[k]) && pl_outdir_verify(&out, &st, st.owned.items[k], &err) == PL_OK &&
            pl_strings_add(&keep, st.owned.items[k], &err) != PL_OK)
            abort();
    journal = json_pack("{s:i, s:s, s:[]}", "penlim_manifest", 1, "command", "run", "files");
    manifest = json_deep_copy(journal);
    char *before = tree(root);
    s = pl_outdir_begin(&out, &st, journal, &planned, &keep, &err);
    if (s != PL_OK) {
        fuzz_check_message(&err);
        char *after = tree(root);
        if (s == PL_ERR_INPUT && strcmp(before, after) != 0)
            abort(); /* a refusal changes nothing */
        free(after);
        free(before);
        goto done;
    }
    free(before);
    for (size_t k = 0; k < keep.n; k++)
        if (pl_output_add_hashed(&out, keep.items[k], pl_outdir_hash(&st, keep.items[k]), &err) != PL_OK)
            abort();
    for (size_t k = 0; k < NPLANNED; k++) {
        if (pl_strings_has(&keep, planned_files[k]))
            continue;
        char sub[64], name[64];
        const char *slash = strrchr(planned_files[k], '/');
        snprintf(sub, sizeof sub, "%.*s", slash ? (int)(slash - planned_files[k]) : 0, planned_files[k]);
        snprintf(name, sizeof name, "%s", slash ? slash + 1 : planned_files[k]);
        if (pl_write_json(&out, sub, name, json_pack("{s:s}", "file", planned_files[k]), &err) != PL_OK)
            abort(); /* begun: every planned path can be written */
        if (k == 2 && pl_outdir_journal_update(&out, journal, &err) != PL_OK)
            abort();
    }
    if (pl_outdir_finish(&out, &st, &planned, manifest, &err) != PL_OK)
        abort();
    pl_outdir_close(&out);
    check_written();
done:
    check_outside();
    json_decref(journal);
    json_decref(manifest);
    pl_strings_free(&planned);
    pl_strings_free(&keep);
    pl_outdir_state_free(&st);
    pl_output_free(&out);
    return 0;
}
