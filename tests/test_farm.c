/* The task farm of src/cli/farm.c on a synthetic task set: tasks whose files depend on k (one of
 * them in a subdirectory), predicted costs that differ 100x, one task failing.  This program is
 * both the farm (argument "farm": run alone or under mpirun) and the test that drives it:
 *   - one process, and mpirun -np 3 (when mpirun exists and the farm was built with MPI): every
 *     task stored once, its files byte for byte what the task wrote, the failed task stored as
 *     failed with its message and partial file, the same stored set whatever the processes;
 *   - a rank killed mid-run (a computing rank, then the writer): mpirun ends the job, the tasks
 *     stored before are intact, a resumed run (skipping them) completes the same set;
 *   - a bad input seen by one rank only: one line, from the writer, naming that rank; every
 *     process exits 2; nothing written;
 *   - built without MPI, under mpirun -np 3: refused with exit 2;
 *   - names a received file may have (pl_farm_name_ok); a task leaving a symbolic link fails. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli/farm.h"

#define NTASKS 40

/* ---- the synthetic tasks ---------------------------------------------------------------------- */

static double task_cost(size_t k)
{
    return k % 7 == 3 ? 100.0 : 1.0;
}

/* What task k writes to data.csv: its length and content depend on k. */
static size_t task_data(size_t k, char *buf, size_t cap)
{
    size_t len = 0;
    size_t rows = 1 + (k * 37) % 50;
    len += (size_t)snprintf(buf + len, cap - len, "k,i,value\n");
    for (size_t i = 0; i < rows && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%zu,%zu,%.17g\n", k, i, (double)k * (double)i + 0.5);
    return len;
}

static size_t task_extra(size_t k, char *buf, size_t cap)
{
    return (size_t)snprintf(buf, cap, "extra of task %zu\n", k);
}

#define FAIL_TASK 5
#define FAIL_PARTIAL "k,i,value\n5,0,"
#define FAIL_MESSAGE "task 5 diverged at step 3"

typedef struct {
    int rank;
    long kill_rank, kill_after; /* this rank kills itself on its kill_after-th task (kill_rank -1: none) */
    long executed;
    long symlink_task;
    long store_fail; /* store fails for this task */
    pthread_t main_thread;
    const char *out;
    size_t last_done;
    int progress_bad, store_off_thread;
} farm_state;

static int write_at(int dir_fd, const char *name, const char *bytes, size_t n)
{
    int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, bytes, n);
    close(fd);
    return w == (ssize_t)n ? 0 : -1;
}

static pl_status write_task(farm_state *s, size_t k, int dir_fd, char *buf, size_t cap, pl_error *err);

static pl_status execute(size_t k, int dir_fd, pl_error *err, void *user)
{
    farm_state *s = user;
    long executed = __atomic_add_fetch(&s->executed, 1, __ATOMIC_SEQ_CST);
    if (s->kill_rank == s->rank && executed == s->kill_after)
        raise(SIGKILL);
    /* Work in proportion to the predicted cost: 0.2 ms a unit. */
    struct timespec t = {0, (long)(task_cost(k) * 200000)};
    nanosleep(&t, NULL);
    char *buf = malloc(1 << 16);
    if (!buf)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_status st = write_task(s, k, dir_fd, buf, 1 << 16, err);
    free(buf);
    return st;
}

static pl_status write_task(farm_state *s, size_t k, int dir_fd, char *buf, size_t cap, pl_error *err)
{
    if (k == FAIL_TASK) {
        if (write_at(dir_fd, "data.csv", FAIL_PARTIAL, strlen(FAIL_PARTIAL)) != 0)
            return pl_fail(err, PL_ERR_IO, "cannot write data.csv: %s", strerror(errno));
        return pl_fail(err, PL_ERR_SOLVER, FAIL_MESSAGE);
    }
    if ((long)k == s->symlink_task && symlinkat("/etc/passwd", dir_fd, "link.csv") != 0)
        return pl_fail(err, PL_ERR_IO, "cannot make the link: %s", strerror(errno));
    size_t n = task_data(k, buf, cap);
    if (write_at(dir_fd, "data.csv", buf, n) != 0)
        return pl_fail(err, PL_ERR_IO, "cannot write data.csv: %s", strerror(errno));
    if (k % 3 == 0) {
        if (mkdirat(dir_fd, "sub", 0755) != 0)
            return pl_fail(err, PL_ERR_IO, "cannot make sub: %s", strerror(errno));
        n = task_extra(k, buf, cap);
        int sub = openat(dir_fd, "sub", O_RDONLY | O_DIRECTORY);
        int bad = sub < 0 || write_at(sub, "extra.txt", buf, n) != 0;
        if (sub >= 0)
            close(sub);
        if (bad)
            return pl_fail(err, PL_ERR_IO, "cannot write sub/extra.txt");
    }
    return PL_OK;
}

