/* The task farm's parallel efficiency (src/cli/farm.c; docs/verification.md, "The task farm").
 *
 *   bench_farm PENLIM [MPIRUN [PARTS]]     (PARTS: the parts to run, default "123456"; MPIRUN "": none)
 *
 * 1. Load balance: 200 sleep-tasks of known cost (20 points x 10 mu values, cost (mu/1e4)^(1/4):
 *    1 to 100 ms, as the study's cost model predicts for mu = 1e4 ... 1e12) under mpirun -np P:
 *    the makespan of the farm's dynamic scheduling against static scheduling (every P-th task to a
 *    rank), both measured, and against the bounds (computed: max(sum/P, largest)), and the makespan
 *    of LPT dealing (--shard's), computed.
 * 2. The writer's cost per stored result: results of a run's size (trajectory.csv of 1000 samples
 *    x 2n+2 columns in penlim's number format, n = 1, 10, 100; and a bouncing ball's run directory
 *    as penlim sweep writes it) written through penlim's output (temporary, hash, rename), the
 *    journal rewritten after each (as pl_outdir_journal_update does) at 1000 and 10000 files
 *    recorded; and the bytes shipped rank to rank (mpirun -np 2).
 * 3. A model of the efficiency at 2, 64 and 1024 processes: a simulation of the farm (one writer
 *    serving results one at a time, costliest first dispatch) fed with measured per-run costs
 *    (penlim sweep's wall_seconds) and the measured writer's cost per result.
 * 4. Efficiency with 1 and 2 processes on this machine: 200 CPU-bound tasks (spin loops of counted
 *    work, costs 1 to 100 units) through the farm alone and under mpirun -np 2.
 * 5. A 200-run penlim study with 1 and 2 processes: one process (--jobs 1, --jobs 2) against two
 *    shards run at once and merged, and against mpirun -np 1 and -np 2.
 * 6. That study's phase 1 through the farm (pl_study_execute as the task, the writer storing every
 *    file through penlim's output): one process against mpirun -np 2.
 * Wall times are printed as measured (this machine is shared: ratios, not seconds, are the result). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cases/cases.h"
#include "cli/farm.h"
#include "core/clock.h"
#include "core/number.h"
#include "io/outdir.h"
#include "io/output.h"
#include "study/study.h"

#ifdef PL_HAVE_MPI
#include <mpi.h>
#endif

#define NPOINTS 20
#define NMU 10
#define NTASKS (NPOINTS * NMU)

/* The study's predicted cost of run k (run index: point-major, mu fastest): (mu/1e4)^(1/4) for
 * mu = 1e4 ... 1e12 geometric, 1 to 100. */
static double grid_cost(size_t k)
{
    size_t j = k % NMU;
    return pow(10.0, 2.0 * (double)j / (NMU - 1));
}

/* ---- the ranks' side (under mpirun) ------------------------------------------------------------ */

typedef struct {
    double unit;  /* seconds of sleep per unit of cost, or 0 */
    double spin;  /* iterations of the spin loop per unit of cost, or 0 */
    size_t stored;
    volatile uint64_t sink;
} bench_state;

