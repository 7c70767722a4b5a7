#include "io/output.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    out->mode = mode;
    if (hooks)
        out->hooks = *hooks;
    out->lock_fd = -1;
}

void pl_output_free(pl_output *out)
{
    pl_strings_free(&out->written);
    if (out->lock_fd >= 0)
        close(out->lock_fd); /* releases the lock */
    out->lock_fd = -1;
}

pl_status pl_output_add(pl_output *out, const char *rel, pl_error *err)
{
    if (pl_strings_has(&out->written, rel))
        return PL_OK;
    return pl_strings_add(&out->written, rel, err);
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

pl_status pl_output_make_dir(const pl_output *out, const char *sub, pl_error *err)
{
    char path[PATH_MAX];
    pl_status s = pl_output_path(out, sub, NULL, path, sizeof path, err);
    return s == PL_OK ? pl_make_dir(path, err) : s;
}

pl_status pl_file_open(pl_file *f, pl_output *out, const char *sub, const char *name, pl_error *err)
{
    memset(f, 0, sizeof *f);
    f->out = out;
    char tmp_name[NAME_MAX + 1];
    if (snprintf(tmp_name, sizeof tmp_name, ".%s.XXXXXX", name) >= (int)sizeof tmp_name ||
        pl_output_path(out, sub, name, f->path, sizeof f->path, err) != PL_OK ||
        pl_output_path(out, sub, tmp_name, f->tmp_path, sizeof f->tmp_path, err) != PL_OK ||
        !join(f->rel, sizeof f->rel, "", sub, name))
        return pl_fail(err, PL_ERR_IO, "output path too long: %s/%s", out->root, name);
    /* Signals wait until the hook knows the temporary, so that a handler removing them misses none. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = -1, saved = EINTR;
    if (!out->hooks.creating || out->hooks.creating(out->hooks.user)) {
        fd = mkstemp(f->tmp_path);
        saved = errno;
        if (out->hooks.created)
            out->hooks.created(fd >= 0 ? f->tmp_path : NULL, out->hooks.user);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot create %s: %s", f->path, strerror(saved));
    /* mkstemp creates 0600: give the file the mode an ordinary creation would under the umask */
    if (fchmod(fd, out->mode) != 0 || !(f->fp = fdopen(fd, "w"))) {
        saved = errno;
        close(fd);
        pl_file_abort(f);
        return pl_fail(err, PL_ERR_IO, "cannot open %s: %s", f->path, strerror(saved));
    }
    return PL_OK;
}

void pl_file_abort(pl_file *f)
{
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    if (f->tmp_path[0]) {
        unlink(f->tmp_path);
        if (f->out->hooks.released)
            f->out->hooks.released(f->tmp_path, f->out->hooks.user);
        f->tmp_path[0] = '\0';
    }
}

pl_status pl_file_commit(pl_file *f, pl_error *err)
{
    int bad = ferror(f->fp) || fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0;
    int saved = errno;
    if (fclose(f->fp) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    f->fp = NULL;
    if (bad || rename(f->tmp_path, f->path) != 0) {
        if (!bad)
            saved = errno;
        pl_file_abort(f);
        return pl_fail(err, PL_ERR_IO, "cannot write %s: %s", f->path, strerror(saved));
    }
    if (f->out->hooks.released)
        f->out->hooks.released(f->tmp_path, f->out->hooks.user);
    f->tmp_path[0] = '\0';
    /* the directory's own bookkeeping (manifest, journal) is not among the files it lists */
    if (strcmp(f->rel, "manifest.json") == 0 || strcmp(f->rel, ".penlim.journal") == 0)
        return PL_OK;
    return pl_output_add(f->out, f->rel, err);
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
static int put_json_text(FILE *fp, const char *text)
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
    return ferror(fp) ? -1 : 0;
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
    int rc = put_json_text(f.fp, text);
    free(text);
    if (rc != 0) {
        pl_file_abort(&f);
        return pl_fail(err, PL_ERR_IO, "cannot write %s", f.path);
    }
    fputc('\n', f.fp);
    return pl_file_commit(&f, err);
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