/* The store: OUT/tasks/NNNN/<file> and OUT/tasks/NNNN/status ("ok" or "failed: MESSAGE"), each
 * written to a temporary and renamed into place, then a line "k" appended to OUT/journal: a task in
 * the journal has all its files complete. */
static int put_file(const char *path, const unsigned char *bytes, size_t n)
{
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int bad = fwrite(bytes, 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? -1 : rename(tmp, path);
}

static pl_status store(size_t k, pl_status task_status, const pl_error *task_err, const pl_farm_file *files,
                       size_t nfiles, pl_error *err, void *user)
{
    farm_state *s = user;
    if (!pthread_equal(pthread_self(), s->main_thread))
        s->store_off_thread = 1;
    if ((long)k == s->store_fail)
        return pl_fail(err, PL_ERR_IO, "cannot store task %zu: disk full", k);
    char dir[1024], path[PATH_MAX];
    if ((size_t)snprintf(dir, sizeof dir, "%s/tasks/%04zu", s->out, k) >= sizeof dir)
        return pl_fail(err, PL_ERR_IO, "%s: too long a path", s->out);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return pl_fail(err, PL_ERR_IO, "cannot make %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < nfiles; i++) {
        if (!pl_farm_name_ok(files[i].name))
            return pl_fail(err, PL_ERR_IO, "store was given the name '%s'", files[i].name);
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        mkdir(path, 0755);
        *slash = '/';
        if (put_file(path, files[i].bytes, files[i].size) != 0)
            return pl_fail(err, PL_ERR_IO, "cannot write %s", path);
    }
    char status[1024];
    int n = snprintf(status, sizeof status, "%s%s\n", task_status == PL_OK ? "ok" : "failed: ",
                     task_status == PL_OK ? "" : task_err->message);
    snprintf(path, sizeof path, "%s/status", dir);
    if (put_file(path, (const unsigned char *)status, (size_t)n) != 0)
        return pl_fail(err, PL_ERR_IO, "cannot write %s", path);
    snprintf(path, sizeof path, "%s/journal", s->out);
    FILE *j = fopen(path, "a");
    if (!j)
        return pl_fail(err, PL_ERR_IO, "cannot open %s", path);
    fprintf(j, "%zu\n", k);
    if (fclose(j) != 0)
        return pl_fail(err, PL_ERR_IO, "cannot write %s", path);
    return PL_OK;
}

static void progress(size_t done, size_t total, void *user)
{
    farm_state *s = user;
    if (done != s->last_done + 1 || done > total)
        s->progress_bad = 1;
    s->last_done = done;
}

/* "farm OUT [fail] [kill=R:J] [badinput=R] [symlink=K] [resume]": run the farm; exit 0, 1 when
 * the farm failed, 2 on bad input. */
static int farm_main(int argc, char **argv)
{
    pl_farm *farm = NULL;
    pl_error err;
    pl_error_clear(&err);
    pl_status st = pl_farm_init(&argc, &argv, &farm, &err);
    if (st != PL_OK) {
        fprintf(stderr, "test_farm: %s\n", err.message);
        pl_farm_end(farm, NULL);
        return st == PL_ERR_INPUT ? 2 : 1;
    }
    farm_state s = {0};
    s.rank = pl_farm_rank(farm);
    s.kill_rank = -1;
    s.symlink_task = -1;
    s.main_thread = pthread_self();
    s.out = argv[2];
    int resume = 0, no_progress = 0, threads = 1;
    long bad_scratch = -1; /* this rank's scratch directory does not exist */
    s.store_fail = -1;
    long bad_rank = -1;
    for (int i = 3; i < argc; i++) {
        if (sscanf(argv[i], "kill=%ld:%ld", &s.kill_rank, &s.kill_after) == 2)
            continue;
        if (sscanf(argv[i], "badinput=%ld", &bad_rank) == 1)
            continue;
        if (sscanf(argv[i], "symlink=%ld", &s.symlink_task) == 1)
            continue;
        if (sscanf(argv[i], "threads=%d", &threads) == 1)
            continue;
        if (sscanf(argv[i], "storefail=%ld", &s.store_fail) == 1)
            continue;
        if (sscanf(argv[i], "badscratch=%ld", &bad_scratch) == 1)
            continue;
        resume |= strcmp(argv[i], "resume") == 0;
        no_progress |= strcmp(argv[i], "noprogress") == 0;
    }
    /* Every rank checks its input; here rank bad_rank alone finds it bad (as a file readable on one
     * node only would be). */
    st = PL_OK;
    if (s.rank == bad_rank)
        st = pl_fail(&err, PL_ERR_INPUT, "bad input seen by rank %d alone", s.rank);
    st = pl_farm_verdict(farm, st, &err);
    if (st != PL_OK) {
        if (pl_farm_is_writer(farm))
            fprintf(stderr, "test_farm: %s\n", err.message);
        pl_farm_end(farm, NULL);
        return st == PL_ERR_INPUT ? 2 : 1;
    }
    char path[4096];
    double cost[NTASKS];
    unsigned char skip[NTASKS] = {0};
    for (size_t k = 0; k < NTASKS; k++)
        cost[k] = task_cost(k);
    if (resume) { /* every rank reads the journal (one file system here) */
        snprintf(path, sizeof path, "%s/journal", s.out);
        FILE *j = fopen(path, "r");
        size_t k;
        while (j && fscanf(j, "%zu", &k) == 1)
            if (k < NTASKS)
                skip[k] = 1;
        if (j)
            fclose(j);
    }
    if (pl_farm_is_writer(farm)) {
        snprintf(path, sizeof path, "%s/tasks", s.out);
        mkdir(s.out, 0755);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof path, "%s/%s", s.out, s.rank == bad_scratch ? "no/such/dir" : "scratch");
    pl_farm_ops ops = {.ntasks = NTASKS, .cost = cost, .skip = skip, .execute = execute, .store = store,
                       .progress = no_progress ? NULL : progress, .user = &s, .scratch = path,
                       .threads = threads};
    st = pl_farm_run(farm, &ops, &err);
    int rc = 0;
    if (st != PL_OK) {
        fprintf(stderr, "test_farm (rank %d): %s\n", s.rank, err.message);
        rc = 1;
    } else if (pl_farm_is_writer(farm)) {
        size_t todo = 0;
        for (size_t k = 0; k < NTASKS; k++)
            todo += !skip[k];
        if (!no_progress && (s.progress_bad || s.last_done != todo)) {
            fprintf(stderr, "test_farm: progress reported %zu of %zu, or out of order\n", s.last_done, todo);
            rc = 1;
        }
        if (s.store_off_thread) {
            fprintf(stderr, "test_farm: store was called off the main thread\n");
            rc = 1;
        }
    }
    /* How many tasks each rank executed (printed, not checked: that depends on timing). */
    fprintf(stdout, "rank %d executed %ld\n", s.rank, s.executed);
    if (pl_farm_end(farm, &err) != PL_OK) {
        fprintf(stderr, "test_farm (rank %d): %s\n", s.rank, err.message);
        rc = 1;
    }
    return rc;
}

/* ---- the test ----------------------------------------------------------------------------------- */

static const char *self;
static char base[256];

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Run "[mpirun -np NP] test_farm farm BASE/NAME ARGS" with stderr to BASE/NAME.err; exit status. */
static int run_farm(const char *mpirun, int np, const char *name, const char *args)
{
    char cmd[8192], mpi[1024] = "";
    if (mpirun) /* a farm that hangs fails the test instead of holding it */
        snprintf(mpi, sizeof mpi, "timeout 120 %s -np %d --oversubscribe %s", mpirun, np,
                 geteuid() == 0 ? "--allow-run-as-root" : "");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/%s/scratch && %s %s farm %s/%s %s > %s/%s.out 2> %s/%s.err", base, name,
             mpi, self, base, name, args, base, name, base, name);
    return sh(cmd);
}

