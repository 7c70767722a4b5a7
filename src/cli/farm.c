/* The task farm of farm.h: a one-process loop, or rank 0 coordinating and storing (and computing on
 * a worker thread) while the other ranks compute, over MPI. */
#include "cli/farm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef PL_HAVE_MPI
#include <mpi.h>
#endif

struct pl_farm {
    int rank, size;
    int mpi; /* MPI_Init_thread was called (and MPI_Finalize is due) */
    char host[256];
    int stopped_by_writer; /* the last pl_farm_run ended on rank 0's word (its failure, told to all) */
};

/* ---- names and results as bytes --------------------------------------------------------------- */

int pl_farm_name_ok(const char *name)
{
    if (!name || !*name || name[0] == '/' || strlen(name) >= PATH_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return 0;
    const char *c = name;
    for (;;) {
        const char *slash = strchr(c, '/');
        size_t len = slash ? (size_t)(slash - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (!slash)
            return 1;
        c = slash + 1;
    }
}

/* A task's result as one buffer, what a rank sends to the writer (and what the writer unpacks even
 * for its own tasks, so that every result passes the same checks).  Unsigned 64-bit fields in the
 * machine's order (the ranks of one job share an architecture):
 *   k, status, fatal, message length, message, nfiles, then per file: name length, name, size, bytes.
 * fatal: the rank itself failed (no scratch directory, out of memory), which ends the farm; status
 * and message are then that failure's. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} pl_buffer;

static int buffer_put(pl_buffer *b, const void *bytes, size_t n)
{
    if (n > SIZE_MAX - b->len)
        return -1;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    return 0;
}

static int buffer_put_u64(pl_buffer *b, uint64_t v)
{
    return buffer_put(b, &v, sizeof v);
}

typedef struct {
    const unsigned char *data;
    size_t len, at;
} pl_reader;

static int read_u64(pl_reader *r, uint64_t *v)
{
    if (r->len - r->at < sizeof *v)
        return -1;
    memcpy(v, r->data + r->at, sizeof *v);
    r->at += sizeof *v;
    return 0;
}

static int read_bytes(pl_reader *r, uint64_t n, const unsigned char **bytes)
{
    if (n > r->len - r->at)
        return -1;
    *bytes = r->data + r->at;
    r->at += (size_t)n;
    return 0;
}

/* A result unpacked: files point into the packed buffer (bytes) and into names (their names). */
typedef struct {
    size_t k;
    pl_status status;
    int fatal;
    pl_error err;
    pl_farm_file *files;
    size_t nfiles;
    char *names;
} pl_result;

static void result_free(pl_result *r)
{
    free(r->files);
    free(r->names);
    memset(r, 0, sizeof *r);
}

/* Unpack a result from rank `from` (for messages), checking every length and name: a malformed
 * result is PL_ERR_IO (the farm ends), never a file written outside its task's directory. */
static pl_status result_unpack(const unsigned char *data, size_t len, size_t ntasks, int from, pl_result *res,
                               pl_error *err)
{
    memset(res, 0, sizeof *res);
    pl_reader r = {data, len, 0};
    uint64_t k, status, fatal, msglen, nfiles;
    const unsigned char *msg;
    if (read_u64(&r, &k) || read_u64(&r, &status) || read_u64(&r, &fatal) || read_u64(&r, &msglen) ||
        msglen >= sizeof res->err.message || read_bytes(&r, msglen, &msg) || read_u64(&r, &nfiles))
        return pl_fail(err, PL_ERR_IO, "farm: a malformed result from rank %d (%zu bytes)", from, len);
    if ((k >= ntasks && !fatal) || status > PL_ERR_NOMEM || fatal > 1 || nfiles > len / (2 * sizeof(uint64_t)))
        return pl_fail(err, PL_ERR_IO, "farm: a malformed result from rank %d (task %llu of %zu, status %llu)", from,
                       (unsigned long long)k, ntasks, (unsigned long long)status);
    res->k = (size_t)k;
    res->status = (pl_status)status;
    res->fatal = (int)fatal;
    res->err.status = res->status;
    memcpy(res->err.message, msg, (size_t)msglen);
    res->err.message[msglen] = '\0';
    res->nfiles = (size_t)nfiles;
    /* Names get a NUL each: their total is bounded by len + nfiles. */
    res->files = calloc(nfiles ? (size_t)nfiles : 1, sizeof *res->files);
    res->names = malloc(len + (size_t)nfiles + 1);
    if (!res->files || !res->names) {
        result_free(res);
        return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory unpacking a result of %zu bytes", len);
    }
    size_t used = 0;
    for (size_t i = 0; i < res->nfiles; i++) {
        uint64_t namelen, size;
        const unsigned char *name, *bytes;
        if (read_u64(&r, &namelen) || read_bytes(&r, namelen, &name) || read_u64(&r, &size) ||
            read_bytes(&r, size, &bytes)) {
            result_free(res);
            return pl_fail(err, PL_ERR_IO, "farm: a malformed result from rank %d (task %llu, file %zu)", from,
                           (unsigned long long)k, i);
        }
        char *n = res->names + used;
        memcpy(n, name, (size_t)namelen);
        n[namelen] = '\0';
        used += (size_t)namelen + 1;
        if (strlen(n) != namelen || !pl_farm_name_ok(n)) {
            char shown[128];
            pl_escape(n, shown, sizeof shown);
            result_free(res);
            return pl_fail(err, PL_ERR_IO, "farm: task %llu's result from rank %d names file '%s': not a relative "
                           "name inside its directory", (unsigned long long)k, from, shown);
        }
        res->files[i] = (pl_farm_file){n, bytes, (size_t)size};
    }
    if (r.at != len) {
        result_free(res);
        return pl_fail(err, PL_ERR_IO, "farm: a malformed result from rank %d (%zu bytes left over)", from, len - r.at);
    }
    return PL_OK;
}

pl_status pl_farm_check_packed(const void *data, size_t len, size_t ntasks, pl_error *err)
{
    pl_result r;
    pl_status st = result_unpack(data, len, ntasks, 1, &r, err);
    if (st == PL_OK)
        result_free(&r);
    return st;
}

/* ---- one task: its private directory, its files read back ------------------------------------ */

typedef struct {
    char *name;
    unsigned char *bytes;
    size_t size;
} pl_task_file;

typedef struct {
    pl_task_file *items;
    size_t n, cap;
} pl_task_files;

static void task_files_free(pl_task_files *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->items[i].name);
        free(f->items[i].bytes);
    }
    free(f->items);
    memset(f, 0, sizeof *f);
}

