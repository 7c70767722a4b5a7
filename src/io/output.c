#define _GNU_SOURCE /* syncfs */
#include "io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/number.h"

static size_t string_hash(const char *text)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (size_t)h;
}

static void index_put(pl_strings *s, size_t item)
{
    size_t k = string_hash(s->items[item]) & (s->index_cap - 1);
    while (s->index[k])
        k = (k + 1) & (s->index_cap - 1);
    s->index[k] = item + 1;
}

void pl_strings_reindex(pl_strings *s)
{
    free(s->index);
    s->index = NULL;
    s->index_cap = 0;
    if (s->n < 16)
        return;
    size_t cap = 64;
    while (cap < 4 * s->n)
        cap *= 2;
    if (!(s->index = calloc(cap, sizeof *s->index)))
        return; /* without memory for it, lookups go through the list */
    s->index_cap = cap;
    for (size_t k = 0; k < s->n; k++)
        index_put(s, k);
}

pl_status pl_strings_add(pl_strings *s, const char *text, pl_error *err)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        char **p = realloc(s->items, cap * sizeof *p);
        if (!p)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
        s->items = p;
        s->cap = cap;
    }
    if (!(s->items[s->n] = strdup(text)))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    s->n++;
    if (s->index && 2 * s->n <= s->index_cap)
        index_put(s, s->n - 1);
    else if (s->n >= 16)
        pl_strings_reindex(s);
    return PL_OK;
}

long pl_strings_find(const pl_strings *s, const char *text)
{
    if (s->index) {
        for (size_t k = string_hash(text) & (s->index_cap - 1); s->index[k]; k = (k + 1) & (s->index_cap - 1))
            if (strcmp(s->items[s->index[k] - 1], text) == 0)
                return (long)(s->index[k] - 1);
        return -1;
    }
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->items[k], text) == 0)
            return (long)k;
    return -1;
}

int pl_strings_has(const pl_strings *s, const char *text)
{
    return pl_strings_find(s, text) >= 0;
}

pl_status pl_strings_set(pl_strings *s, size_t k, const char *text, pl_error *err)
{
    char *t = strdup(text);
    if (!t)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    free(s->items[k]);
    s->items[k] = t;
    if (s->index)
        pl_strings_reindex(s);
    return PL_OK;
}

void pl_strings_pop(pl_strings *s)
{
    if (s->n == 0)
        return;
    free(s->items[--s->n]);
    if (s->index)
        pl_strings_reindex(s);
}

void pl_strings_free(pl_strings *s)
{
    for (size_t k = 0; k < s->n; k++)
        free(s->items[k]);
    free(s->items);
    free(s->index);
    memset(s, 0, sizeof *s);
}

void pl_output_init(pl_output *out, const char *root, mode_t mode, const pl_temp_hooks *hooks)
{
    memset(out, 0, sizeof *out);
    snprintf(out->root, sizeof out->root, "%s", root);
    out->root_fd = -1;
    out->mode = mode;
    if (hooks)
        out->hooks = *hooks;
}