static char *slurp_path(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b)
        b[n] = '\0';
    if (len)
        *len = n;
    return b;
}

static int file_is(const char *path, const char *bytes, size_t n)
{
    size_t len = 0;
    char *got = slurp_path(path, &len);
    int same = got && len == n && memcmp(got, bytes, n) == 0;
    free(got);
    return same;
}

static int count_entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Whether task k is stored in BASE/NAME as it should be (not checked: absent and allowed). */
static int task_stored_right(const char *name, size_t k, int *present)
{
    char dir[1024], path[1200];
    static char buf[1 << 16];
    snprintf(dir, sizeof dir, "%s/%s/tasks/%04zu", base, name, k);
    snprintf(path, sizeof path, "%s/status", dir);
    struct stat st;
    *present = stat(path, &st) == 0;
    if (!*present)
        return 1;
    int ok = 1;
    int expect_extra = k % 3 == 0 && k != FAIL_TASK;
    if (k == FAIL_TASK) {
        ok &= file_is(path, "failed: " FAIL_MESSAGE "\n", strlen("failed: " FAIL_MESSAGE "\n"));
        snprintf(path, sizeof path, "%s/data.csv", dir);
        ok &= file_is(path, FAIL_PARTIAL, strlen(FAIL_PARTIAL));
    } else {
        ok &= file_is(path, "ok\n", 3);
        snprintf(path, sizeof path, "%s/data.csv", dir);
        size_t n = task_data(k, buf, sizeof buf);
        ok &= file_is(path, buf, n);
        if (expect_extra) {
            snprintf(path, sizeof path, "%s/sub/extra.txt", dir);
            n = task_extra(k, buf, sizeof buf);
            ok &= file_is(path, buf, n);
        }
    }
    /* Nothing else: status, data.csv and (for some) sub/. */
    ok &= count_entries(dir) == 2 + expect_extra;
    if (expect_extra) {
        snprintf(path, sizeof path, "%s/sub", dir);
        ok &= count_entries(path) == 1;
    }
    return ok;
}