static pl_status read_whole(int fd, const char *name, unsigned char **bytes, size_t *size, pl_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return pl_fail(err, PL_ERR_IO, "farm: cannot read the task's file %s: %s", name, strerror(errno));
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
    unsigned char *b = malloc(cap);
    if (!b)
        return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory reading the task's file %s", name);
    for (;;) {
        if (len == cap) {
            unsigned char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
            if (!nb) {
                free(b);
                return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory reading the task's file %s", name);
            }
            b = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, b + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(b);
            return pl_fail(err, PL_ERR_IO, "farm: cannot read the task's file %s: %s", name, strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    *bytes = b;
    *size = len;
    return PL_OK;
}

/* Read every regular file under dir_fd (prefix: its path relative to the task's directory) into
 * files, removing each, and the directories, as it goes.  A link or a special file left by the task
 * fails the task (task_err), never followed: *fatal stays 0.  A failure of this process (memory,
 * reading) sets *fatal. */
static pl_status collect(int dir_fd, const char *prefix, pl_task_files *files, int *fatal, pl_error *err)
{
    int fd = dup(dir_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        *fatal = 1;
        return pl_fail(err, PL_ERR_IO, "farm: cannot list the task's directory: %s", strerror(errno));
    }
    rewinddir(d); /* the duplicate shares dir_fd's offset, which an earlier listing moved */
    pl_status st = PL_OK;
    struct dirent *e;
    errno = 0;
    while (st == PL_OK && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char rel[PATH_MAX];
        if ((size_t)snprintf(rel, sizeof rel, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name) >= sizeof rel) {
            st = pl_fail(err, PL_ERR_IO, "farm: the task left a path longer than %d bytes", PATH_MAX);
            break;
        }
        struct stat sb;
        if (fstatat(dir_fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            *fatal = 1;
            st = pl_fail(err, PL_ERR_IO, "farm: cannot read the task's file %s: %s", rel, strerror(errno));
        } else if (S_ISDIR(sb.st_mode)) {
            int sub = openat(dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                *fatal = 1;
                st = pl_fail(err, PL_ERR_IO, "farm: cannot open the task's directory %s: %s", rel, strerror(errno));
            } else {
                st = collect(sub, rel, files, fatal, err);
                close(sub);
                if (st == PL_OK && unlinkat(dir_fd, e->d_name, AT_REMOVEDIR) != 0) {
                    *fatal = 1;
                    st = pl_fail(err, PL_ERR_IO, "farm: cannot remove the task's directory %s: %s", rel,
                                 strerror(errno));
                }
            }
        } else if (S_ISREG(sb.st_mode)) {
            int f = openat(dir_fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
            if (f < 0) {
                *fatal = 1;
                st = pl_fail(err, PL_ERR_IO, "farm: cannot open the task's file %s: %s", rel, strerror(errno));
                break;
            }
            pl_task_file tf = {NULL, NULL, 0};
            st = read_whole(f, rel, &tf.bytes, &tf.size, err);
            close(f);
            if (st != PL_OK) {
                *fatal = 1;
                break;
            }
            tf.name = strdup(rel);
            if (files->n == files->cap) {
                size_t cap = files->cap ? files->cap * 2 : 8;
                pl_task_file *items = realloc(files->items, cap * sizeof *items);
                if (items) {
                    files->items = items;
                    files->cap = cap;
                }
            }
            if (!tf.name || files->n == files->cap) {
                free(tf.name);
                free(tf.bytes);
                *fatal = 1;
                st = pl_fail(err, PL_ERR_NOMEM, "farm: out of memory reading the task's files");
                break;
            }
            files->items[files->n++] = tf;
            if (unlinkat(dir_fd, e->d_name, 0) != 0) {
                *fatal = 1;
                st = pl_fail(err, PL_ERR_IO, "farm: cannot remove the task's file %s: %s", rel, strerror(errno));
            }
        } else {
            /* The task's doing: it fails; the entry is removed (a link is removed, not followed). */
            st = pl_fail(err, PL_ERR_IO, "farm: the task left %s, which is not a regular file or a directory", rel);
            if (unlinkat(dir_fd, e->d_name, 0) != 0)
                *fatal = 1;
        }
        errno = 0;
    }
    if (st == PL_OK && errno != 0) {
        *fatal = 1;
        st = pl_fail(err, PL_ERR_IO, "farm: cannot list the task's directory: %s", strerror(errno));
    }
    closedir(d);
    return st;
}

/* Remove everything under dir_fd (what collect left after a failure). */
static void remove_tree(int dir_fd)
{
    int fd = dup(dir_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat sb;
        if (fstatat(dir_fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode)) {
            int sub = openat(dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                remove_tree(sub);
                close(sub);
            }
            unlinkat(dir_fd, e->d_name, AT_REMOVEDIR);
        } else {
            unlinkat(dir_fd, e->d_name, 0);
        }
    }
    closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const pl_task_file *)a)->name, ((const pl_task_file *)b)->name);
}

/* What every rank needs to execute tasks: the operations and its private scratch directory. */
typedef struct {
    const pl_farm_ops *ops;
    int rank;
    int scratch_fd;        /* the private directory, or -1 */
    char scratch[PATH_MAX];
} pl_worker;

static pl_status worker_open(pl_worker *w, const pl_farm_ops *ops, int rank, pl_error *err)
{
    w->ops = ops;
    w->rank = rank;
    w->scratch_fd = -1;
    /* A memory file system where there is one: a task's directory work (make, list, read, remove)
     * cost 2.3 ms on this machine's ext4 /tmp against 0.04 ms on /dev/shm (bench_farm). */
    const char *base = ops->scratch;
    if (!base || !*base)
        base = getenv("TMPDIR");
    if ((!base || !*base) && access("/dev/shm", W_OK | X_OK) == 0)
        base = "/dev/shm";
    if (!base || !*base)
        base = "/tmp";
    if ((size_t)snprintf(w->scratch, sizeof w->scratch, "%s/penlim-farm-XXXXXX", base) >= sizeof w->scratch)
        return pl_fail(err, PL_ERR_INPUT, "farm: the scratch directory %s is too long a path", base);
    if (!mkdtemp(w->scratch))
        return pl_fail(err, PL_ERR_IO, "farm: rank %d cannot make a private directory under %s: %s", rank, base,
                       strerror(errno));
    w->scratch_fd = open(w->scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (w->scratch_fd < 0) {
        int e = errno;
        rmdir(w->scratch);
        return pl_fail(err, PL_ERR_IO, "farm: cannot open %s: %s", w->scratch, strerror(e));
    }
    return PL_OK;
}

static void worker_close(pl_worker *w)
{
    if (w->scratch_fd >= 0) {
        remove_tree(w->scratch_fd);
        close(w->scratch_fd);
        rmdir(w->scratch);
        w->scratch_fd = -1;
    }
}

/* Execute task k into a fresh directory "task" of the scratch directory and pack its result into b
 * (emptied first).  Returns PL_OK once packed (the task's own failure is in the result); otherwise
 * this process failed and b holds nothing useful. */
static pl_status run_task(pl_worker *w, size_t k, pl_buffer *b, pl_error *err)
{
    b->len = 0;
    pl_error task_err;
    pl_error_clear(&task_err);
    pl_task_files files = {NULL, 0, 0};
    int fatal = 0;
    pl_status task_status;
    if (mkdirat(w->scratch_fd, "task", 0700) != 0)
        return pl_fail(err, PL_ERR_IO, "farm: rank %d cannot make a task directory in %s: %s", w->rank, w->scratch,
                       strerror(errno));
    int dir = openat(w->scratch_fd, "task", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) {
        int e = errno;
        unlinkat(w->scratch_fd, "task", AT_REMOVEDIR);
        return pl_fail(err, PL_ERR_IO, "farm: rank %d cannot open its task directory in %s: %s", w->rank, w->scratch,
                       strerror(e));
    }
    task_status = w->ops->execute(k, dir, &task_err, w->ops->user);
    if (task_status != PL_OK && task_err.message[0] == '\0')
        pl_fail(&task_err, task_status, "task %zu failed without a message", k);
    pl_error collect_err;
    pl_error_clear(&collect_err);
    pl_status cst = collect(dir, "", &files, &fatal, &collect_err);
    if (cst != PL_OK)
        remove_tree(dir);
    close(dir);
    if (unlinkat(w->scratch_fd, "task", AT_REMOVEDIR) != 0 && !fatal && cst == PL_OK) {
        fatal = 1;
        cst = pl_fail(&collect_err, PL_ERR_IO, "farm: cannot remove the task directory in %s: %s", w->scratch,
                      strerror(errno));
    }
    if (fatal) {
        task_files_free(&files);
        return pl_fail(err, cst, "rank %d: %s", w->rank, collect_err.message);
    }
    if (cst != PL_OK && task_status == PL_OK) { /* the task left a link or special file: it failed */
        task_status = cst;
        task_err = collect_err;
    }
    if (files.n > 1)
        qsort(files.items, files.n, sizeof *files.items, by_name);
    size_t msglen = task_status == PL_OK ? 0 : strlen(task_err.message);
    int bad = buffer_put_u64(b, k) || buffer_put_u64(b, (uint64_t)task_status) || buffer_put_u64(b, 0) ||
              buffer_put_u64(b, msglen) || buffer_put(b, task_err.message, msglen) || buffer_put_u64(b, files.n);
    for (size_t i = 0; !bad && i < files.n; i++) {
        size_t nl = strlen(files.items[i].name);
        bad = buffer_put_u64(b, nl) || buffer_put(b, files.items[i].name, nl) ||
              buffer_put_u64(b, files.items[i].size) || buffer_put(b, files.items[i].bytes, files.items[i].size);
    }
    task_files_free(&files);
    if (bad)
        return pl_fail(err, PL_ERR_NOMEM, "farm: rank %d ran out of memory packing task %zu's result", w->rank, k);
    return PL_OK;
}

/* The order of dispatch: the tasks not skipped, costliest first, ties in task order. */
typedef struct {
    double cost;
    size_t k;
} pl_order;

static int by_cost(const void *a, const void *b)
{
    const pl_order *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

static pl_status make_order(const pl_farm_ops *ops, size_t **order, size_t *n, pl_error *err)
{
    *n = 0;
    pl_order *o = malloc((ops->ntasks ? ops->ntasks : 1) * sizeof *o);
    *order = malloc((ops->ntasks ? ops->ntasks : 1) * sizeof **order);
    if (!o || !*order) {
        free(o);
        free(*order);
        *order = NULL;
        return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory ordering %zu tasks", ops->ntasks);
    }
    *n = 0;
    for (size_t k = 0; k < ops->ntasks; k++) {
        double c = ops->cost ? ops->cost[k] : 1.0;
        if (!(c >= 0)) /* NaN or negative: last (a NaN would make the order inconsistent) */
            c = 0;
        if (!ops->skip || !ops->skip[k])
            o[(*n)++] = (pl_order){c, k};
    }
    qsort(o, *n, sizeof *o, by_cost);
    for (size_t i = 0; i < *n; i++)
        (*order)[i] = o[i].k;
    free(o);
    return PL_OK;
}

/* The writer's handling of one packed result (its own or a rank's): unpack, store, progress. */
static pl_status store_result(const pl_farm_ops *ops, const unsigned char *data, size_t len, int from, size_t *done,
                              size_t total, pl_error *err)
{
    pl_result r;
    pl_status st = result_unpack(data, len, ops->ntasks, from, &r, err);
    if (st != PL_OK)
        return st;
    if (r.fatal) {
        st = pl_fail(err, r.status, "%s", r.err.message);
    } else {
        st = ops->store(r.k, r.status, &r.err, r.files, r.nfiles, err, ops->user);
        if (st == PL_OK)
            ++*done;
        if (st == PL_OK && ops->progress)
            ops->progress(*done, total, ops->user);
    }
    result_free(&r);
    return st;
}

/* ---- one process ------------------------------------------------------------------------------ */

static pl_status run_alone(const pl_farm_ops *ops, pl_error *err)
{
    size_t *order = NULL, n = 0, done = 0;
    pl_status st = make_order(ops, &order, &n, err);
    if (st != PL_OK)
        return st;
    pl_worker w;
    st = worker_open(&w, ops, 0, err);
    pl_buffer b = {NULL, 0, 0};
    for (size_t i = 0; st == PL_OK && i < n; i++) {
        st = run_task(&w, order[i], &b, err);
        if (st == PL_OK)
            st = store_result(ops, b.data, b.len, 0, &done, n, err);
    }
    free(b.data);
    worker_close(&w);
    free(order);
    return st;
}

/* ---- MPI -------------------------------------------------------------------------------------- */

#ifdef PL_HAVE_MPI

enum { TAG_READY = 1, TAG_RESULT = 2, TAG_DATA = 3, TAG_TASK = 4 };
/* A task message's k for "no more tasks": its second word then carries the farm's status. */
#define STOP_TASK UINT64_MAX
/* The largest piece of a result sent in one message (MPI counts are int). */
#define CHUNK ((size_t)1 << 28)

static pl_status mpi_fail(pl_error *err, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    return pl_fail(err, PL_ERR_IO, "farm: %s failed: %s", what, text);
}

/* Polling: sleep from POLL_MIN_NS, doubling to POLL_MAX_NS, between tests.  Waiting this way
 * instead of in a blocking call leaves the core to the computing thread (Open MPI's blocking calls
 * spin); the longest sleep bounds the latency a result or a task waits to be seen (bench_farm:
 * about one such sleep per task), a test costing about 1 us of CPU. */
#define POLL_MIN_NS 10000L
#define POLL_MAX_NS 200000L

static void backoff(long *ns)
{
    struct timespec t = {0, *ns};
    nanosleep(&t, NULL);
    if (*ns < POLL_MAX_NS)
        *ns = *ns * 2 < POLL_MAX_NS ? *ns * 2 : POLL_MAX_NS;
}

static int wait_polling(MPI_Request *req)
{
    long ns = POLL_MIN_NS;
    for (;;) {
        int flag = 0;
        int rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        backoff(&ns);
    }
}

static int send_polling(const void *buf, int count, int dest, int tag)
{
    MPI_Request req;
    int rc = MPI_Isend(buf, count, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req);
    return rc != MPI_SUCCESS ? rc : wait_polling(&req);
}

static int recv_polling(void *buf, int count, int source, int tag)
{
    MPI_Request req;
    int rc = MPI_Irecv(buf, count, MPI_BYTE, source, tag, MPI_COMM_WORLD, &req);
    return rc != MPI_SUCCESS ? rc : wait_polling(&req);
}

/* A packed result: its length (TAG_RESULT), then its bytes in pieces (TAG_DATA). */
static pl_status send_result(const pl_buffer *b, pl_error *err)
{
    uint64_t len = b->len;
    int rc = send_polling(&len, (int)sizeof len, 0, TAG_RESULT);
    for (size_t at = 0; rc == MPI_SUCCESS && at < b->len; at += CHUNK) {
        size_t n = b->len - at < CHUNK ? b->len - at : CHUNK;
        rc = send_polling(b->data + at, (int)n, 0, TAG_DATA);
    }
    return rc == MPI_SUCCESS ? PL_OK : mpi_fail(err, rc, "sending a result to rank 0");
}

static pl_status recv_result_data(int from, uint64_t len, pl_buffer *b, pl_error *err)
{
    b->len = 0;
    if (len > SIZE_MAX || buffer_put(b, NULL, 0) != 0)
        return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory receiving a result");
    if (len > b->cap) {
        unsigned char *d = realloc(b->data, (size_t)len);
        if (!d)
            return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory receiving a result of %llu bytes from rank %d",
                           (unsigned long long)len, from);
        b->data = d;
        b->cap = (size_t)len;
    }
    for (size_t at = 0; at < len; at += CHUNK) {
        size_t n = (size_t)len - at < CHUNK ? (size_t)len - at : CHUNK;
        int rc = recv_polling(b->data + at, (int)n, from, TAG_DATA);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "receiving a result");
    }
    b->len = (size_t)len;
    return PL_OK;
}

/* A fatal failure of a rank as a result: what it sends to the writer instead of a task's result. */
static void pack_fatal(pl_buffer *b, size_t k, const pl_error *e)
{
    b->len = 0;
    size_t msglen = strlen(e->message);
    if (buffer_put_u64(b, k) || buffer_put_u64(b, (uint64_t)(e->status == PL_OK ? PL_ERR_IO : e->status)) ||
        buffer_put_u64(b, 1) || buffer_put_u64(b, msglen) || buffer_put(b, e->message, msglen) ||
        buffer_put_u64(b, 0)) {
        /* Out of memory even for this: an empty buffer, which the writer finds malformed (still fatal). */
        b->len = 0;
    }
}

/* A process's worker threads: slot i is thread i's (a task given, a result handed back); only the
 * main thread gives and takes.  Each thread has its own private directory. */
typedef struct {
    int has_task, has_result;
    size_t task;
    pl_buffer result;
} pl_slot;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* to the threads: a task, or quit */
    pthread_cond_t done; /* to the main thread: a result (CLOCK_MONOTONIC, for timed waits) */
    int quit;
    size_t nslots, started, busy;
    pl_slot *slots;
    pl_worker *workers;
    pthread_t *threads;
} pl_pool;

typedef struct {
    pl_pool *pool;
    size_t i;
} pl_pool_arg;

static void *pool_main(void *arg)
{
    pl_pool *p = ((pl_pool_arg *)arg)->pool;
    size_t i = ((pl_pool_arg *)arg)->i;
    free(arg);
    pl_buffer b = {NULL, 0, 0};
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->slots[i].has_task && !p->quit)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->quit)
            break;
        size_t k = p->slots[i].task;
        pthread_mutex_unlock(&p->lock);
        pl_error terr;
        pl_error_clear(&terr);
        if (run_task(&p->workers[i], k, &b, &terr) != PL_OK)
            pack_fatal(&b, k, &terr);
        pthread_mutex_lock(&p->lock);
        /* The main thread takes the buffer and leaves its own (emptied) in its place. */
        pl_buffer t = p->slots[i].result;
        p->slots[i].result = b;
        b = t;
        p->slots[i].has_task = 0;
        p->slots[i].has_result = 1;
        pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    free(b.data);
    return NULL;
}