static void sleep_for(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* Counted work: a linear congruential sequence, its last value kept so the loop is not removed. */
static uint64_t spin(double iterations)
{
    uint64_t x = 88172645463325252ull;
    for (double i = 0; i < iterations; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static pl_status bench_execute(size_t k, int dir_fd, pl_error *err, void *user)
{
    bench_state *s = user;
    double c = grid_cost(k);
    if (s->unit > 0)
        sleep_for(c * s->unit);
    if (s->spin > 0)
        s->sink += spin(c * s->spin);
    /* A small result, as the synthetic task's. */
    char text[64];
    int n = snprintf(text, sizeof text, "%zu,%.17g\n", k, c);
    int fd = openat(dir_fd, "r.csv", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text, (size_t)n) != n) {
        if (fd >= 0)
            close(fd);
        return pl_fail(err, PL_ERR_IO, "cannot write r.csv");
    }
    close(fd);
    return PL_OK;
}

static pl_status bench_store(size_t k, pl_status task_status, const pl_error *task_err, const pl_farm_file *files,
                             size_t nfiles, pl_error *err, void *user)
{
    (void)k, (void)task_err, (void)files, (void)err;
    bench_state *s = user;
    if (task_status == PL_OK && nfiles == 1)
        s->stored++;
    return PL_OK;
}

/* A study's phase 1 over the farm: every process plans the study; a task is pl_study_execute into
 * the farm's private directory; the writer stores each file into OUT through penlim's output
 * (temporary, hash, rename; synced once at the end), as the study writes its own. */
typedef struct {
    const pl_study *st;
    pl_output *out; /* the writer's, rank 0 */
    size_t failed;
} study_farm;

static pl_status study_execute(size_t k, int dir_fd, pl_error *err, void *user)
{
    study_farm *sf = user;
    pl_output o;
    pl_output_init(&o, "(task directory)", 0644, NULL);
    o.root_fd = dup(dir_fd);
    if (o.root_fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot duplicate the task's directory: %s", strerror(errno));
    int failed = 0;
    pl_status s = pl_study_execute(sf->st, k, &o, &failed, err);
    pl_output_free(&o);
    if (s == PL_OK && failed)
        s = pl_fail(err, PL_ERR_SOLVER, "task %zu failed", k);
    return s;
}

static pl_status study_store(size_t k, pl_status task_status, const pl_error *task_err, const pl_farm_file *files,
                             size_t nfiles, pl_error *err, void *user)
{
    (void)k, (void)task_err;
    study_farm *sf = user;
    sf->failed += task_status != PL_OK;
    for (size_t i = 0; i < nfiles; i++) {
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s", files[i].name);
        char *slash = strrchr(sub, '/');
        const char *name = slash ? slash + 1 : sub;
        if (slash)
            *slash = '\0';
        pl_status s = pl_write_bytes(sf->out, slash ? sub : NULL, name, files[i].bytes, files[i].size, err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}

static int rank_study(pl_farm *farm, int threads, const char *out_dir)
{
    static const char *const grids[] = {"e=lin:0.5:0.95:20", "mu=1e4:1e12:10"};
    pl_study_spec spec = {.c = pl_case_find("bouncing_ball"), .solver = &pl_solver_penalty, .grids = grids,
                          .ngrids = 2, .t_end = NAN, .samples = SIZE_MAX, .contacts = PL_CONTACTS_AUTO, .jobs = 1};
    pl_study st;
    pl_error err;
    pl_error_clear(&err);
    pl_status s = pl_study_plan(&spec, &st, &err);
    s = pl_farm_verdict(farm, s, &err);
    if (s != PL_OK) {
        if (pl_farm_is_writer(farm))
            fprintf(stderr, "bench_farm: %s\n", err.message);
        pl_study_free(&st);
        return 2;
    }
    pl_output out;
    pl_output_init(&out, out_dir, 0644, NULL);
    out.sync_later = 1;
    study_farm sf = {&st, &out, 0};
    double *cost = malloc(st.ntasks * sizeof *cost);
    for (size_t k = 0; cost && k < st.ntasks; k++)
        cost[k] = st.tasks[k].cost;
    if (pl_farm_is_writer(farm) && (pl_make_dir(out_dir, &err) != PL_OK || pl_output_open(&out, &err) != PL_OK))
        s = err.status;
    s = pl_farm_verdict(farm, s, &err);
    double t0 = pl_now_seconds();
    pl_farm_ops ops = {.ntasks = st.ntasks, .cost = cost, .execute = study_execute, .store = study_store,
                       .user = &sf, .threads = threads};
    if (s == PL_OK)
        s = pl_farm_run(farm, &ops, &err);
    if (s == PL_OK && pl_farm_is_writer(farm))
        s = pl_output_sync(&out, &err);
    int rc = 0;
    if (s != PL_OK) {
        fprintf(stderr, "bench_farm: %s\n", err.message);
        rc = 1;
    } else if (pl_farm_is_writer(farm)) {
        printf("%.6f %zu %zu\n", pl_now_seconds() - t0, out.written.n, sf.failed);
    }
    free(cost);
    pl_output_free(&out);
    pl_study_free(&st);
    return rc;
}

/* "rank dynamic UNIT" (sleep), "rank spin ITER", "rank static UNIT", "rank ship BYTES COUNT",
 * "rank study THREADS OUT": prints on rank 0 the makespan in seconds (ship: seconds per message). */
static int rank_main(int argc, char **argv)
{
    pl_farm *farm = NULL;
    pl_error err;
    pl_error_clear(&err);
    if (pl_farm_init(&argc, &argv, &farm, &err) != PL_OK) {
        fprintf(stderr, "bench_farm: %s\n", err.message);
        pl_farm_end(farm, NULL);
        return 1;
    }
    const char *mode = argv[2];
    double x = atof(argv[3]);
    int rank = pl_farm_rank(farm), size = pl_farm_size(farm);
    int rc = 0;
    pl_farm_verdict(farm, PL_OK, &err); /* every rank up before the clock starts */
    double t0 = pl_now_seconds();
    if (strcmp(mode, "study") == 0 && argc >= 5) {
        rc = rank_study(farm, (int)x, argv[4]);
    } else if (strcmp(mode, "dynamic") == 0 || strcmp(mode, "spin") == 0) {
        bench_state s = {0};
        if (mode[0] == 'd')
            s.unit = x;
        else
            s.spin = x;
        double cost[NTASKS];
        for (size_t k = 0; k < NTASKS; k++)
            cost[k] = grid_cost(k);
        pl_farm_ops ops = {.ntasks = NTASKS, .cost = cost, .execute = bench_execute, .store = bench_store,
                           .user = &s};
        if (pl_farm_run(farm, &ops, &err) != PL_OK) {
            fprintf(stderr, "bench_farm: %s\n", err.message);
            rc = 1;
        }
        if (rank == 0 && s.stored != NTASKS) {
            fprintf(stderr, "bench_farm: %zu of %d stored\n", s.stored, NTASKS);
            rc = 1;
        }
        if (rank == 0)
            printf("%.6f\n", pl_now_seconds() - t0);
    }
#ifdef PL_HAVE_MPI
    else if (strcmp(mode, "static") == 0) {
        for (size_t k = (size_t)rank; k < NTASKS; k += (size_t)size)
            sleep_for(grid_cost(k) * x);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("%.6f\n", pl_now_seconds() - t0);
    } else if (strcmp(mode, "ship") == 0 && size == 2) {
        size_t bytes = (size_t)x;
        int count = atoi(argv[4]);
        unsigned char *b = calloc(bytes, 1);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = pl_now_seconds();
        for (int i = 0; i < count && b; i++) {
            if (rank == 1)
                MPI_Send(b, (int)bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
            else
                MPI_Recv(b, (int)bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
            printf("%.9f\n", (pl_now_seconds() - t1) / count);
        free(b);
    }
#endif
    (void)size;
    pl_farm_end(farm, NULL);
    return rc;
}

/* ---- the driver --------------------------------------------------------------------------------- */

static const char *self, *mpirun, *penlim;
static char scratch[256];

/* The CPU time (user and system) of the last run_number's processes, mpirun's included. */
static double last_child_cpu = NAN;

static double children_cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)u.ru_stime.tv_usec;
}

/* Run a command and read the number it prints; NAN if it fails. */
static double run_number(const char *cmd)
{
    double c0 = children_cpu();
    FILE *p = popen(cmd, "r");
    double v = NAN;
    if (!p)
        return v;
    if (fscanf(p, "%lf", &v) != 1)
        v = NAN;
    int rc = pclose(p);
    last_child_cpu = children_cpu() - c0;
    return rc == 0 ? v : NAN;
}

static double run_ranks(int np, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -np %d --oversubscribe %s %s rank %s", mpirun, np,
             geteuid() == 0 ? "--allow-run-as-root" : "", self, args);
    return run_number(cmd);
}

static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/* Makespans computed from the costs: every P-th task to a rank, and LPT dealing (greedy to the
 * least loaded, costliest first). */
static double static_makespan(const double *c, size_t n, int p)
{
    double worst = 0;
    for (int r = 0; r < p; r++) {
        double s = 0;
        for (size_t k = (size_t)r; k < n; k += (size_t)p)
            s += c[k];
        worst = s > worst ? s : worst;
    }
    return worst;
}

static int by_cost_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static double lpt_makespan(const double *c, size_t n, int p)
{
    double *s = malloc(n * sizeof *s), *load = calloc((size_t)p, sizeof *load);
    memcpy(s, c, n * sizeof *s);
    qsort(s, n, sizeof *s, by_cost_desc);
    for (size_t i = 0; i < n; i++) {
        int best = 0;
        for (int r = 1; r < p; r++)
            if (load[r] < load[best])
                best = r;
        load[best] += s[i];
    }
    double worst = 0;
    for (int r = 0; r < p; r++)
        worst = load[r] > worst ? load[r] : worst;
    free(s);
    free(load);
    return worst;
}

static void balance(void)
{
    double c[NTASKS], sum = 0, top = 0;
    for (size_t k = 0; k < NTASKS; k++) {
        c[k] = grid_cost(k);
        sum += c[k];
        top = c[k] > top ? c[k] : top;
    }
    const double unit = 1e-3; /* 1 ms of sleep per unit of cost */
    printf("\n1. Load balance: %d sleep-tasks, costs 1 to 100 ms (sum %.0f ms), makespans in ms\n", NTASKS, sum);
    printf("%4s %9s %10s %10s %10s %10s %12s %12s\n", "P", "bound", "dynamic", "static", "static_c", "LPT_c",
           "static/dyn", "dyn/bound");
    const int ps[] = {2, 4, 10, 16};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        int p = ps[i];
        char args[64];
        double d[3], s[3];
        for (int r = 0; r < 3; r++) {
            snprintf(args, sizeof args, "dynamic %g", unit);
            d[r] = run_ranks(p, args) * 1e3;
            snprintf(args, sizeof args, "static %g", unit);
            s[r] = run_ranks(p, args) * 1e3;
        }
        double dyn = median3(d[0], d[1], d[2]), st = median3(s[0], s[1], s[2]);
        double bound = fmax(sum / p, top);
        printf("%4d %9.0f %10.0f %10.0f %10.0f %10.0f %12.2f %12.3f\n", p, bound, dyn, st,
               static_makespan(c, NTASKS, p), lpt_makespan(c, NTASKS, p), st / dyn, dyn / bound);
    }
    printf("(dynamic, static: measured, median of 3; static_c, LPT_c: computed from the costs; bound: "
           "max(sum/P, largest))\n");
}

/* ---- the writer --------------------------------------------------------------------------------- */

/* A trajectory.csv of rows x (2n+2) columns in penlim's shortest number format. */
static char *trajectory_text(size_t rows, size_t n, size_t *len)
{
    size_t cols = 2 * n + 2, cap = rows * cols * 26 + 64 + cols * 12, at = 0;
    char *t = malloc(cap);
    at += (size_t)snprintf(t + at, cap - at, "t");
    for (size_t j = 1; j < cols; j++)
        at += (size_t)snprintf(t + at, cap - at, ",c%zu", j);
    t[at++] = '\n';
    uint64_t x = 12345;
    char num[32];
    for (size_t r = 0; r < rows; r++) {
        for (size_t j = 0; j < cols; j++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            double v = j == 0 ? (double)r * 0.003 : ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 3.7;
            pl_format_double(v, num, sizeof num);
            at += (size_t)snprintf(t + at, cap - at, "%s%s", j ? "," : "", num);
        }
        t[at++] = '\n';
    }
    *len = at;
    return t;
}

typedef struct {
    const char *name;
    const char *bytes;
    size_t size;
} bench_file;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The CPU time of the last store_results over its wall time (the rest: waiting for the disk). */
static double last_cpu_share = NAN;

/* Store `count` results of the given files through penlim's output, rewriting the journal after
 * each when journal is not NULL: seconds per result.  sync_later: as a study stores them (no fsync
 * per file, the file system synced once at the end: src/io/output.h); else each file fsync'd. */
static double store_results(const char *dir, const bench_file *files, size_t nfiles, size_t count, json_t *journal,
                            int sync_later)
{
    pl_output out;
    pl_error err;
    pl_output_init(&out, dir, 0644, NULL);
    out.sync_later = sync_later;
    if (pl_make_dir(dir, &err) != PL_OK || pl_output_open(&out, &err) != PL_OK) {
        fprintf(stderr, "bench_farm: %s\n", err.message);
        return NAN;
    }
    double t0 = pl_now_seconds(), c0 = cpu_seconds();
    for (size_t i = 0; i < count; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "runs/%05zu", i);
        for (size_t f = 0; f < nfiles; f++) {
            if (pl_write_bytes(&out, sub, files[f].name, files[f].bytes, files[f].size, &err) != PL_OK) {
                fprintf(stderr, "bench_farm: %s\n", err.message);
                pl_output_free(&out);
                return NAN;
            }
        }
        if (journal && pl_outdir_journal_update(&out, journal, &err) != PL_OK) {
            fprintf(stderr, "bench_farm: %s\n", err.message);
            pl_output_free(&out);
            return NAN;
        }
    }
    if (pl_output_sync(&out, &err) != PL_OK) {
        fprintf(stderr, "bench_farm: %s\n", err.message);
        pl_output_free(&out);
        return NAN;
    }
    double per = (pl_now_seconds() - t0) / (double)count;
    last_cpu_share = (cpu_seconds() - c0) / (per * (double)count);
    pl_output_free(&out);
    return per;
}

/* The same bytes written without fsync (write, close, rename): what the page cache takes. */
static double store_unsynced(const char *dir, const bench_file *files, size_t nfiles, size_t count)
{
    char path[1024], tmp[1100];
    double t0 = pl_now_seconds();
    for (size_t i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%05zu", dir, i);
        if (pl_make_dir(path, NULL) != PL_OK)
            return NAN;
        for (size_t f = 0; f < nfiles; f++) {
            snprintf(path, sizeof path, "%s/%05zu/%s", dir, i, files[f].name);
            snprintf(tmp, sizeof tmp, "%s.tmp", path);
            FILE *fp = fopen(tmp, "wb");
            if (!fp || fwrite(files[f].bytes, 1, files[f].size, fp) != files[f].size || fclose(fp) != 0 ||
                rename(tmp, path) != 0)
                return NAN;
        }
    }
    return (pl_now_seconds() - t0) / (double)count;
}

/* The journal's rewrite with `files` files recorded: seconds per rewrite. */
static double journal_rewrite(const char *dir, size_t files)
{
    pl_output out;
    pl_error err;
    pl_output_init(&out, dir, 0644, NULL);
    if (pl_make_dir(dir, &err) != PL_OK || pl_output_open(&out, &err) != PL_OK)
        return NAN;
    for (size_t i = 0; i < files; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "runs/%05zu_mu_1e12/trajectory.csv", i);
        pl_output_add_hashed(&out, rel, "0123456789abcdef", &err);
    }
    json_t *journal = json_object();
    int reps = files >= 10000 ? 5 : 20;
    double t0 = pl_now_seconds();
    for (int r = 0; r < reps; r++)
        pl_outdir_journal_update(&out, journal, &err);
    double per = (pl_now_seconds() - t0) / reps;
    json_decref(journal);
    pl_output_free(&out);
    return per;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

/* The files of the last run of the sweep in SCRATCH/name (as penlim sweep wrote them). */
static size_t run_files(const char *name, bench_file *files, size_t max, size_t *total)
{
    char cmd[1024], last[256] = "";
    snprintf(cmd, sizeof cmd, "ls %s/%s/runs | tail -1", scratch, name);
    FILE *p = popen(cmd, "r");
    if (p && fgets(last, sizeof last, p))
        last[strcspn(last, "\n")] = '\0';
    if (p)
        pclose(p);
    const char *names[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
    size_t nf = 0;
    *total = 0;
    for (size_t i = 0; i < 4 && nf < max; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/runs/%s/%s", scratch, name, last, names[i]);
        size_t len = 0;
        char *b = read_file(path, &len);
        if (b) {
            files[nf++] = (bench_file){names[i], b, len};
            *total += len;
        }
    }
    return nf;
}

/* Measured writer costs, for the model: per result of a ball's and a spheres' run (files written
 * and fsync'd), the journal's rewrite per file recorded, the bytes shipped per second. */
static double store_ball = NAN, store_sph = NAN, journal_per_file = NAN, ship_seconds_per_byte = NAN;
static double cpu_ball = 1, cpu_sph = 1;
static size_t bytes_ball, bytes_sph;

static void writer(void)
{
    printf("\n2. The writer's cost per stored result (penlim's output as a study stores: temporary, hash, rename;\n"
           "   the file system synced once at the end)\n");
    printf("%-38s %10s %12s %8s\n", "result", "bytes", "us/result", "MB/s");
    const size_t ns[] = {1, 10, 100};
    for (size_t i = 0; i < 3; i++) {
        size_t len;
        char *t = trajectory_text(1000, ns[i], &len);
        bench_file f = {"trajectory.csv", t, len};
        char dir[512], label[64];
        snprintf(dir, sizeof dir, "%s/store_n%zu", scratch, ns[i]);
        size_t count = ns[i] >= 100 ? 30 : 100;
        double per = store_results(dir, &f, 1, count, NULL, 1);
        snprintf(label, sizeof label, "trajectory.csv 1000 x %zu (n = %zu)", 2 * ns[i] + 2, ns[i]);
        printf("%-38s %10zu %12.0f %8.0f\n", label, len, per * 1e6, (double)len / per / 1e6);
        free(t);
    }
    const char *sweeps[] = {"ball", "spheres"};
    const char *labels[] = {"bouncing ball run, mu = 1e12", "spheres (24 disks) run, mu = 1e8"};
    for (size_t s = 0; s < 2; s++) {
        bench_file files[4];
        size_t total = 0, nf = run_files(sweeps[s], files, 4, &total);
        if (nf == 0)
            continue;
        char dir[512], label[80];
        snprintf(dir, sizeof dir, "%s/store_%s", scratch, sweeps[s]);
        double per = store_results(dir, files, nf, s == 0 ? 100 : 10, NULL, 1);
        double cpu = last_cpu_share;
        snprintf(label, sizeof label, "%s (%zu files)", labels[s], nf);
        printf("%-38s %10zu %12.0f %8.0f   (CPU %.0f%% of it)\n", label, total, per * 1e6, (double)total / per / 1e6,
               100 * cpu);
        snprintf(dir, sizeof dir, "%s/synced_%s", scratch, sweeps[s]);
        double synced = store_results(dir, files, nf, s == 0 ? 100 : 10, NULL, 0);
        printf("%-38s %10zu %12.0f %8.0f\n", "  the same, each file fsync'd", total, synced * 1e6,
               (double)total / synced / 1e6);
        snprintf(dir, sizeof dir, "%s/unsynced_%s", scratch, sweeps[s]);
        double raw = store_unsynced(dir, files, nf, s == 0 ? 100 : 10);
        printf("%-38s %10zu %12.0f %8.0f\n", "  the same without fsync", total, raw * 1e6, (double)total / raw / 1e6);
        if (s == 0) {
            store_ball = per;
            bytes_ball = total;
            cpu_ball = cpu;
        } else {
            store_sph = per;
            bytes_sph = total;
            cpu_sph = cpu;
        }
        for (size_t i = 0; i < nf; i++)
            free((char *)files[i].bytes);
    }
    char dir[512];
    snprintf(dir, sizeof dir, "%s/journal", scratch);
    double j1 = journal_rewrite(dir, 1000), j10 = journal_rewrite(dir, 10000);
    journal_per_file = j10 / 10000;
    printf("journal rewritten (pl_outdir_journal_update) with 1000 files recorded: %.0f us; with 10000: %.0f us\n",
           j1 * 1e6, j10 * 1e6);
    if (mpirun) {
        printf("shipped rank 1 -> rank 0 (mpirun -np 2, shared memory):");
        const size_t sizes[] = {80000, 570000, 10000000};
        for (size_t i = 0; i < 3; i++) {
            char args[64];
            snprintf(args, sizeof args, "ship %zu %d", sizes[i], sizes[i] > 1000000 ? 20 : 200);
            double t = run_ranks(2, args);
            printf(" %zu B %.0f us (%.0f MB/s);", sizes[i], t * 1e6, (double)sizes[i] / t / 1e6);
            if (i == 2)
                ship_seconds_per_byte = t / (double)sizes[i];
        }
        printf("\n");
    }
}

/* ---- the model ---------------------------------------------------------------------------------- */

/* Per-run wall times of penlim sweep CASE ARGS (sweep.csv's wall_seconds of the runs that
 * succeeded); count returned. */
static size_t sweep_costs(const char *name, const char *args, double *walls, size_t max)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s sweep %s --no-plots --no-limit --jobs 1 --quiet --out %s/%s > /dev/null 2>&1",
             penlim, args, scratch, name);
    if (system(cmd) == -1)
        return 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/sweep.csv", scratch, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[65536];
    int wall_col = -1, status_col = -1;
    size_t n = 0;
    if (fgets(line, sizeof line, f)) {
        int c = 0;
        for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), c++) {
            if (strcmp(tok, "wall_seconds") == 0)
                wall_col = c;
            if (strcmp(tok, "status") == 0)
                status_col = c;
        }
    }
    while (wall_col >= 0 && n < max && fgets(line, sizeof line, f)) {
        int c = 0, ok = 0;
        double w = NAN;
        for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), c++) {
            if (c == status_col)
                ok = strcmp(tok, "ok") == 0;
            if (c == wall_col)
                w = atof(tok);
        }
        if (ok && w > 0)
            walls[n++] = w;
    }
    fclose(f);
    return n;
}