/* The journal's tasks: each once; counts returned, seen[k] set. */
static int journal_tasks(const char *name, unsigned char seen[NTASKS], int *twice)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/journal", base, name);
    memset(seen, 0, NTASKS);
    *twice = 0;
    FILE *j = fopen(path, "r");
    int n = 0;
    size_t k;
    while (j && fscanf(j, "%zu", &k) == 1) {
        if (k >= NTASKS || seen[k])
            *twice = 1;
        else
            seen[k] = 1;
        n++;
    }
    if (j)
        fclose(j);
    return n;
}

/* Every task stored right, once, and the scratch directory left empty. */
static void check_complete(const char *name)
{
    unsigned char seen[NTASKS];
    int twice;
    int n = journal_tasks(name, seen, &twice);
    CHECK(n == NTASKS && !twice, "%s: %d tasks in the journal (each once: %d), expected %d", name, n, !twice, NTASKS);
    int right = 0, present = 0;
    for (size_t k = 0; k < NTASKS; k++) {
        int p;
        int ok = task_stored_right(name, k, &p);
        right += ok && p;
        present += p;
        CHECK(ok && p, "%s: task %zu %s", name, k, p ? "stored with the wrong files" : "not stored");
    }
    CHECK(right == NTASKS, "%s: %d of %d tasks stored right", name, right, NTASKS);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/scratch", base, name);
    CHECK(count_entries(path) == 0, "%s: the scratch directory holds %d entries after the farm", name,
          count_entries(path));
}