/* Start n threads (n >= 1).  On failure the pool is stopped (pool_stop is still safe). */
static pl_status pool_start(pl_pool *p, const pl_farm_ops *ops, int rank, size_t n, pl_error *err)
{
    memset(p, 0, sizeof *p);
    pthread_condattr_t ca;
    int pst = pthread_condattr_init(&ca);
    if (pst != 0)
        return pl_fail(err, PL_ERR_NOMEM, "farm: cannot make the worker threads' lock: %s", strerror(pst));
    pst = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int have_done = pst == 0 && (pst = pthread_cond_init(&p->done, &ca)) == 0;
    pthread_condattr_destroy(&ca);
    int have_work = have_done && (pst = pthread_cond_init(&p->work, NULL)) == 0;
    int have_lock = have_work && (pst = pthread_mutex_init(&p->lock, NULL)) == 0;
    if (!have_lock) {
        if (have_work)
            pthread_cond_destroy(&p->work);
        if (have_done)
            pthread_cond_destroy(&p->done);
        return pl_fail(err, PL_ERR_NOMEM, "farm: cannot make the worker threads' lock: %s", strerror(pst));
    }
    p->nslots = n;
    p->slots = calloc(n, sizeof *p->slots);
    p->workers = calloc(n, sizeof *p->workers);
    p->threads = calloc(n, sizeof *p->threads);
    if (!p->slots || !p->workers || !p->threads)
        return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory starting %zu worker threads", n);
    for (size_t i = 0; i < n; i++)
        p->workers[i].scratch_fd = -1;
    for (size_t i = 0; i < n; i++) {
        pl_status st = worker_open(&p->workers[i], ops, rank, err);
        if (st != PL_OK)
            return st;
        pl_pool_arg *a = malloc(sizeof *a);
        if (!a)
            return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory starting a worker thread");
        *a = (pl_pool_arg){p, i};
        pst = pthread_create(&p->threads[i], NULL, pool_main, a);
        if (pst != 0) {
            free(a);
            return pl_fail(err, PL_ERR_NOMEM, "farm: cannot start a worker thread: %s", strerror(pst));
        }
        p->started++;
    }
    return PL_OK;
}