/* The farm simulated: p processes (rank 0's worker among them), tasks in the order given (costliest
 * first), one writer that serves results one at a time in arrival order: receiving a rank's result
 * costs ship seconds (rank 0's own thread's: none), then the rank has its next task (after the
 * farm's overhead per task, over), then storing result i costs store + slope i seconds (a journal
 * rewritten whole grows with the files recorded).  Rank 0's worker shares its core with the writer:
 * it loses the writer's CPU time (cpu_share of its work; the rest is waiting for the disk).  Returns the makespan; *writer_busy the writer's working time. */
static double simulate(const double *cost, size_t n, int p, double ship, double store, double slope, double over,
                       double cpu_share, double *writer_busy)
{
    double *ready = malloc((size_t)p * sizeof *ready); /* when each rank's result is ready */
    int *busy_rank = calloc((size_t)p, sizeof *busy_rank);
    size_t next = 0, stored = 0;
    for (int r = 0; r < p && next < n; r++) {
        ready[r] = over + cost[next++];
        busy_rank[r] = 1;
    }
    double writer_at = 0, busy = 0, end = 0;
    for (;;) {
        int r = -1;
        for (int q = 0; q < p; q++)
            if (busy_rank[q] && (r < 0 || ready[q] < ready[r]))
                r = q;
        if (r < 0)
            break;
        double start = ready[r] > writer_at ? ready[r] : writer_at;
        double recv = r == 0 ? 0 : ship;
        double handed = start + recv;
        double work = recv + store + slope * (double)stored++;
        if (next < n)
            ready[r] = handed + over + cost[next++];
        else
            busy_rank[r] = 0;
        writer_at = start + work;
        busy += work;
        end = writer_at > end ? writer_at : end;
        if (busy_rank[0]) /* rank 0's worker loses its core to the writer's CPU time */
            ready[0] += cpu_share * (r == 0 ? work - recv : work);
    }
    for (int q = 0; q < p; q++)
        if (busy_rank[q])
            end = ready[q] > end ? ready[q] : end;
    free(ready);
    free(busy_rank);
    *writer_busy = busy;
    return end;
}