pl_status pl_output_open(pl_output *out, pl_error *err)
{
    if (out->root_fd >= 0)
        return PL_OK;
    out->root_fd = open(out->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (out->root_fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot open the directory %s: %s", out->root, strerror(errno));
    return PL_OK;
}

void pl_output_free(pl_output *out)
{
    pl_strings_free(&out->written);
    pl_strings_free(&out->hashes);
    pl_output_close(out);
}

void pl_output_close(pl_output *out)
{
    for (size_t k = 0; k < out->nlocks; k++)
        close(out->lock_fds[k]); /* releases the lock */
    free(out->lock_fds);
    out->lock_fds = NULL;
    out->nlocks = 0;
    if (out->root_fd >= 0)
        close(out->root_fd);
    out->root_fd = -1;
}

pl_status pl_output_add_hashed(pl_output *out, const char *rel, const char *hash, pl_error *err)
{
    long k = pl_strings_find(&out->written, rel);
    if (k >= 0) /* written again: its latest content */
        return pl_strings_set(&out->hashes, (size_t)k, hash ? hash : "", err);
    pl_status s = pl_strings_add(&out->written, rel, err);
    if (s == PL_OK && (s = pl_strings_add(&out->hashes, hash ? hash : "", err)) != PL_OK)
        pl_strings_pop(&out->written);
    return s;
}

pl_status pl_output_add(pl_output *out, const char *rel, pl_error *err)
{
    char hash[PL_HASH_LEN];
    int fd = pl_output_open_file(out, rel, err);
    if (fd < 0)
        return PL_ERR_IO;
    pl_error e;
    pl_status s = pl_hash_fd(fd, hash, &e);
    close(fd);
    if (s != PL_OK)
        return pl_fail(err, s, "%s/%s: %s", out->root, rel, e.message);
    return pl_output_add_hashed(out, rel, hash, err);
}

void pl_hash_begin(pl_hash *h)
{
    h->h = 14695981039346656037ULL; /* FNV-1a, 64 bits: the offset basis */
}

void pl_hash_add(pl_hash *h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    uint64_t x = h->h;
    for (size_t k = 0; k < n; k++)
        x = (x ^ b[k]) * 1099511628211ULL; /* the FNV prime */
    h->h = x;
}

void pl_hash_text(const pl_hash *h, char hash[PL_HASH_LEN])
{
    snprintf(hash, PL_HASH_LEN, "%016llx", (unsigned long long)(uint64_t)h->h);
}

/* The size of the buffer a file is read through to hash or copy it. */
enum { PL_COPY_BUFFER = 65536 };

pl_status pl_hash_fd(int fd, char hash[PL_HASH_LEN], pl_error *err)
{
    pl_hash h;
    pl_hash_begin(&h);
    /* on the heap: a stack that must grow for it fails without a word under an address-space limit
     * (ulimit -v: SIGSEGV), and a caller's thread may have a small stack */
    unsigned char *buf = malloc(PL_COPY_BUFFER);
    if (!buf)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    off_t at = 0;
    for (;;) {
        ssize_t got = pread(fd, buf, PL_COPY_BUFFER, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return pl_fail(err, e == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot read: %s", strerror(e));
        }
        if (got == 0)
            break;
        pl_hash_add(&h, buf, (size_t)got);
        at += got;
    }
    free(buf);
    pl_hash_text(&h, hash);
    return PL_OK;
}

static int join(char *buf, size_t len, const char *a, const char *b, const char *c)
{
    int k = snprintf(buf, len, "%s%s%s%s%s", a, a[0] && b && b[0] ? "/" : "", b ? b : "",
                     (a[0] || (b && b[0])) && c && c[0] ? "/" : "", c ? c : "");
    return k >= 0 && (size_t)k < len;
}

pl_status pl_output_path(const pl_output *out, const char *sub, const char *name, char *buf, size_t len,
                         pl_error *err)
{
    if (!join(buf, len, out->root, sub, name))
        return pl_fail(err, PL_ERR_IO, "output path too long: %s/%s/%s", out->root, sub ? sub : "", name ? name : "");
    return PL_OK;
}

int pl_output_dir(const pl_output *out, const char *sub, int create)
{
    if (out->root_fd < 0) {
        errno = EBADF;
        return -1;
    }
    int fd = openat(out->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (const char *c = sub ? sub : ""; fd >= 0 && *c;) {
        size_t n = strcspn(c, "/");
        char name[NAME_MAX + 1];
        if (n > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, c, n);
        name[n] = '\0';
        c += n + (c[n] == '/');
        if (n == 0 || strcmp(name, ".") == 0)
            continue;
        if (create && mkdirat(fd, name, 0777) != 0 && errno != EEXIST) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        int next = strcmp(name, "..") == 0 ? (errno = EPERM, -1) /* never out of the root */
                                           : openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        close(fd);
        errno = saved;
        fd = next;
    }
    return fd;
}

/* The directory part of rel ("" for a name at the root) in dir, its last component in name. */
static int split_path(const char *rel, char *dir, size_t dlen, char *name, size_t nlen)
{
    const char *slash = strrchr(rel, '/');
    const char *base = slash ? slash + 1 : rel;
    size_t d = slash ? (size_t)(slash - rel) : 0;
    if (d >= dlen || strlen(base) >= nlen || !*base)
        return 0;
    memcpy(dir, rel, d);
    dir[d] = '\0';
    strcpy(name, base);
    return 1;
}

int pl_output_parent(const pl_output *out, const char *rel, char name[NAME_MAX + 1])
{
    char sub[PATH_MAX];
    if (!split_path(rel, sub, sizeof sub, name, NAME_MAX + 1)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return pl_output_dir(out, sub, 0);
}

int pl_output_open_file(const pl_output *out, const char *rel, pl_error *err)
{
    char name[NAME_MAX + 1];
    int dir = pl_output_parent(out, rel, name);
    int fd = dir < 0 ? -1 : openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    int saved = errno;
    if (dir >= 0)
        close(dir);
    struct stat st;
    if (fd < 0) {
        pl_fail(err, PL_ERR_IO, "cannot read %s/%s: %s", out->root, rel,
                saved == ELOOP || saved == ENOTDIR ? "it is or passes through a symbolic link" : strerror(saved));
        errno = saved;
        return -1;
    }
    int stat_failed = fstat(fd, &st) != 0;
    if (stat_failed || !S_ISREG(st.st_mode)) {
        saved = stat_failed ? errno : EINVAL;
        close(fd);
        pl_fail(err, PL_ERR_IO, "cannot read %s/%s: %s", out->root, rel,
                saved == EINVAL ? "not a regular file" : strerror(saved));
        errno = saved;
        return -1;
    }
    return fd;
}

pl_status pl_read_fd(int fd, const char *what, size_t max, int first_line, char **text, size_t *len,
                     pl_error *err)
{
    size_t cap = 0, used = 0;
    char *buf = NULL;
    *text = NULL;
    *len = 0;
    for (;;) {
        if (used == cap) {
            size_t grow = cap ? 2 * cap : 4096;
            char *p = grow > cap && grow < (size_t)-1 ? realloc(buf, grow + 1) : NULL; /* + 1: the NUL */
            if (!p) {
                free(buf);
                return pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", what);
            }
            buf = p;
            cap = grow;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return pl_fail(err, e == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot read %s: %s", what, strerror(e));
        }
        char *newline = first_line && got > 0 ? memchr(buf + used, '\n', (size_t)got) : NULL;
        used = newline ? (size_t)(newline - buf) + 1 : used + (size_t)got;
        if (used > max) {
            free(buf);
            return pl_fail(err, PL_ERR_INPUT, "%s: more than %zu bytes%s", what, max,
                           first_line ? " in its first line" : "");
        }
        if (got == 0 || newline)
            break;
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return PL_OK;
}

pl_status pl_make_dir(const char *path, pl_error *err)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return pl_fail(err, PL_ERR_IO, "output path too long: %s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return pl_fail(err, PL_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return pl_fail(err, PL_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return pl_fail(err, PL_ERR_IO, "%s is not a directory", buf);
    return PL_OK;
}

/* Why a directory inside the root could not be reached or made. */
static const char *dir_error(int e)
{
    return e == ELOOP || e == ENOTDIR ? "a component is a symbolic link or a file (penlim follows no link inside its "
                                        "output directory)"
                                      : strerror(e);
}

pl_status pl_output_make_dir(pl_output *out, const char *sub, pl_error *err)
{
    pl_status s = pl_output_open(out, err);
    if (s != PL_OK)
        return s;
    int fd = pl_output_dir(out, sub, 1);
    if (fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot create directory %s/%s: %s", out->root, sub, dir_error(errno));
    close(fd);
    return PL_OK;
}

/* ".NAME.XXXXXX" in dir_fd, created exclusively (mkstemp's names, but in a directory descriptor). */
static int create_temp(int dir_fd, const char *name, char tmp[NAME_MAX + 1])
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) { /* no entropy yet: the clock */
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t x = ((uint64_t)ts.tv_nsec * 6364136223846793005ULL) ^ (uint64_t)getpid() ^
                         ((uint64_t)attempt << 40);
            for (int k = 0; k < 6; k++, x >>= 8)
                r[k] = (unsigned char)x;
        }
        char suffix[7];
        for (int k = 0; k < 6; k++)
            suffix[k] = alnum[r[k] % (sizeof alnum - 1)];
        suffix[6] = '\0';
        if (snprintf(tmp, NAME_MAX + 1, ".%s.%s", name, suffix) > NAME_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = openat(dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* A failed system call's status: out of memory (the kernel's or the C library's) is a memory
 * failure like any other (exit 3), the rest an output error. */
static pl_status io_status(int e)
{
    return e == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO;
}

pl_status pl_file_open(pl_file *f, pl_output *out, const char *sub, const char *name, pl_error *err)
{
    memset(f, 0, sizeof *f);
    f->out = out;
    f->dir_fd = -1;
    if (strlen(name) > NAME_MAX - 8 || pl_output_path(out, sub, name, f->path, sizeof f->path, err) != PL_OK ||
        !join(f->rel, sizeof f->rel, "", sub, name))
        return pl_fail(err, PL_ERR_IO, "output path too long: %s/%s", out->root, name);
    snprintf(f->name, sizeof f->name, "%s", name);
    pl_status s = pl_output_open(out, err);
    if (s != PL_OK)
        return s;
    f->dir_fd = pl_output_dir(out, sub, 1);
    if (f->dir_fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot create %s: %s", f->path, dir_error(errno));
    /* Signals wait until the hook knows the temporary, so that a handler removing them misses none. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = -1, saved = EINTR;
    if (!out->hooks.creating || out->hooks.creating(out->hooks.user)) {
        fd = create_temp(f->dir_fd, name, f->tmp_name);
        saved = errno;
        if (fd < 0)
            f->tmp_name[0] = '\0';
        if (out->hooks.created)
            out->hooks.created(fd >= 0 ? f->dir_fd : -1, f->tmp_name, out->hooks.user);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        close(f->dir_fd);
        f->dir_fd = -1;
        return pl_fail(err, io_status(saved), "cannot create %s: %s", f->path, strerror(saved));
    }
    /* created 0600: give the file the mode an ordinary creation would under the umask */
    if (fchmod(fd, out->mode) != 0 || !(f->fp = fdopen(fd, "w"))) {
        saved = errno;
        close(fd);
        pl_file_abort(f);
        return pl_fail(err, io_status(saved), "cannot open %s: %s", f->path, strerror(saved));
    }
    return PL_OK;
}

/* Remove the temporary (if any) and tell the hook, then let go of the directory. */
static void release_temp(pl_file *f, int remove)
{
    if (f->tmp_name[0]) {
        if (remove)
            unlinkat(f->dir_fd, f->tmp_name, 0);
        if (f->out->hooks.released)
            f->out->hooks.released(f->dir_fd, f->tmp_name, f->out->hooks.user);
        f->tmp_name[0] = '\0';
    }
    if (f->dir_fd >= 0)
        close(f->dir_fd);
    f->dir_fd = -1;
}

void pl_file_abort(pl_file *f)
{
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    release_temp(f, 1);
}

pl_status pl_output_sync(pl_output *out, pl_error *err)
{
    if (!out->sync_later || out->root_fd < 0)
        return PL_OK;
    if (syncfs(out->root_fd) != 0)
        return pl_fail(err, io_status(errno), "cannot sync %s: %s", out->root, strerror(errno));
    return PL_OK;
}

pl_status pl_file_commit(pl_file *f, pl_error *err)
{
    if (f->infinite) {
        pl_file_abort(f);
        return pl_fail(err, PL_ERR_SOLVER,
                       "%s would hold an infinite number (a result beyond %g): not written", f->path, DBL_MAX);
    }
    /* A write that failed earlier set the stream's error and left its reason in no variable: the
     * flush tries the rest again and fails with it (ENOSPC, EFBIG, EIO). */
    int failed = ferror(f->fp), saved = 0;
    clearerr(f->fp);
    /* the directory's own records (manifest, journal) always: they replace each other, and a record
     * the disk lost would leave the directory with none */
    int record = strcmp(f->rel, "manifest.json") == 0 || strcmp(f->rel, ".penlim.journal") == 0;
    if (fflush(f->fp) != 0 || ((!f->out->sync_later || record) && fsync(fileno(f->fp)) != 0))
        saved = errno;
    else if (failed)
        saved = EIO; /* what failed was dropped: the file is short */
    char hash[PL_HASH_LEN];
    pl_error herr;
    pl_status hashed = saved ? PL_OK : pl_hash_fd(fileno(f->fp), hash, &herr);
    if (hashed != PL_OK)
        saved = hashed == PL_ERR_NOMEM ? ENOMEM : EIO;
    if (fclose(f->fp) != 0 && !saved)
        saved = errno;
    f->fp = NULL;
    if (!saved && renameat(f->dir_fd, f->tmp_name, f->dir_fd, f->name) != 0)
        saved = errno;
    if (saved) {
        pl_file_abort(f);
        return pl_fail(err, io_status(saved), "cannot write %s: %s", f->path, strerror(saved));
    }
    release_temp(f, 0);
    /* the directory's own bookkeeping (manifest, journal) is not among the files it lists */
    if (record)
        return PL_OK;
    return pl_output_add_hashed(f->out, f->rel, hash, err);
}

pl_status pl_file_copy_checked(pl_output *out, const char *rel, int fd, const char *src, const char *hash,
                               const char *mismatch, pl_error *err)
{
    char sub[PATH_MAX] = "";
    const char *slash = strrchr(rel, '/');
    if (slash)
        snprintf(sub, sizeof sub, "%.*s", (int)(slash - rel), rel);
    pl_file f;
    pl_status s = pl_file_open(&f, out, slash ? sub : NULL, slash ? slash + 1 : rel, err);
    pl_hash h;
    pl_hash_begin(&h);
    char *buf = s == PL_OK ? malloc(PL_COPY_BUFFER) : NULL; /* on the heap: see pl_hash_fd */
    if (s == PL_OK && !buf)
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
    ssize_t got;
    while (s == PL_OK && (got = read(fd, buf, PL_COPY_BUFFER)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            s = pl_fail(err, PL_ERR_IO, "cannot read %s: %s", src, strerror(errno));
        else if (fwrite(buf, 1, (size_t)got, f.fp) != (size_t)got)
            s = pl_fail(err, PL_ERR_IO, "cannot write %s: %s", f.path, strerror(errno));
        else
            pl_hash_add(&h, buf, (size_t)got);
    }
    close(fd);
    free(buf);
    char got_hash[PL_HASH_LEN];
    pl_hash_text(&h, got_hash);
    if (s == PL_OK && (!hash || strcmp(hash, got_hash) != 0))
        s = pl_fail(err, PL_ERR_INPUT, "%s %s", src, mismatch);
    if (s == PL_OK)
        return pl_file_commit(&f, err);
    if (f.fp)
        pl_file_abort(&f);
    return s;
}

pl_status pl_write_bytes(pl_output *out, const char *sub, const char *name, const void *bytes, size_t size,
                         pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, sub, name, err);
    if (s != PL_OK)
        return s;
    if (fwrite(bytes, 1, size, f.fp) != size) {
        pl_file_abort(&f);
        return pl_fail(err, PL_ERR_IO, "cannot write %s", f.path);
    }
    return pl_file_commit(&f, err);
}

pl_status pl_write_csv(pl_output *out, const char *sub, const char *name, const char *header, const pl_table *t,
                       pl_error *err)
{
    return pl_write_csv_within(out, sub, name, header, t, NULL, t->ncol, NULL, err);
}

pl_status pl_write_csv_columns(pl_output *out, const char *sub, const char *name, const char *header,
                               const pl_table *t, const size_t *cols, size_t ncols, pl_error *err)
{
    return pl_write_csv_within(out, sub, name, header, t, cols, ncols, NULL, err);
}

/* The budget is read every BUDGET_CHECK_VALUES numbers (a row at least): a few milliseconds of
 * formatting, against a clock read of tens of nanoseconds. */
#define BUDGET_CHECK_VALUES 4096

pl_status pl_write_csv_within(pl_output *out, const char *sub, const char *name, const char *header,
                              const pl_table *t, const size_t *cols, size_t ncols, const pl_budget *budget,
                              pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, sub, name, err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s\n", header);
    /* A row formatted into one line and put whole: pl_put_number's characters, without two fputs per
     * value (a third of writing a many-body run's rows). */
    size_t cap = ncols * PL_NUMBER_LEN + 2;
    char *line = malloc(cap);
    if (!line) {
        pl_file_abort(&f);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing %s", name);
    }
    size_t pending = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const double *row = pl_table_row(t, r);
        size_t used = 0;
        for (size_t c = 0; c < ncols; c++) {
            double x = row[cols ? cols[c] : c];
            if (c)
                line[used++] = ',';
            f.infinite |= isinf(x);
            used += pl_format_double_length(x, line + used, cap - used);
        }
        line[used++] = '\n';
        fwrite(line, 1, used, f.fp);
        if ((pending += ncols) >= BUDGET_CHECK_VALUES) {
            pending = 0;
            if (pl_budget_spent(budget)) {
                free(line);
                pl_file_abort(&f);
                return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " writing %s (%zu of its %zu rows written): "
                               "the file is not written", budget->max_seconds, f.path, r + 1, t->nrows);
            }
        }
    }
    free(line);
    return pl_file_commit(&f, err);
}

void pl_put_number(pl_file *f, const char *sep, double x)
{
    char num[PL_NUMBER_LEN];
    f->infinite |= isinf(x);
    fputs(sep, f->fp);
    fputs(pl_format_double(x, num, sizeof num), f->fp);
}

void pl_put_parameter(pl_file *f, const char *sep, double x)
{
    char num[PL_NUMBER_LEN];
    f->infinite |= isinf(x);
    fputs(sep, f->fp);
    fputs(pl_format_short(x, num, sizeof num), f->fp);
}

/* What pl_json_number puts in place of an infinite number: a string no penlim string holds (its
 * messages escape control characters), which jansson dumps with the escape below; a dump that met
 * the escape looks for the mark in the tree. */
#define INFINITE_MARK "\x01infinite"
#define INFINITE_MARK_DUMPED "\\u0001"

/* The path ("episodes[3].restitution") of the first INFINITE_MARK in j, or 0 if none. */
static int find_infinite(const json_t *j, char *path, size_t len)
{
    size_t used = strlen(path);
    if (json_is_string(j))
        return strcmp(json_string_value(j), INFINITE_MARK) == 0;
    if (json_is_array(j)) {
        for (size_t k = 0; k < json_array_size(j); k++) {
            snprintf(path + used, len - used, "[%zu]", k);
            if (find_infinite(json_array_get(j, k), path, len))
                return 1;
        }
    } else if (json_is_object(j)) {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)j, key, v) {
            snprintf(path + used, len - used, "%s%s", used ? "." : "", key);
            if (find_infinite(v, path, len))
                return 1;
        }
    }
    path[used] = '\0';
    return 0;
}

/* The state of a JSON text as jansson hands it over (json_dump_callback: a number, a string's
 * piece, an escape, white space or punctuation per call). */
typedef struct {
    FILE *fp;
    const pl_budget *budget;
    size_t pending;   /* bytes since the budget was last read */
    int in_string, escaped;
    int infinite, stopped;
} json_sink;

/* jansson prints reals with %.17g (0.001 as 0.001000000000000000021, 1e10 as 10000000000.0): each
 * real (a number with '.', 'e' or 'E') is written as CSV files and directory names write it
 * (pl_format_short: 0.001, 1e10, 5e-5, 1500), with ".0" where that text would read as an integer
 * (1500.0), so that it stays a real for jansson's json_real_value. */
static int json_put(const char *text, size_t size, void *data)
{
    json_sink *j = data;
    if (size == 0)
        return 0;
    if (!j->in_string && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9')) && size < 64) {
        char tok[64], num[PL_NUMBER_LEN];
        memcpy(tok, text, size);
        tok[size] = '\0';
        if (strpbrk(tok, ".eE")) {
            pl_format_short(strtod(tok, NULL), num, sizeof num);
            fputs(num, j->fp);
            if (!strpbrk(num, ".e"))
                fputs(".0", j->fp);
        } else
            fputs(tok, j->fp);
    } else {
        /* perhaps the mark (a string of the input could hold the character too): the tree says */
        if (j->in_string && size == strlen(INFINITE_MARK_DUMPED) && memcmp(text, INFINITE_MARK_DUMPED, size) == 0)
            j->infinite = 1;
        for (size_t k = 0; k < size; k++) {
            if (j->escaped)
                j->escaped = 0;
            else if (j->in_string && text[k] == '\\')
                j->escaped = 1;
            else if (text[k] == '"')
                j->in_string = !j->in_string;
        }
        fwrite(text, 1, size, j->fp);
    }
    if ((j->pending += size) >= 65536) {
        j->pending = 0;
        if (pl_budget_spent(j->budget)) {
            j->stopped = 1;
            return -1;
        }
    }
    return ferror(j->fp) ? -1 : 0;
}

pl_status pl_write_json(pl_output *out, const char *sub, const char *name, json_t *root, pl_error *err)
{
    return pl_write_json_within(out, sub, name, root, NULL, err);
}

pl_status pl_write_json_within(pl_output *out, const char *sub, const char *name, json_t *root,
                               const pl_budget *budget, pl_error *err)
{
    if (!root)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory building %s", name);
    pl_file f;
    pl_status s = pl_file_open(&f, out, sub, name, err);
    if (s != PL_OK) {
        json_decref(root);
        return s;
    }
    json_sink sink = {.fp = f.fp, .budget = budget};
    int rc = json_dump_callback(root, json_put, &sink, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    char where[512] = "";
    sink.infinite = sink.infinite && find_infinite(root, where, sizeof where);
    if (sink.infinite)
        pl_fail(err, PL_ERR_SOLVER, "%s would hold an infinite number at %s (a result beyond %g): not written",
                f.path, where, DBL_MAX);
    else if (sink.stopped)
        pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " writing %s: the file is not written", budget->max_seconds,
                f.path);
    else if (rc != 0)
        pl_fail(err, ferror(f.fp) ? io_status(errno) : PL_ERR_NOMEM, "cannot write %s: %s", f.path,
                ferror(f.fp) ? strerror(errno) : "out of memory");
    json_decref(root);
    if (sink.infinite || sink.stopped || rc != 0) {
        pl_file_abort(&f);
        return err ? err->status : PL_ERR_IO;
    }
    fputc('\n', f.fp);
    return pl_file_commit(&f, err); /* which reports a failed write with its reason */
}

json_t *pl_json_set(json_t *o, const char *key, json_t *value)
{
    if (!o || !value) {
        json_decref(value);
        json_decref(o);
        return NULL;
    }
    if (json_object_set_new(o, key, value) != 0) { /* value released by jansson */
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *pl_json_append(json_t *a, json_t *value)
{
    if (!a || !value) {
        json_decref(value);
        json_decref(a);
        return NULL;
    }
    if (json_array_append_new(a, value) != 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

json_t *pl_json_number(double x)
{
    return isfinite(x) ? json_real(x) : isnan(x) ? json_null() : json_string(INFINITE_MARK);
}

void pl_put_text(FILE *fp, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, fp);
        return;
    }
    fputc('"', fp);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', fp);
        fputc(*text, fp);
    }
    fputc('"', fp);
}

json_t *pl_json_array(const double *x, size_t n)
{
    if (!x && n > 0) /* an array that could not be allocated: a run out of memory is still written */
        return json_null();
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        PL_JSON_APPEND(a, pl_json_number(x[i]));
    return a;
}