/* Stop the threads (each finishes the task it has, whose result is dropped) and free the pool. */
static void pool_stop(pl_pool *p)
{
    if (!p->slots && !p->workers && !p->threads && !p->nslots)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (size_t i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    for (size_t i = 0; p->workers && i < p->nslots; i++)
        worker_close(&p->workers[i]);
    for (size_t i = 0; p->slots && i < p->nslots; i++)
        free(p->slots[i].result.data);
    free(p->slots);
    free(p->workers);
    free(p->threads);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    memset(p, 0, sizeof *p);
}

/* Give task k to an idle thread; 0 if none is idle. */
static int pool_give(pl_pool *p, size_t k)
{
    int given = 0;
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->started && !given; i++) {
        pl_slot *sl = &p->slots[i];
        if (!sl->has_task && !sl->has_result) {
            sl->task = k;
            sl->has_task = 1;
            p->busy++;
            given = 1;
        }
    }
    if (given)
        pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    return given;
}

/* Take a result if a thread has one: its packed bytes swapped into *b (whose old bytes the thread
 * gets to reuse).  1 if taken. */
static int pool_take(pl_pool *p, pl_buffer *b)
{
    int taken = 0;
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->started && !taken; i++) {
        pl_slot *sl = &p->slots[i];
        if (sl->has_result) {
            pl_buffer t = sl->result;
            sl->result = *b;
            sl->result.len = 0;
            *b = t;
            sl->has_result = 0;
            p->busy--;
            taken = 1;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return taken;
}

static int pool_idle(pl_pool *p)
{
    pthread_mutex_lock(&p->lock);
    int idle = p->started > p->busy;
    pthread_mutex_unlock(&p->lock);
    return idle;
}

/* Wait until a thread has a result, or *ns nanoseconds (then doubled up to POLL_MAX_NS: the other
 * ranks' messages are polled for meanwhile). */
static void pool_wait(pl_pool *p, long *ns)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += *ns;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    if (*ns < POLL_MAX_NS)
        *ns = *ns * 2 < POLL_MAX_NS ? *ns * 2 : POLL_MAX_NS;
    pthread_mutex_lock(&p->lock);
    int any = 0;
    for (size_t i = 0; i < p->started; i++)
        any |= p->slots[i].has_result;
    if (!any)
        pthread_cond_timedwait(&p->done, &p->lock, &until);
    pthread_mutex_unlock(&p->lock);
}