static double ball[16], sph[16];
static size_t nball, nsph;

static void model(void)
{
    printf("\n3. Model of the efficiency (one writer; per-run costs measured by penlim sweep, --jobs 1)\n");
    printf("bouncing_ball, mu = 1e4..1e12, wall seconds:");
    for (size_t i = 0; i < nball; i++)
        printf(" %.4f", ball[i]);
    printf("\nspheres, config 3, 24 disks, mu = 1e4..1e8, wall seconds:");
    for (size_t i = 0; i < nsph; i++)
        printf(" %.4f", sph[i]);
    printf("\n");
    if (!nball || !nsph || isnan(store_ball) || isnan(store_sph)) {
        printf("(model skipped: a sweep or the writer's measurement failed)\n");
        return;
    }
    /* The farm's own overhead per task (private directory, files read, messages): zero-cost tasks
     * through mpirun -np 2. */
    double over = 0;
    if (mpirun) {
        double t[3];
        for (int r = 0; r < 3; r++)
            t[r] = run_ranks(2, "dynamic 0");
        over = median3(t[0], t[1], t[2]) * 2 / NTASKS;
    }
    double ship = isnan(ship_seconds_per_byte) ? 0 : ship_seconds_per_byte;
    printf("farm overhead per task %.0f us; journal rewrite %.2f us per file recorded; shipping %.2f ns/byte\n",
           over * 1e6, journal_per_file * 1e6, ship * 1e9);
    printf("%-8s %5s %7s %9s %9s %8s %9s %9s %8s %10s\n", "runs", "P", "tasks", "mean (s)", "store(s)", "E",
           "writer", "E+jrnl", "writer", "bound");
    const int ps[] = {2, 64, 1024};
    struct {
        const char *name;
        const double *c;
        size_t n, files;
        double store, bytes, cpu;
    } sets[] = {{"ball", ball, nball, 3, store_ball, (double)bytes_ball, cpu_ball},
                {"spheres", sph, nsph, 4, store_sph, (double)bytes_sph, cpu_sph}};
    for (size_t s = 0; s < 2; s++) {
        for (size_t i = 0; i < 3; i++) {
            int p = ps[i];
            /* A study of 20 tasks a process: its points repeat the sweep's runs. */
            size_t n = (size_t)p * 20;
            n = (n + sets[s].n - 1) / sets[s].n * sets[s].n;
            double *c = malloc(n * sizeof *c), t1 = 0;
            for (size_t k = 0; k < n; k++) {
                c[k] = sets[s].c[k % sets[s].n];
                t1 += c[k];
            }
            qsort(c, n, sizeof *c, by_cost_desc);
            double busy, busyj, recv = ship * sets[s].bytes;
            double tp = simulate(c, n, p, recv, sets[s].store, 0, over, sets[s].cpu, &busy);
            double tpj = simulate(c, n, p, recv, sets[s].store, journal_per_file * (double)sets[s].files, over,
                                  sets[s].cpu, &busyj);
            double mean = t1 / (double)n, w = recv + sets[s].store;
            printf("%-8s %5d %7zu %9.4f %9.4f %8.3f %8.0f%% %9.3f %7.0f%% %10.3f\n", sets[s].name, p, n, mean,
                   sets[s].store, t1 / (p * tp), 100 * busy / tp, t1 / (p * tpj), 100 * busyj / tpj,
                   fmin(1.0, mean / ((double)p * w)));
            free(c);
        }
    }
    printf("(E = T1 / (P TP), T1 the sum of the run costs; E+jrnl: the journal rewritten whole after each "
           "result; writer: its busy share of TP; bound: mean / (P (store + receive)), the writer's limit)\n");
}