/* Every task in the journal stored right; the count returned. */
static int check_journaled_intact(const char *name)
{
    unsigned char seen[NTASKS];
    int twice;
    int n = journal_tasks(name, seen, &twice);
    CHECK(!twice, "%s: a task journaled twice", name);
    for (size_t k = 0; k < NTASKS; k++) {
        if (!seen[k])
            continue;
        int p;
        int ok = task_stored_right(name, k, &p);
        CHECK(ok && p, "%s: journaled task %zu is not stored right after the kill", name, k);
    }
    return n;
}

/* Lines of text that begin with prefix. */
static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; p && *p;) {
        n += strncmp(p, prefix, strlen(prefix)) == 0;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    return n;
}

static void test_names(void)
{
    const char *good[] = {"a.csv", "sub/b.csv", "runs/00001_mu_1e4/trajectory.csv", "..a", "a..", ".hidden"};
    const char *bad[] = {"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", "a/..", ".", "..", "a/",
                         "x\ny", "tab\tname"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        CHECK(pl_farm_name_ok(good[i]), "'%s' refused as a task's file name", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!pl_farm_name_ok(bad[i]), "'%s' accepted as a task's file name", bad[i]);
}

/* A result packed as a rank sends it, with one file of the given name. */
static size_t pack(unsigned char *buf, size_t k, const char *name, uint64_t size, const char *bytes)
{
    size_t at = 0;
    uint64_t words[] = {k, PL_OK, 0, 0, 1, strlen(name)};
    memcpy(buf + at, words, sizeof words);
    at += sizeof words;
    memcpy(buf + at, name, strlen(name));
    at += strlen(name);
    memcpy(buf + at, &size, sizeof size);
    at += sizeof size;
    memcpy(buf + at, bytes, strlen(bytes));
    return at + strlen(bytes);
}

/* The writer's check on receipt: names escaping the task's directory, lengths beyond the bytes. */
static void test_received(void)
{
    unsigned char buf[512];
    pl_error err;
    pl_error_clear(&err);
    size_t n = pack(buf, 3, "sub/data.csv", 4, "1,2\n");
    CHECK(pl_farm_check_packed(buf, n, NTASKS, &err) == PL_OK, "a well-formed result refused: %s", err.message);
    const char *bad[] = {"../escape.csv", "/etc/cron.d/x", "sub/../../x", "a//b", "a\nb"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        n = pack(buf, 3, bad[i], 4, "1,2\n");
        pl_status st = pl_farm_check_packed(buf, n, NTASKS, &err);
        CHECK(st == PL_ERR_IO && strstr(err.message, "not a relative name"),
              "a result naming '%s' accepted (%d: %s)", bad[i], (int)st, err.message);
    }
    n = pack(buf, 3, "data.csv", 400, "1,2\n"); /* claims more bytes than sent */
    CHECK(pl_farm_check_packed(buf, n, NTASKS, &err) == PL_ERR_IO, "a result claiming 400 bytes of 4 accepted");
    n = pack(buf, 3, "data.csv", 4, "1,2\n");
    CHECK(pl_farm_check_packed(buf, n - 1, NTASKS, &err) == PL_ERR_IO, "a truncated result accepted");
    CHECK(pl_farm_check_packed(buf, n, 3, &err) == PL_ERR_IO, "a result of task 3 of 3 accepted");
    unsigned char nul[64];
    n = pack(nul, 3, "a.csv", 0, "");
    nul[6 * 8 + 1] = '\0'; /* "a\0csv": a name with a NUL in it */
    CHECK(pl_farm_check_packed(nul, n, NTASKS, &err) == PL_ERR_IO, "a name holding a NUL accepted");
}

static void test_one_process(void)
{
    int rc = run_farm(NULL, 1, "one", "");
    CHECK(rc == 0, "one process: exit %d", rc);
    check_complete("one");
    /* One process stores in the order of dispatch: costliest first, ties in task order. */
    char path[1024];
    snprintf(path, sizeof path, "%s/one/journal", base);
    FILE *j = fopen(path, "r");
    size_t k, prev = 0, n = 0;
    int in_order = j != NULL;
    while (j && fscanf(j, "%zu", &k) == 1) {
        if (n > 0 && (task_cost(k) > task_cost(prev) || (task_cost(k) == task_cost(prev) && k < prev)))
            in_order = 0;
        prev = k;
        n++;
    }
    if (j)
        fclose(j);
    CHECK(in_order && n == NTASKS, "one process: the tasks were not dispatched costliest first");

    /* A task that leaves a symbolic link fails (the link never followed), the others are stored. */
    rc = run_farm(NULL, 1, "link", "symlink=8");
    CHECK(rc == 0, "a task leaving a link: exit %d", rc);
    snprintf(path, sizeof path, "%s/link/tasks/0008/status", base);
    char *status = slurp_path(path, NULL);
    CHECK(status && strncmp(status, "failed: ", 8) == 0 && strstr(status, "link.csv") &&
              strstr(status, "not a regular file"),
          "a task leaving a link: status '%s'", status ? status : "(none)");
    free(status);
    snprintf(path, sizeof path, "%s/link/tasks/0008/link.csv", base);
    struct stat st;
    CHECK(lstat(path, &st) != 0, "the link left by a task was stored");
    int p;
    CHECK(task_stored_right("link", 9, &p) && p, "a task leaving a link: the next task not stored right");
}

static void test_mpi(const char *mpirun)
{
    int rc = run_farm(mpirun, 3, "three", "");
    CHECK(rc == 0, "mpirun -np 3: exit %d", rc);
    check_complete("three");
    char path[1024];
    snprintf(path, sizeof path, "%s/three.out", base);
    char *out = slurp_path(path, NULL);
    CHECK(out && lines_starting(out, "rank ") == 3, "mpirun -np 3: the ranks' lines: %s", out ? out : "(none)");
    /* The writer computes too: its thread takes the first (costliest) task before any rank asks. */
    CHECK(out && !strstr(out, "rank 0 executed 0\n"), "mpirun -np 3: rank 0 computed nothing: %s", out ? out : "");
    free(out);

    /* Two threads a process: the same stored set. */
    rc = run_farm(mpirun, 3, "threads", "threads=2");
    CHECK(rc == 0, "mpirun -np 3 with 2 threads a process: exit %d", rc);
    check_complete("threads");

    /* A store that fails: the farm ends on every process (exit 1, no hang), the writer's message
     * printed, what was stored before intact. */
    for (int t = 1; t <= 2; t++) {
        char name[32], args[64];
        snprintf(name, sizeof name, "storefail%d", t);
        snprintf(args, sizeof args, "storefail=20 threads=%d", t);
        rc = run_farm(mpirun, 3, name, args);
        CHECK(rc == 1, "%s: exit %d, expected 1", name, rc);
        snprintf(path, sizeof path, "%s/%s.err", base, name);
        char *text = slurp_path(path, NULL);
        CHECK(text && strstr(text, "test_farm (rank 0): cannot store task 20: disk full") &&
                  strstr(text, "stopped by rank 0, which failed"),
              "%s: stderr '%s'", name, text ? text : "(none)");
        free(text);
        int stored = check_journaled_intact(name);
        CHECK(stored < NTASKS, "%s: %d tasks stored", name, stored);
    }

    /* A rank that cannot make its private directories (one thread, then two): the farm ends on every
     * process with that rank's reason, no hang. */
    for (int t = 1; t <= 2; t++) {
        char name[32], args[64];
        snprintf(name, sizeof name, "badscratch%d", t);
        snprintf(args, sizeof args, "badscratch=2 threads=%d", t);
        rc = run_farm(mpirun, 3, name, args);
        CHECK(rc == 1, "%s: exit %d, expected 1", name, rc);
        snprintf(path, sizeof path, "%s/%s.err", base, name);
        char *text = slurp_path(path, NULL);
        CHECK(text && strstr(text, "test_farm (rank 0): farm: rank 2 cannot make a private directory under") &&
                  strstr(text, "no/such/dir"),
              "%s: stderr '%s'", name, text ? text : "(none)");
        free(text);
    }

    /* The same without a progress callback (optional). */
    rc = run_farm(mpirun, 3, "quiet", "noprogress");
    CHECK(rc == 0, "mpirun -np 3 without progress: exit %d", rc);
    check_complete("quiet");

    /* A computing rank killed on its third task, then the writer killed on its fourth: mpirun
     * ends the job, what was stored is intact, and a resumed run completes the set. */
    const char *kills[] = {"kill=2:3", "kill=0:4"};
    const char *names[] = {"killed_rank", "killed_writer"};
    for (int i = 0; i < 2; i++) {
        rc = run_farm(mpirun, 3, names[i], kills[i]);
        CHECK(rc != 0, "%s: mpirun exit %d after a rank was killed", names[i], rc);
        int stored = check_journaled_intact(names[i]);
        CHECK(stored < NTASKS, "%s: %d of %d tasks stored: the kill did not happen", names[i], stored, NTASKS);
        printf("%s: %d of %d tasks stored before the kill\n", names[i], stored, NTASKS);
        /* The scratch directories of the killed job are left behind: start the resumed run clean. */
        snprintf(path, sizeof path, "rm -rf %s/%s/scratch", base, names[i]);
        sh(path);
        rc = run_farm(mpirun, 3, names[i], "resume");
        CHECK(rc == 0, "%s: the resumed run exits %d", names[i], rc);
        check_complete(names[i]);
    }

    /* A bad input seen by rank 2 alone: one line, from the writer, naming rank 2; all exit 2. */
    rc = run_farm(mpirun, 3, "bad", "badinput=2");
    CHECK(rc == 2, "a bad input under mpirun: exit %d, expected 2", rc);
    snprintf(path, sizeof path, "%s/bad.err", base);
    char *err = slurp_path(path, NULL);
    CHECK(err && lines_starting(err, "test_farm") == 1 && strstr(err, "(rank 2, on ") &&
              strstr(err, "bad input seen by rank 2 alone"),
          "a bad input under mpirun: stderr '%s'", err ? err : "(none)");
    free(err);
    snprintf(path, sizeof path, "%s/bad/tasks", base);
    struct stat st;
    CHECK(stat(path, &st) != 0, "a bad input under mpirun: something was written");
    rc = run_farm(mpirun, 3, "bad0", "badinput=0");
    snprintf(path, sizeof path, "%s/bad0.err", base);
    err = slurp_path(path, NULL);
    CHECK(rc == 2 && err && lines_starting(err, "test_farm") == 1 && !strstr(err, "(rank") &&
              strstr(err, "bad input seen by rank 0 alone"),
          "a bad input on the writer: exit %d, stderr '%s'", rc, err ? err : "(none)");
    free(err);
}

/* Built without MPI: mpirun -np 3 is refused by each process with exit 2, nothing run. */
static void test_without_mpi(const char *mpirun)
{
    int rc = run_farm(mpirun, 3, "nompi", "");
    CHECK(rc == 2, "without MPI, under mpirun -np 3: exit %d, expected 2", rc);
    char path[1024];
    snprintf(path, sizeof path, "%s/nompi.err", base);
    char *err = slurp_path(path, NULL);
    CHECK(err && strstr(err, "built without MPI"), "without MPI, under mpirun: stderr '%s'", err ? err : "(none)");
    free(err);
    snprintf(path, sizeof path, "%s/nompi/journal", base);
    struct stat st;
    CHECK(stat(path, &st) != 0, "without MPI, under mpirun: tasks were run");
}

/* "test_farm one", "test_farm mpi MPIRUN", "test_farm nompi MPIRUN" (built without MPI). */
int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "farm") == 0)
        return farm_main(argc, argv);
    check_init();
    int one = argc == 2 && strcmp(argv[1], "one") == 0;
    int mpi = argc == 3 && strcmp(argv[1], "mpi") == 0;
    int nompi = argc == 3 && strcmp(argv[1], "nompi") == 0;
    if (!one && !mpi && !nompi) {
        fprintf(stderr, "usage: test_farm one | mpi MPIRUN | nompi MPIRUN\n");
        return 2;
    }
    self = argv[0];
    snprintf(base, sizeof base, "/tmp/test_farm_XXXXXX");
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    if (one) {
        test_names();
        test_received();
        test_one_process();
    } else if (mpi) {
        test_mpi(argv[2]);
    } else {
        test_without_mpi(argv[2]);
    }
    int rc = check_finish("test_farm");
    if (rc == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf %s", base);
        sh(cmd);
    }
    return rc;
}