static size_t ops_threads(const pl_farm_ops *ops)
{
    return ops->threads > 1 ? (size_t)ops->threads : 1;
}

/* A rank other than 0: one request per thread; each result sent is the request for the next task;
 * until told to stop once per thread. */
static pl_status run_worker(pl_farm *farm, const pl_farm_ops *ops, pl_error *err)
{
    size_t nthreads = ops_threads(ops), stops = 0;
    pl_pool pool;
    pl_error perr;
    pl_error_clear(&perr);
    pl_status pst = pool_start(&pool, ops, farm->rank, nthreads, &perr);
    pl_buffer b = {NULL, 0, 0};
    pl_status st = PL_OK;
    int rc = MPI_SUCCESS;
    /* The requests: one per thread; where the threads could not start, this rank's failure instead,
     * which ends the farm (and is sent again for any task received meanwhile). */
    if (pst != PL_OK)
        pack_fatal(&b, 0, &perr);
    size_t asked = nthreads; /* requests not yet answered */
    for (size_t i = 0; i < nthreads && st == PL_OK; i++) {
        if (pst != PL_OK) {
            st = send_result(&b, err);
        } else {
            rc = send_polling(NULL, 0, 0, TAG_READY);
            if (rc != MPI_SUCCESS)
                st = mpi_fail(err, rc, "asking rank 0 for a task");
        }
    }
    long idle_ns = POLL_MIN_NS;
    pl_status farm_status = PL_OK;
    while (st == PL_OK && stops < nthreads) {
        int progressed = 0;
        while (st == PL_OK && pst == PL_OK && pool_take(&pool, &b)) {
            progressed = 1;
            st = send_result(&b, err);
            asked++;
        }
        int flag = 0;
        if (st == PL_OK) {
            rc = MPI_Iprobe(0, TAG_TASK, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                st = mpi_fail(err, rc, "MPI_Iprobe");
        }
        if (st == PL_OK && flag) {
            progressed = 1;
            uint64_t task[2];
            rc = MPI_Recv(task, (int)sizeof task, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            asked--;
            if (rc != MPI_SUCCESS) {
                st = mpi_fail(err, rc, "receiving a task");
            } else if (task[0] == STOP_TASK) {
                /* After a failure, the threads still computing report (and are told to stop) too. */
                stops++;
                if (task[1] != PL_OK)
                    farm_status = (pl_status)task[1];
            } else if (task[0] >= ops->ntasks) {
                st = pl_fail(err, PL_ERR_IO, "farm: rank 0 sent task %llu of %zu", (unsigned long long)task[0],
                             ops->ntasks);
            } else if (pst != PL_OK) {
                st = send_result(&b, err); /* still this rank's failure */
                asked++;
            } else if (!pool_give(&pool, (size_t)task[0])) {
                st = pl_fail(err, PL_ERR_IO, "farm: rank 0 sent task %llu to a rank with no idle thread",
                             (unsigned long long)task[0]);
            }
        }
        if (progressed) {
            idle_ns = POLL_MIN_NS;
        } else if (pst == PL_OK && asked == 0) {
            /* Every thread computing and nothing asked: only a thread's result can come (the long
             * timeout is a safeguard, not a poll). */
            long ns = 100000000;
            pool_wait(&pool, &ns);
        } else if (pst == PL_OK) {
            pool_wait(&pool, &idle_ns);
        } else {
            backoff(&idle_ns);
        }
    }
    pool_stop(&pool);
    free(b.data);
    if (st == PL_OK && farm_status != PL_OK) {
        st = pl_fail(err, farm_status, "farm: stopped by rank 0, which failed");
        farm->stopped_by_writer = 1;
    }
    return st;
}

/* Rank 0: hand out tasks (to its own threads and to the ranks that ask), store results as they
 * come.  After a failure it hands out nothing more and drains: every rank is told to stop (with
 * the status) as it next asks, the results in flight are discarded.  An MPI error ends it at once
 * (the program then aborts the job). */
static pl_status run_coordinator(pl_farm *farm, const pl_farm_ops *ops, pl_error *err)
{
    size_t *order = NULL, n = 0, next = 0, done = 0, nthreads = ops_threads(ops);
    pl_status st = make_order(ops, &order, &n, err);
    if (st != PL_OK)
        return st; /* the other ranks wait for tasks: the program aborts (pl_farm_abort) */
    pl_pool pool;
    st = pool_start(&pool, ops, 0, nthreads, err);
    size_t remote = (size_t)(farm->size - 1) * nthreads; /* requesters not yet told to stop */
    long idle_ns = POLL_MIN_NS;
    pl_buffer b = {NULL, 0, 0}, mine = {NULL, 0, 0};
    for (;;) {
        int progressed = 0;
        /* Rank 0's own threads: every idle one gets a task, then their results are stored. */
        while (st == PL_OK && next < n && pool_idle(&pool) && pool_give(&pool, order[next]))
            next++;
        if (pool.started > 0 && pool_take(&pool, &mine)) {
            progressed = 1;
            if (st == PL_OK && next < n && pool_give(&pool, order[next])) /* its thread computes on */
                next++;
            if (st == PL_OK)
                st = store_result(ops, mine.data, mine.len, 0, &done, n, err);
        }
        if (remote == 0 && pool.busy == 0)
            break;
        /* The other ranks: a request (with the result of a task, if any). */
        int flag = 0;
        MPI_Status ms;
        int rc = remote > 0 ? MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ms) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) {
            st = mpi_fail(err, rc, "MPI_Iprobe");
            break;
        }
        if (flag) {
            progressed = 1;
            int from = ms.MPI_SOURCE, got_result = 0;
            if (ms.MPI_TAG == TAG_READY) {
                rc = MPI_Recv(NULL, 0, MPI_BYTE, from, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (ms.MPI_TAG == TAG_RESULT) {
                uint64_t len = 0;
                rc = MPI_Recv(&len, (int)sizeof len, MPI_BYTE, from, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (rc == MPI_SUCCESS) {
                    pl_error rerr;
                    pl_status rst = recv_result_data(from, len, &b, &rerr);
                    if (rst != PL_OK) {
                        if (st == PL_OK) {
                            st = rst;
                            *err = rerr;
                        }
                        break; /* the rest of that result would be read as the next message */
                    }
                    got_result = 1;
                }
            } else {
                st = pl_fail(err, PL_ERR_IO, "farm: an unexpected message (tag %d) from rank %d", ms.MPI_TAG, from);
                break;
            }
            if (rc != MPI_SUCCESS) {
                st = mpi_fail(err, rc, "receiving from a rank");
                break;
            }
            uint64_t task[2] = {STOP_TASK, (uint64_t)st};
            if (st == PL_OK && next < n)
                task[0] = order[next++];
            else
                remote--;
            rc = send_polling(task, (int)sizeof task, from, TAG_TASK);
            if (rc != MPI_SUCCESS) {
                st = mpi_fail(err, rc, "sending a task");
                break;
            }
            /* Stored once the rank has its next task: it computes while the writer writes. */
            if (got_result && st == PL_OK)
                st = store_result(ops, b.data, b.len, from, &done, n, err);
        }
        if (progressed)
            idle_ns = POLL_MIN_NS;
        else if (pool.started > 0)
            pool_wait(&pool, &idle_ns); /* until a thread's result, or a while for the ranks' messages */
        else
            backoff(&idle_ns);
    }
    pool_stop(&pool);
    free(b.data);
    free(mine.data);
    free(order);
    if (st == PL_OK && done != n)
        st = pl_fail(err, PL_ERR_IO, "farm: %zu of %zu tasks were stored", done, n);
    return st;
}

#endif /* PL_HAVE_MPI */

/* ---- the farm --------------------------------------------------------------------------------- */

static int launched_by_mpirun(long *size)
{
    const char *s = getenv("OMPI_COMM_WORLD_SIZE");
    *size = s ? strtol(s, NULL, 10) : 0;
    return s != NULL || getenv("PMIX_RANK") != NULL;
}

pl_status pl_farm_init(int *argc, char ***argv, pl_farm **farm, pl_error *err)
{
    *farm = calloc(1, sizeof **farm);
    if (!*farm)
        return pl_fail(err, PL_ERR_NOMEM, "farm: out of memory");
    pl_farm *f = *farm;
    f->size = 1;
    if (gethostname(f->host, sizeof f->host - 1) != 0)
        snprintf(f->host, sizeof f->host, "?");
    long size = 0;
    int under = launched_by_mpirun(&size);
#ifdef PL_HAVE_MPI
    if (under) {
        int provided = 0;
        int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
        if (rc != MPI_SUCCESS) {
            free(f);
            *farm = NULL;
            return pl_fail(err, PL_ERR_IO, "MPI_Init_thread failed (error %d)", rc);
        }
        f->mpi = 1;
        rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_rank(MPI_COMM_WORLD, &f->rank);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_size(MPI_COMM_WORLD, &f->size);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Comm_rank");
        if (provided < MPI_THREAD_FUNNELED && f->size > 1)
            return pl_fail(err, PL_ERR_IO, "farm: this MPI does not provide MPI_THREAD_FUNNELED, which rank 0's "
                           "worker thread needs");
    }
#else
    (void)argc;
    (void)argv;
    if (under && size > 1)
        return pl_fail(err, PL_ERR_INPUT, "this penlim was built without MPI: run it without mpirun (or use "
                       "--shard), or rebuild it with MPI (libopenmpi-dev)");
#endif
    return PL_OK;
}

int pl_farm_rank(const pl_farm *farm)
{
    return farm->rank;
}

int pl_farm_size(const pl_farm *farm)
{
    return farm->size;
}

int pl_farm_is_writer(const pl_farm *farm)
{
    return farm->rank == 0;
}

int pl_farm_stopped_by_writer(const pl_farm *farm)
{
    return farm->stopped_by_writer;
}

int pl_farm_uses_mpi(const pl_farm *farm)
{
    return farm->mpi;
}

pl_status pl_farm_run(pl_farm *farm, const pl_farm_ops *ops, pl_error *err)
{
    farm->stopped_by_writer = 0;
    if (!ops->execute || !ops->store)
        return pl_fail(err, PL_ERR_INPUT, "farm: execute and store are required");
    if (farm->size == 1)
        return run_alone(ops, err);
#ifdef PL_HAVE_MPI
    return farm->rank == 0 ? run_coordinator(farm, ops, err) : run_worker(farm, ops, err);
#else
    return pl_fail(err, PL_ERR_INPUT, "farm: %d processes without MPI", farm->size);
#endif
}

pl_status pl_farm_verdict(pl_farm *farm, pl_status status, pl_error *err)
{
    if (farm->size == 1)
        return status;
#ifdef PL_HAVE_MPI
    int mine = status == PL_OK ? farm->size : farm->rank, first = farm->size;
    int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Allreduce (the ranks' verdict)");
    if (first == farm->size)
        return PL_OK;
    struct {
        int status;
        char message[sizeof err->message];
    } v;
    memset(&v, 0, sizeof v);
    if (farm->rank == first) {
        v.status = (int)status;
        char text[sizeof v.message + sizeof farm->host + 32];
        if (first == 0)
            snprintf(text, sizeof text, "%s", err->message);
        else
            snprintf(text, sizeof text, "(rank %d, on %s) %s", first, farm->host, err->message);
        size_t len = strlen(text);
        memcpy(v.message, text, len < sizeof v.message ? len : sizeof v.message - 1); /* cut to a message's */
    }
    rc = MPI_Bcast(&v, (int)sizeof v, MPI_BYTE, first, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Bcast (the ranks' verdict)");
    v.message[sizeof v.message - 1] = '\0';
    err->status = (pl_status)v.status;
    memcpy(err->message, v.message, sizeof err->message);
    return err->status;
#else
    (void)err;
    return status;
#endif
}

pl_status pl_farm_same(pl_farm *farm, uint64_t value, const char *what, pl_error *err)
{
    if (farm->size == 1)
        return PL_OK;
#ifdef PL_HAVE_MPI
    /* the largest of the values and of their complements: both this rank's only if all are equal */
    unsigned long long mine[2] = {value, ~value}, most[2];
    int rc = MPI_Allreduce(mine, most, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Allreduce (the ranks' values)");
    if (most[0] == mine[0] && most[1] == mine[1])
        return PL_OK;
    return pl_fail(err, PL_ERR_INPUT, "the %d processes differ in %s (different arguments, settings or model files "
                                      "on their nodes)", farm->size, what);
#else
    (void)value, (void)what;
    return pl_fail(err, PL_ERR_INPUT, "farm: %d processes without MPI", farm->size);
#endif
}

void pl_farm_abort(pl_farm *farm, int code)
{
#ifdef PL_HAVE_MPI
    /* MPI_Abort does not return; if it failed, the caller exits as it would have. */
    if (farm && farm->mpi && farm->size > 1 && MPI_Abort(MPI_COMM_WORLD, code) != MPI_SUCCESS)
        return;
#else
    (void)farm;
    (void)code;
#endif
}

pl_status pl_farm_end(pl_farm *farm, pl_error *err)
{
    pl_status st = PL_OK;
    if (!farm)
        return st;
#ifdef PL_HAVE_MPI
    if (farm->mpi) {
        /* Wait for every rank without spinning (the writer may still be storing or assembling),
         * then finalize. */
        MPI_Request req;
        int rc = farm->size > 1 ? MPI_Ibarrier(MPI_COMM_WORLD, &req) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS && farm->size > 1)
            rc = wait_polling(&req);
        if (rc != MPI_SUCCESS)
            st = mpi_fail(err, rc, "waiting for every rank to end");
        rc = MPI_Finalize();
        if (rc != MPI_SUCCESS && st == PL_OK)
            st = mpi_fail(err, rc, "MPI_Finalize");
    }
#else
    (void)err;
#endif
    free(farm);
    return st;
}