/* ---- 4: efficiency with 1 and 2 processes -------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void efficiency(void)
{
    /* Spin iterations per unit of cost: 2e5 (about 0.1 to 0.3 ms a unit). */
    const double iters = 2e5;
    char cmd[1024], args[64];
    snprintf(cmd, sizeof cmd, "%s rank spin %g", self, iters);
    snprintf(args, sizeof args, "spin %g", iters);
    /* Pairs run one after the other, so that each pair sees about the same load. */
    enum { PAIRS = 5 };
    double t1[PAIRS], t2[PAIRS], e[PAIRS], c1[PAIRS], c2[PAIRS], ec[PAIRS];
    for (int r = 0; r < PAIRS; r++) {
        t1[r] = run_number(cmd);
        c1[r] = last_child_cpu;
        t2[r] = mpirun ? run_ranks(2, args) : NAN;
        c2[r] = last_child_cpu;
        e[r] = t1[r] / (2 * t2[r]);
        ec[r] = c1[r] / c2[r];
    }
    /* The fixed cost of starting: mpirun and MPI_Init in two processes, zero-cost tasks. */
    double z[3];
    for (int r = 0; r < 3; r++) {
        run_ranks(2, "spin 0");
        z[r] = last_child_cpu;
    }
    double fixed = median3(z[0], z[1], z[2]);
    snprintf(cmd, sizeof cmd, "%s rank spin 0", self);
    run_number(cmd);
    double fixed1 = last_child_cpu;
    double la[3] = {NAN, NAN, NAN};
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &la[0], &la[1], &la[2]) != 3)
            la[0] = NAN;
        fclose(f);
    }
    printf("\n4. %d CPU-bound tasks (costs 1 to 100 units of %g spin iterations), 1 and 2 processes\n", NTASKS, iters);
    for (int r = 0; r < PAIRS; r++)
        printf("  one process %.3f s (CPU %.3f s), mpirun -np 2 %.3f s (CPU %.3f s, mpirun's included): "
               "T1/(2 T2) %.3f, CPU1/CPU2 %.3f\n", t1[r], c1[r], t2[r], c2[r], e[r], ec[r]);
    qsort(e, PAIRS, sizeof *e, by_value);
    qsort(ec, PAIRS, sizeof *ec, by_value);
    qsort(c1, PAIRS, sizeof *c1, by_value);
    qsort(c2, PAIRS, sizeof *c2, by_value);
    printf("medians: efficiency T1/(2 T2) %.3f, CPU1/CPU2 %.3f (the work the farm adds; rank 0 computes on a "
           "thread besides coordinating; load average %.2f %.2f %.2f)\n", e[PAIRS / 2], ec[PAIRS / 2], la[0], la[1],
           la[2]);
    printf("CPU of 200 zero-cost tasks: one process %.3f s, mpirun -np 2 %.3f s (starting mpirun and MPI); "
           "CPU1/CPU2 with that start-up removed from both: %.3f\n", fixed1, fixed,
           (c1[PAIRS / 2] - fixed1) / (c2[PAIRS / 2] - fixed));
}

