#include "io/output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pl_status pl_make_dir(const char *path, pl_error *err)
{
    char buf[4096];
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

pl_status pl_file_open(pl_file *f, const char *dir, const char *name, pl_error *err)
{
    memset(f, 0, sizeof *f);
    if (snprintf(f->path, sizeof f->path, "%s/%s", dir, name) >= (int)sizeof f->path ||
        snprintf(f->tmp_path, sizeof f->tmp_path, "%s/.%s.XXXXXX", dir, name) >= (int)sizeof f->tmp_path)
        return pl_fail(err, PL_ERR_IO, "output path too long: %s/%s", dir, name);
    int fd = mkstemp(f->tmp_path);
    if (fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot create %s: %s", f->path, strerror(errno));
    fchmod(fd, 0644);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        close(fd);
        unlink(f->tmp_path);
        return pl_fail(err, PL_ERR_IO, "cannot open %s: %s", f->path, strerror(errno));
    }
    return PL_OK;
}

void pl_file_abort(pl_file *f)
{
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
        unlink(f->tmp_path);
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
        unlink(f->tmp_path);
        return pl_fail(err, PL_ERR_IO, "cannot write %s: %s", f->path, strerror(saved));
    }
    return PL_OK;
}

pl_status pl_write_csv(const char *dir, const char *name, const char *header, const pl_table *t,
                       pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, dir, name, err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s\n", header);
    for (size_t r = 0; r < t->nrows; r++) {
        const double *row = pl_table_row(t, r);
        for (size_t c = 0; c < t->ncol; c++)
            fprintf(f.fp, c ? ",%.17g" : "%.17g", row[c]);
        fputc('\n', f.fp);
    }
    return pl_file_commit(&f, err);
}

pl_status pl_write_json(const char *dir, const char *name, json_t *root, pl_error *err)
{
    if (!root)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory building %s", name);
    pl_file f;
    pl_status s = pl_file_open(&f, dir, name, err);
    if (s != PL_OK) {
        json_decref(root);
        return s;
    }
    int rc = json_dumpf(root, f.fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (rc != 0) {
        pl_file_abort(&f);
        return pl_fail(err, PL_ERR_IO, "cannot write %s/%s", dir, name);
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
