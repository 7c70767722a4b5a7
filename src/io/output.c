#include "io/output.h"

#include <errno.h>
#include <fcntl.h>
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
    return PL_OK;
}

int pl_strings_has(const pl_strings *s, const char *text)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->items[k], text) == 0)
            return 1;
    return 0;
}

void pl_strings_free(pl_strings *s)
{
    for (size_t k = 0; k < s->n; k++)
        free(s->items[k]);
    free(s->items);
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
    for (size_t k = 0; k < out->written.n; k++)
        if (strcmp(out->written.items[k], rel) == 0) { /* written again: its latest content */
            char *h = strdup(hash ? hash : "");
            if (!h)
                return pl_fail(err, PL_ERR_NOMEM, "out of memory");
            free(out->hashes.items[k]);
            out->hashes.items[k] = h;
            return PL_OK;
        }
    pl_status s = pl_strings_add(&out->written, rel, err);
    if (s == PL_OK && (s = pl_strings_add(&out->hashes, hash ? hash : "", err)) != PL_OK)
        free(out->written.items[--out->written.n]);
    return s;
}

pl_status pl_output_add(pl_output *out, const char *rel, pl_error *err)
{
    char hash[PL_HASH_LEN];
    int fd = pl_output_open_file(out, rel, err);
    if (fd < 0)
        return PL_ERR_IO;
    pl_status s = pl_hash_fd(fd, hash, err);
    close(fd);
    return s == PL_OK ? pl_output_add_hashed(out, rel, hash, err) : s;
}

pl_status pl_hash_fd(int fd, char hash[PL_HASH_LEN], pl_error *err)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a, 64 bits: offset basis and prime */
    unsigned char buf[65536];
    off_t at = 0;
    for (;;) {
        ssize_t got = pread(fd, buf, sizeof buf, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return pl_fail(err, PL_ERR_IO, "cannot read back what was written: %s", strerror(errno));
        if (got == 0)
            break;
        for (ssize_t k = 0; k < got; k++)
            h = (h ^ buf[k]) * 1099511628211ULL;
        at += got;
    }
    snprintf(hash, PL_HASH_LEN, "%016llx", (unsigned long long)h);
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
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        pl_fail(err, PL_ERR_IO, "cannot read %s/%s: not a regular file", out->root, rel);
        return -1;
    }
    return fd;
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
        return pl_fail(err, PL_ERR_IO, "cannot create %s: %s", f->path, strerror(saved));
    }
    /* created 0600: give the file the mode an ordinary creation would under the umask */
    if (fchmod(fd, out->mode) != 0 || !(f->fp = fdopen(fd, "w"))) {
        saved = errno;
        close(fd);
        pl_file_abort(f);
        return pl_fail(err, PL_ERR_IO, "cannot open %s: %s", f->path, strerror(saved));
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

pl_status pl_file_commit(pl_file *f, pl_error *err)
{
    /* A write that failed earlier set the stream's error and left its reason in no variable: the
     * flush tries the rest again and fails with it (ENOSPC, EFBIG, EIO). */
    int failed = ferror(f->fp), saved = 0;
    clearerr(f->fp);
    if (fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0)
        saved = errno;
    else if (failed)
        saved = EIO; /* what failed was dropped: the file is short */
    char hash[PL_HASH_LEN];
    pl_error herr;
    if (!saved && pl_hash_fd(fileno(f->fp), hash, &herr) != PL_OK)
        saved = EIO;
    if (fclose(f->fp) != 0 && !saved)
        saved = errno;
    f->fp = NULL;
    if (!saved && renameat(f->dir_fd, f->tmp_name, f->dir_fd, f->name) != 0)
        saved = errno;
    if (saved) {
        pl_file_abort(f);
        return pl_fail(err, PL_ERR_IO, "cannot write %s: %s", f->path, strerror(saved));
    }
    release_temp(f, 0);
    /* the directory's own bookkeeping (manifest, journal) is not among the files it lists */
    if (strcmp(f->rel, "manifest.json") == 0 || strcmp(f->rel, ".penlim.journal") == 0)
        return PL_OK;
    return pl_output_add_hashed(f->out, f->rel, hash, err);
}

pl_status pl_write_csv(pl_output *out, const char *sub, const char *name, const char *header, const pl_table *t,
                       pl_error *err)
{
    return pl_write_csv_columns(out, sub, name, header, t, NULL, t->ncol, err);
}

pl_status pl_write_csv_columns(pl_output *out, const char *sub, const char *name, const char *header,
                               const pl_table *t, const size_t *cols, size_t ncols, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, sub, name, err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s\n", header);
    for (size_t r = 0; r < t->nrows; r++) {
        const double *row = pl_table_row(t, r);
        for (size_t c = 0; c < ncols; c++)
            pl_put_number(f.fp, c ? "," : "", row[cols ? cols[c] : c]);
        fputc('\n', f.fp);
    }
    return pl_file_commit(&f, err);
}

void pl_put_number(FILE *fp, const char *sep, double x)
{
    char num[PL_NUMBER_LEN];
    fputs(sep, fp);
    fputs(pl_format_double(x, num, sizeof num), fp);
}

/* jansson prints reals with %.17g (0.001 as 0.001000000000000000021): write its text with each
 * real (a number with '.', 'e' or 'E') in its shortest exact form instead, still a real. */
static void put_json_text(FILE *fp, const char *text)
{
    const char *p = text;
    while (*p) {
        if (*p == '"') { /* a string, copied as is */
            const char *q = p + 1;
            while (*q && *q != '"')
                q += q[0] == '\\' && q[1] ? 2 : 1;
            if (*q)
                q++;
            fwrite(p, 1, (size_t)(q - p), fp);
            p = q;
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            size_t n = strspn(p, "-+.eE0123456789");
            if (strcspn(p, ".eE") < n) {
                char num[PL_NUMBER_LEN];
                pl_format_double(strtod(p, NULL), num, sizeof num);
                fputs(num, fp);
                if (!strpbrk(num, ".e"))
                    fputs(".0", fp);
            } else
                fwrite(p, 1, n, fp);
            p += n;
        } else
            fputc(*p++, fp);
    }
}

pl_status pl_write_json(pl_output *out, const char *sub, const char *name, json_t *root, pl_error *err)
{
    if (!root)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory building %s", name);
    pl_file f;
    pl_status s = pl_file_open(&f, out, sub, name, err);
    if (s != PL_OK) {
        json_decref(root);
        return s;
    }
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text) {
        pl_file_abort(&f);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing %s", f.path);
    }
    put_json_text(f.fp, text);
    free(text);
    fputc('\n', f.fp);
    return pl_file_commit(&f, err); /* which reports a failed write with its reason */
}

json_t *pl_json_number(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

json_t *pl_json_array(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, pl_json_number(x[i]));
    return a;
}