/* ---- 5: a 200-run study with 1 and 2 processes ---------------------------------------------------- */

/* Wall seconds of a shell command (its CPU time, children's, in *cpu); NAN if it fails. */
static double timed(const char *cmd, double *cpu)
{
    double c0 = children_cpu(), t0 = pl_now_seconds();
    int rc = system(cmd);
    double t = pl_now_seconds() - t0;
    *cpu = children_cpu() - c0;
    return rc == 0 ? t : NAN;
}

static void study(void)
{
    /* 20 values of e x 10 of mu = 1e4 ... 1e12: 200 runs and 20 limit solutions. */
    const char *grid = "bouncing_ball --grid e=lin:0.5:0.95:20 --grid mu=1e4:1e12:10 --no-plots --quiet";
    enum { REPS = 5, WAYS = 5 };
    static const char *const name[WAYS] = {"one process, --jobs 1", "--jobs 2", "2 shards at once + merge",
                                           "mpirun -np 1", "mpirun -np 2"};
    double w[WAYS][REPS], c[WAYS][REPS];
    char cmd[4096], mpi[1024] = "";
    if (mpirun)
        snprintf(mpi, sizeof mpi, "%s --oversubscribe %s", mpirun, geteuid() == 0 ? "--allow-run-as-root" : "");
    for (int r = 0; r < REPS; r++) { /* interleaved: each round runs every way once */
        snprintf(cmd, sizeof cmd, "rm -rf %s/st_*", scratch);
        if (system(cmd) != 0)
            return;
        snprintf(cmd, sizeof cmd, "%s study %s --jobs 1 --out %s/st_one", penlim, grid, scratch);
        w[0][r] = timed(cmd, &c[0][r]);
        snprintf(cmd, sizeof cmd, "%s study %s --jobs 2 --out %s/st_jobs", penlim, grid, scratch);
        w[1][r] = timed(cmd, &c[1][r]);
        snprintf(cmd, sizeof cmd,
                 "%s study %s --jobs 1 --shard 1/2 --out %s/st_s1 & %s study %s --jobs 1 --shard 2/2 --out %s/st_s2 & "
                 "wait && %s merge %s/st_s1 %s/st_s2 --out %s/st_merged --no-plots --quiet",
                 penlim, grid, scratch, penlim, grid, scratch, penlim, scratch, scratch, scratch);
        w[2][r] = timed(cmd, &c[2][r]);
        for (int np = 1; np <= 2; np++) {
            snprintf(cmd, sizeof cmd, "%s -np %d %s study %s --out %s/st_mpi%d", mpi, np, penlim, grid, scratch, np);
            w[2 + np][r] = mpirun ? timed(cmd, &c[2 + np][r]) : NAN;
        }
    }
    printf("\n5. A 200-run study (bouncing_ball, 20 e x 10 mu = 1e4..1e12, 20 limit solutions), wall and CPU "
           "seconds, %d interleaved rounds\n", REPS);
    for (int k = 0; k < WAYS; k++) {
        printf("  %-26s", name[k]);
        for (int r = 0; r < REPS; r++)
            printf(" %.2f (%.2f)", w[k][r], c[k][r]);
        printf("\n");
        qsort(w[k], REPS, sizeof w[k][0], by_value);
    }
    printf("medians: efficiency T1 / (2 T2): --jobs 2 %.3f, 2 shards and merge %.3f, mpirun -np 2 against one process "
           "%.3f, against mpirun -np 1 %.3f (rank 0 coordinates, writes and computes on a thread)\n",
           w[0][REPS / 2] / (2 * w[1][REPS / 2]), w[0][REPS / 2] / (2 * w[2][REPS / 2]),
           w[0][REPS / 2] / (2 * w[4][REPS / 2]), w[3][REPS / 2] / (2 * w[4][REPS / 2]));
}

/* ---- 6: the study's phase 1 over the farm ------------------------------------------------------- */

/* "SECONDS FILES FAILED" from rank 0 of a study over the farm. */
static double run_study_farm(int np, int threads, const char *out, size_t *files)
{
    char cmd[2048], rm[1024];
    snprintf(rm, sizeof rm, "rm -rf %s", out);
    if (system(rm) != 0)
        return NAN;
    if (np > 1)
        snprintf(cmd, sizeof cmd, "%s -np %d --oversubscribe %s %s rank study %d %s", mpirun, np,
                 geteuid() == 0 ? "--allow-run-as-root" : "", self, threads, out);
    else
        snprintf(cmd, sizeof cmd, "%s rank study %d %s", self, threads, out);
    FILE *p = popen(cmd, "r");
    double t = NAN;
    size_t failed = 0;
    *files = 0;
    if (p && fscanf(p, "%lf %zu %zu", &t, files, &failed) != 3)
        t = NAN;
    if (p && pclose(p) != 0)
        t = NAN;
    return t;
}

static void study_farm_bench(void)
{
    enum { REPS = 3 };
    double t1[REPS], t2[REPS], e[REPS];
    size_t f1 = 0, f2 = 0;
    char out[512];
    snprintf(out, sizeof out, "%s/study_farm", scratch);
    for (int r = 0; r < REPS; r++) {
        t1[r] = run_study_farm(1, 1, out, &f1);
        t2[r] = mpirun ? run_study_farm(2, 1, out, &f2) : NAN;
        e[r] = t1[r] / (2 * t2[r]);
    }
    printf("\n6. The same study's phase 1 (220 tasks: pl_study_execute) over the farm, the writer storing every "
           "file (fsync)\n");
    for (int r = 0; r < REPS; r++)
        printf("  one process %.2f s, mpirun -np 2 %.2f s: T1/(2 T2) %.3f\n", t1[r], t2[r], e[r]);
    qsort(e, REPS, sizeof *e, by_value);
    printf("median efficiency %.3f (files stored: %zu and %zu; rank 0 computes on a thread besides coordinating "
           "and storing)\n", e[REPS / 2], f1, f2);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "rank") == 0)
        return rank_main(argc, argv);
    if (argc < 2) {
        fprintf(stderr, "usage: bench_farm PENLIM [MPIRUN]\n");
        return 2;
    }
    self = argv[0];
    penlim = argv[1];
    mpirun = argc >= 3 && argv[2][0] ? argv[2] : NULL;
    const char *parts = argc >= 4 ? argv[3] : "123456";
#ifndef PL_HAVE_MPI
    mpirun = NULL;
#endif
    snprintf(scratch, sizeof scratch, "/tmp/bench_farm_XXXXXX");
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        return 1;
    }
    printf("bench_farm: the task farm (src/cli/farm.c); %s\n", mpirun ? "with MPI" : "without MPI: parts 1 and 4 "
           "in one process only");
    if (mpirun && strchr(parts, '1'))
        balance();
    char cmd[512];
    if (strchr(parts, '2') || strchr(parts, '3')) {
        /* The sweeps first: their per-run costs feed the model, a ball's run is the writer's result. */
        nball = sweep_costs("ball", "bouncing_ball --mu 1e4:1e12:9", ball, 16);
        nsph = sweep_costs("spheres", "spheres --set config=3 --set N=24 --mu 1e4:1e8:5", sph, 16);
        writer();
        if (strchr(parts, '3'))
            model();
    }
    if (strchr(parts, '4'))
        efficiency();
    if (strchr(parts, '5'))
        study();
    if (strchr(parts, '6'))
        study_farm_bench();
    snprintf(cmd, sizeof cmd, "rm -rf %s", scratch);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_farm: could not remove %s\n", scratch);
    return 0;
}
