/* End-to-end tests of what penlim does with the resources it is given: memory that runs out (in
 * every thread, in the analysis, in the libraries it calls), files that cannot be read, numbers
 * that overflow, and the time budget --max-seconds over everything a command does.
 *
 * usage: test_resources PENLIM MODELS_DIR FAIL_ALLOC [budgets]
 * FAIL_ALLOC is tests/memory/fail_alloc.c built as a shared object ("none" under the sanitizers,
 * whose allocator it cannot replace: the memory tests are then skipped, as under any address-space
 * limit, which AddressSanitizer's reservations exceed).  "budgets" runs the time budget's tests
 * alone (tests/fresh_clock.sh). */
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"
#include "io/output.h"

static const char *models, *fail_alloc;

/* What a loaded machine may add to a time budget: the budget is read once per step, per 4096
 * numbers written, per 64 constraints checked; before, the commands below overran it by 5 to 20 s
 * (and check-model ran for minutes). */
#define BUDGET_MARGIN 4.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "ENV penlim ARGS" in dir (ENV: assignments, or a shell prefix such as "ulimit -v N;"), stdout and
 * stderr to files; the exit status, or 128 + the signal that killed it. */
static int run_with(const char *env, const char *args)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd %s && (%s %s %s) > stdout.txt 2> stderr.txt", dir, env, penlim, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + (WIFSIGNALED(rc) ? WTERMSIG(rc) : 0);
}

/* The last command's stderr (valid until the next call). */
static const char *err_text(void)
{
    static char *text;
    free(text);
    text = slurp("stderr.txt");
    return text ? text : "";
}

static int contains(const char *file, const char *text)
{
    char *s = slurp(file);
    int found = s && strstr(s, text);
    free(s);
    return found;
}

static void write_file(const char *name, const char *text)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ---- a directory as a command left it ---------------------------------------------------------- */

static json_t *load_json(const char *name)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return json_load_file(path, 0, NULL);
}

/* Every file under dir/sub (relative to it), but the lock. */
static size_t list_files(const char *sub, const char *rel, char names[][400], size_t cap, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%.300s%s%.380s", dir, sub, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || strcmp(e->d_name, ".penlim.lock") == 0)
            continue;
        char child[400], full[1400];
        snprintf(child, sizeof child, "%.120s%s%.256s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
            n = list_files(sub, child, names, cap, n);
        else if (n < cap)
            snprintf(names[n++], 400, "%s", child);
    }
    if (d)
        closedir(d);
    return n;
}

/* A CSV file whole: a header, then lines of as many fields, each line ended (blank lines, which
 * separate the blocks of a figure's data, are no rows). */
static int csv_complete(const char *name)
{
    char *s = slurp(name);
    int ok = s && *s && s[strlen(s) - 1] == '\n';
    long fields = -1;
    for (char *line = s; ok && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (*line == '\n')
            continue;
        long commas = 0;
        for (char *p = line; *p && *p != '\n'; p++)
            commas += *p == ',';
        ok = fields < 0 || commas == fields;
        fields = commas;
    }
    free(s);
    return ok;
}

/* What the budget or a failure left in dir/sub: the manifest lists exactly the files there (no
 * temporary, no journal), and every one is complete. */
static void check_intact(const char *sub, const char *what)
{
    static char names[4096][400];
    size_t n = list_files(sub, "", names, 4096, 0);
    char path[700];
    snprintf(path, sizeof path, "%.200s/manifest.json", sub);
    json_t *m = load_json(path);
    const json_t *listed = json_object_get(m, "files");
    CHECK(json_is_array(listed), "%s: %s/manifest.json lists its files", what, sub);
    size_t expected = json_array_size(listed) + 1; /* and the manifest */
    CHECK(n == expected, "%s: %zu files in %s, the manifest lists %zu", what, n, sub, expected - 1);
    for (size_t k = 0; k < json_array_size(listed); k++) {
        const char *f = json_string_value(json_array_get(listed, k));
        snprintf(path, sizeof path, "%.200s/%.400s", sub, f ? f : "");
        CHECK(f && exists(path), "%s: %s, listed, exists", what, path);
        if (f && strstr(f, ".csv"))
            CHECK(csv_complete(path), "%s: %s is complete", what, path);
        if (f && strstr(f, ".json")) {
            json_t *j = load_json(path);
            CHECK(j != NULL, "%s: %s is complete JSON", what, path);
            json_decref(j);
        }
    }
    for (size_t k = 0; k < n; k++)
        CHECK(names[k][0] != '.' && !strstr(names[k], "/."), "%s: no temporary or journal left (%s/%s)", what, sub,
              names[k]);
    json_decref(m);
}

/* ---- memory ------------------------------------------------------------------------------------- */

/* Whether a field (a JSON line, a CSV column name) holds what differs between runs of equal results:
 * wall times, and the right-hand-side evaluations (a cache of dense-output states that could not be
 * grown is re-integrated instead: the same states, more evaluations). */
static int varies(const char *text)
{
    return strstr(text, "wall_seconds") || strstr(text, "rhs_evals");
}

/* The text of a file without what differs from run to run (varies): such lines of a JSON file (and
 * a manifest's content hashes, of files holding them), such columns of a CSV file. */
static char *normalized(const char *name)
{
    char *s = slurp(name);
    if (!s)
        return NULL;
    char *out = malloc(strlen(s) + 1), *w = out;
    unsigned char skip[256] = {0}; /* the CSV columns left out (the first 256) */
    int csv = strstr(name, ".csv") != NULL, first = 1, in_hashes = 0;
    for (char *line = s; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line + 1) : strlen(line);
        char saved = line[len - 1];
        line[len - 1] = '\0'; /* the line alone, for strstr */
        if (csv && first) {
            size_t field = 0;
            for (char *f = line; f && field < sizeof skip; field++) {
                char *comma = strchr(f, ',');
                if (comma)
                    *comma = '\0';
                skip[field] = varies(f) != 0;
                if (comma)
                    *comma = ',';
                f = comma ? comma + 1 : NULL;
            }
        }
        int dropped = !csv && varies(line);
        /* a manifest's content hashes: of files holding wall times, so differing as those do */
        if (!csv && strstr(line, "\"content_hashes\": {"))
            in_hashes = 1;
        int hashes = in_hashes;
        if (in_hashes && strchr(line, '}'))
            in_hashes = 0;
        line[len - 1] = saved;
        if (dropped || hashes) {
            line += len;
            continue;
        }
        size_t field = 0;
        for (size_t k = 0; k < len; k++) {
            if (field >= sizeof skip || !skip[field])
                *w++ = line[k];
            if (line[k] == ',')
                field++;
        }
        first = 0;
        line += len;
    }
    *w = '\0';
    free(s);
    return out;
}

/* The counts of one scan: runs that crashed, completed, and files of completed runs that differ. */
typedef struct {
    int crashes, finished, wrong;
} scan_counts;

/* One run of a scan, made under `condition` into `lim` (exit status rc): no crash, and exit 0 with
 * the files of the reference run `ref` (its nref files in names), or exit 3 naming memory (it was exit
 * 2 for a model that could not be allocated, and a crash inside SUNDIALS, GSL, Siconos, jansson, or
 * the analysis of a half-allocated run). */
static void check_scanned_run(const char *label, const char *condition, int rc, const char *ref, const char *lim,
                              char (*names)[400], size_t nref, scan_counts *counts)
{
    char *err = slurp("stderr.txt");
    counts->crashes += rc >= 128;
    CHECK(rc == 0 || (rc == 3 && err && strstr(err, "memory")),
          "%s: %s: exit 0, or 3 for want of memory (got %d: %.300s)", label, condition, rc, err ? err : "");
    free(err);
    if (rc != 0)
        return;
    counts->finished++;
    for (size_t j = 0; j < nref; j++) {
        if (strstr(names[j], "compare_work.")) /* compare_work.csv: wall times as coordinates */
            continue;
        char a[700], b[700];
        snprintf(a, sizeof a, "%.280s/%.400s", ref, names[j]);
        snprintf(b, sizeof b, "%.280s/%.400s", lim, names[j]);
        char *ta = normalized(a), *tb = normalized(b);
        int same = ta && tb && strcmp(ta, tb) == 0;
        counts->wrong += !same;
        CHECK(same, "%s: %s (exit 0), %s as without it", label, condition, names[j]);
        free(ta);
        free(tb);
    }
}

/* Run "penlim ARGS --out LABEL_ref" once to measure the most memory it holds and the allocations it
 * makes (PENLIM_MEMORY_PEAK), then again under `steps` limits from 0 to 1.05 times that peak
 * (fail_alloc: an allocation beyond the limit fails, memory freed is available again, every thread
 * counted), and, with `singles`, under that many single failures spread over its allocations
 * (PENLIM_MEMORY_FAIL_AT: each of penlim's own allocations failing alone, the others succeeding, the
 * recovery paths a limit reaches only by chance).  prepare, if not NULL, is a shell command run in dir
 * before each run. */
static void memory_scan_with(const char *label, const char *args, int steps, int singles, const char *prepare)
{
    char env[2048], cmd[4096], ref[300], lim[300];
    snprintf(ref, sizeof ref, "%s_ref", label);
    snprintf(lim, sizeof lim, "%s_lim", label);
    if (prepare) {
        snprintf(cmd, sizeof cmd, "cd %s && %s %s", dir, prepare, ref);
        CHECK(system(cmd) == 0, "%s: prepared", label);
    }
    snprintf(env, sizeof env, "PENLIM_MEMORY_PEAK=peak.txt LD_PRELOAD=%s", fail_alloc);
    snprintf(cmd, sizeof cmd, "%s --out %s", args, ref);
    int rc = run_with(env, cmd);
    long peak = 0, refused = 0, allocations = 0;
    char *report = slurp("peak.txt");
    if (report)
        sscanf(report, "%ld %ld %ld", &peak, &refused, &allocations);
    free(report);
    CHECK(rc == 0 && peak > 0 && allocations > 0, "%s: 'penlim %s' runs (%d), holds %ld bytes at most and makes %ld allocations",
          label, args, rc, peak, allocations);
    static char names[4096][400];
    size_t nref = list_files(ref, "", names, 4096, 0);
    scan_counts counts = {0, 0, 0};
    for (int k = 0; k < steps + singles; k++) {
        char condition[128];
        if (k < steps) {
            /* half from nothing up, half about the peak, where a last allocation fails and what would
             * be left out of a file is the most */
            long limit = k < steps / 2 ? peak * k / (steps / 2)
                                       : peak * (80 + 25 * (k - steps / 2) / (steps - steps / 2)) / 100;
            snprintf(env, sizeof env, "PENLIM_MEMORY_LIMIT=%ld LD_PRELOAD=%s", limit, fail_alloc);
            snprintf(condition, sizeof condition, "under a limit of %ld bytes", limit);
        } else {
            long at = 1 + (allocations * (k - steps)) / singles;
            snprintf(env, sizeof env, "PENLIM_MEMORY_FAIL_AT=%ld LD_PRELOAD=%s", at, fail_alloc);
            snprintf(condition, sizeof condition, "its first allocation from the %ld-th failing alone", at);
        }
        if (prepare) {
            snprintf(cmd, sizeof cmd, "cd %s && rm -rf %s && %s %s", dir, lim, prepare, lim);
            CHECK(system(cmd) == 0, "%s: prepared", label);
        }
        snprintf(cmd, sizeof cmd, "%s --out %s --force", args, lim);
        rc = run_with(env, cmd);
        check_scanned_run(label, condition, rc, ref, lim, names, nref, &counts);
    }
    printf("%s: %d limits up to %ld bytes and %d single failures of %ld allocations: %d completed, %d crashed, "
           "%d wrong files\n",
           label, steps, peak, singles, allocations, counts.finished, counts.crashes, counts.wrong);
    CHECK(counts.crashes == 0, "%s: no crash under a memory limit or a failed allocation (%d)", label, counts.crashes);
}

static void memory_scan(const char *label, const char *args, int steps, const char *prepare)
{
    memory_scan_with(label, args, steps, 0, prepare);
}

/* The first address-space limit (ulimit -v, KB) under which penlim starts at all here: below it the
 * libraries cannot even be loaded (OpenBLAS reserves its thread buffers), which no program handles. */
static long smallest_start(void)
{
    for (long kb = 20000; kb <= 1000000; kb += 4000) {
        char env[64];
        snprintf(env, sizeof env, "ulimit -v %ld;", kb);
        if (run_with(env, "cases bouncing_ball") == 0)
            return kb;
    }
    return -1;
}

static void test_memory(void)
{
    /* A sweep over threads under an address-space limit (the reproducer: ulimit -v 100000 crashed in
     * Siconos's NM_new from the sliding force's LCP of the analysis, or in GSL's LU, in a thread that
     * could not get an arena of glibc's).  From where penlim starts to 44 MB more, twice each. */
    long base = smallest_start();
    CHECK(base > 0, "penlim starts under some address-space limit");
    int crashes = 0;
    for (long kb = base; base > 0 && kb <= base + 44000; kb += 4000)
        for (int again = 0; again < 2; again++) {
            char env[64];
            snprintf(env, sizeof env, "ulimit -v %ld;", kb);
            int rc = run_with(env, "sweep bouncing_ball --no-plots --out ulimit --force");
            char *err = slurp("stderr.txt");
            crashes += rc >= 128;
            CHECK(rc == 0 || (rc == 3 && err && strstr(err, "memory")),
                  "sweep under ulimit -v %ld: exit 0, or 3 for want of memory (got %d: %.300s)", kb, rc, err ? err : "");
            free(err);
        }
    printf("ulimit -v %ld to %ld KB: %d crashes\n", base, base + 44000, crashes);
    /* Under limits from nothing to all it needs, in every kind of work. */
    write_file("ball.csv", "t,q1,v1\n0,1,0\n0.2,0.8038,-1.962\n0.4515236409857309,0,-4.4294469180700204\n"
                           "0.4515236409857309,0,2.2147234590350102\n0.5,0.095835188552515,1.7391703771050302\n");
    memory_scan("corner", "run wedge --set f1=-10 --set f2=-10 --mu 1e4 --samples 100", 30, NULL);
    memory_scan("scheme", "run wedge --scheme moreau_jean --t-end 1", 25, NULL);
    memory_scan("limit", "limit wedge --set f1=-10 --set f2=-10 --samples 100", 25, NULL);
    memory_scan("sweep", "sweep bouncing_ball --mu 1e3:1e5:3 --t-end 2 --jobs 2 --no-plots", 30, NULL);
    /* One allocation failing alone, at points over all of a sweep's: the analysis of a run whose
     * events could not be allocated, and a solution whose arrays could not be, crashed when written. */
    memory_scan_with("single", "sweep bouncing_ball --mu 1e3:1e5:3 --t-end 2 --jobs 1 --no-plots", 0, 150, NULL);
    memory_scan("compare", "compare bouncing_ball --mu 1e4 --external ball.csv --t-end 2 --no-plots", 25, NULL);
    /* each run solved by a process of its own and read back here: a read back that ran out of memory
     * was reported as a solution missing ("cannot read back trajectory.csv"), memory not named */
    memory_scan("isolated", "sweep bouncing_ball --mu 1e3:1e5:3 --t-end 2 --jobs 1 --no-plots --isolate", 25, NULL);
    /* Runs read back (--resume) under a limit: a read that ran out of memory was taken for the end of
     * the file, and the run reused truncated. */
    char prepare[1024];
    snprintf(prepare, sizeof prepare,
             "{ test -d resumed_src || %s sweep bouncing_ball --mu 1e3:1e5:3 --t-end 2 --no-plots --quiet "
             "--out resumed_src; } && cp -r resumed_src",
             penlim);
    memory_scan("resume", "sweep bouncing_ball --mu 1e3:1e5:3 --t-end 2 --jobs 1 --no-plots --resume", 25, prepare);
}

/* ---- reading --------------------------------------------------------------------------------- */

static void test_read_errors(void)
{
    /* A file that cannot be read is a read error (exit 1, with the reason): /proc/self/mem is a
     * regular file whose first page cannot be read (EIO).  It was bad input (exit 2). */
    int rc = run("compare bouncing_ball --mu 1e4 --external /proc/self/mem --no-plots --out read_error");
    CHECK(rc == 1 && contains("stderr.txt", "/proc/self/mem:1: cannot read: Input/output error") &&
              count_lines(err_text()) == 1,
          "an external file that cannot be read: exit 1 and the reason (%d: %s)", rc, err_text());
    CHECK(!exists("read_error"), "nothing written");
    /* A FIFO (or a directory, a device) is not a file to read: it once blocked until a writer came. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && rm -f fifo.csv && mkfifo fifo.csv", dir);
    CHECK(system(cmd) == 0, "a FIFO made");
    rc = run_with("timeout 20", "compare bouncing_ball --mu 1e4 --external fifo.csv --no-plots --out fifo");
    CHECK(rc == 2 && contains("stderr.txt", "fifo.csv: not a regular file"), "a FIFO is refused (%d)", rc);
    rc = run("compare bouncing_ball --mu 1e4 --external . --no-plots --out fifo");
    CHECK(rc == 2 && contains("stderr.txt", ".: not a regular file"), "a directory is refused (%d)", rc);
    if (strcmp(fail_alloc, "none") == 0) {
        printf("read errors under a memory limit: skipped (sanitizers)\n");
        return;
    }
    /* A line memory cannot hold: 16 MB under a limit of 8 MB (a file that reads whole without it).
     * getline's out of memory sets no error flag, and the file was taken as ending before the line:
     * compare measured the rows above it (exit 0), or found a header-less file empty (exit 2); now
     * exit 3 naming the line. */
    snprintf(cmd, sizeof cmd,
             "cd %s && { printf 't,q1,v1,note\\n0,1,0,a\\n0.1,0.95,-0.98,b\\n0.2,0.8038,-1.962,'; head -c 16000000"
             " /dev/zero | tr '\\0' x; printf '\\n0.3,0.56,-2.9,d\\n'; } > long_line.csv && { printf 't,q1,v1,';"
             " head -c 16000000 /dev/zero | tr '\\0' x; printf '\\n0,1,0,a\\n0.2,0.8038,-1.962,b\\n'; }"
             " > long_header.csv",
             dir);
    CHECK(system(cmd) == 0, "the long lines written");
    char env[1024];
    snprintf(env, sizeof env, "PENLIM_MEMORY_LIMIT=8000000 LD_PRELOAD=%s", fail_alloc);
    rc = run_with(env, "compare bouncing_ball --mu 1e4 --external long_line.csv --t-end 2 --no-plots --out long");
    CHECK(rc == 3 && contains("stderr.txt", "long_line.csv:4: out of memory reading the line"),
          "a line beyond the memory: exit 3, naming it (%d: %s)", rc, err_text());
    CHECK(!exists("long"), "nothing written");
    rc = run_with(env, "compare bouncing_ball --mu 1e4 --external long_header.csv --t-end 2 --no-plots --out long");
    CHECK(rc == 3 && contains("stderr.txt", "long_header.csv:1: out of memory reading the line"),
          "a header beyond the memory: exit 3 (%d: %s)", rc, err_text());
    /* penlim plot of a run whose trajectory.csv has a header of 16 MB, then whose manifest is padded
     * with 16 MB of spaces (valid JSON), under 8 MB: out of memory, exit 3 naming the file.  The
     * header was taken as missing ("has no column q1", exit 2), the manifest as malformed (a
     * directory penlim did not write, exit 2). */
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 1 --samples 20 --out long_run --quiet") == 0, "a run");
    snprintf(cmd, sizeof cmd,
             "cd %s/long_run && { head -n 1 trajectory.csv | tr -d '\\n'; head -c 16000000 /dev/zero | tr '\\0' x;"
             " printf '\\n'; tail -n +2 trajectory.csv; } > t && mv t trajectory.csv",
             dir);
    CHECK(system(cmd) == 0, "a header of 16 MB");
    rc = run_with(env, "plot long_run");
    CHECK(rc == 3 && contains("stderr.txt", "out of memory reading long_run/trajectory.csv") &&
              count_lines(err_text()) == 1,
          "a header beyond the memory: exit 3 naming the file (%d: %s)", rc, err_text());
    CHECK(exists("long_run/manifest.json") && !exists("long_run/.penlim.journal"), "the directory left as it was");
    snprintf(cmd, sizeof cmd, "cd %s/long_run && head -c 16000000 /dev/zero | tr '\\0' ' ' >> manifest.json", dir);
    CHECK(system(cmd) == 0, "a manifest of 16 MB");
    rc = run_with(env, "plot long_run");
    CHECK(rc == 3 && contains("stderr.txt", "out of memory reading long_run/manifest.json") &&
              count_lines(err_text()) == 1,
          "a manifest beyond the memory: exit 3 naming it (%d: %s)", rc, err_text());
}

/* ---- numbers -------------------------------------------------------------------------------------- */

/* Every number in every file under dir/sub finite, or nan (CSV) and null (JSON) where undefined:
 * no "inf" anywhere. */
static int all_finite(const char *sub)
{
    static char names[4096][400];
    size_t n = list_files(sub, "", names, 4096, 0);
    int ok = n > 0;
    for (size_t k = 0; k < n; k++) {
        char path[700];
        snprintf(path, sizeof path, "%.280s/%.400s", sub, names[k]);
        char *s = slurp(path);
        if (s && strstr(s, "inf")) {
            fprintf(stderr, "%s holds an infinite number\n", path);
            ok = 0;
        }
        free(s);
    }
    return ok;
}

static void test_nonfinite(void)
{
    /* Velocities of 1.7e308: finite, but their L1 distance to the limit solution overflows.  It was
     * written as l1_v = inf (null in compare.json), status ok, exit 0. */
    write_file("huge_v.csv", "t,q1,v1\n0,1,1.7e308\n0.5,1,1.7e308\n1,1,1.7e308\n");
    int rc = run("compare bouncing_ball --external huge_v.csv --mu 1e4 --t-end 2 --no-plots --out huge_v");
    CHECK(rc == 3 && contains("stderr.txt", "the distance l1_v to the limit solution exceeds"),
          "an overflowing distance fails that solution (%d: %s)", rc, err_text());
    CHECK(all_finite("huge_v"), "no infinite number written");
    json_t *j = load_json("huge_v/compare.json");
    const char *status = json_string_value(json_object_get(json_array_get(json_object_get(j, "solutions"), 0), "status"));
    CHECK(status && strcmp(status, "failed") == 0, "compare.json: the external solution failed");
    json_decref(j);
    check_intact("huge_v", "an overflowing distance");
    /* Jumps of 3.4e308 in the velocity: the time transform Gamma (t plus the jumps) overflows, and
     * was written as gamma = inf, which penlim's own reader then refused. */
    write_file("huge_jump.csv", "t,q1,v1\n0,1,0\n0.4,0.2,1.7e308\n0.4,0.2,-1.7e308\n1,1,0\n");
    rc = run("compare bouncing_ball --external huge_jump.csv --mu 1e4 --t-end 2 --no-plots --out huge_jump");
    CHECK(rc == 2 && contains("stderr.txt", "Gamma (t plus the jumps) is not a finite number"),
          "an overflowing Gamma is bad input (%d: %s)", rc, err_text());
    CHECK(!exists("huge_jump"), "nothing written");
    /* Jumps of 1e300 (2e300 each): finite, and so is everything written; what penlim writes of the
     * file reads back (its squares overflowed, making Gamma infinite). */
    write_file("big_jump.csv", "t,q1,v1\n0,1,0\n0.4,0.2,1e300\n0.4,0.2,-1e300\n1,1,0\n");
    rc = run("compare bouncing_ball --external big_jump.csv --mu 1e4 --t-end 2 --no-plots --out big_jump");
    CHECK(rc == 0 || rc == 3, "jumps of 1e300 compared (%d: %s)", rc, err_text());
    CHECK(all_finite("big_jump"), "no infinite number written");
    rc = run("compare bouncing_ball --mu 1e4 --external big_jump/solutions/01_external/trajectory.csv --t-end 2 "
             "--no-plots --out big_jump_again");
    CHECK(rc == 0 || rc == 3, "what penlim wrote of the file reads back (%d: %s)", rc, err_text());
    /* The writers refuse an infinite number, wherever it comes from: the file is not written. */
    pl_output out;
    char root[600];
    snprintf(root, sizeof root, "%s/writers", dir);
    mkdir(root, 0777);
    pl_output_init(&out, root, 0644, NULL);
    pl_table t;
    pl_table_init(&t, 2);
    pl_error err;
    const double rows[2][2] = {{1.0, 2.0}, {3.0, INFINITY}};
    for (int r = 0; r < 2; r++)
        pl_table_append(&t, rows[r], &err);
    pl_status s = pl_write_csv(&out, NULL, "table.csv", "a,b", &t, &err);
    CHECK(s == PL_ERR_SOLVER && strstr(err.message, "infinite") && !exists("writers/table.csv"),
          "a CSV with an infinite number is refused (%d: %s)", s, err.message);
    json_t *o = json_pack("{s:o, s:[o, o]}", "a", pl_json_number(NAN), "b", pl_json_number(1.0),
                          pl_json_number(-INFINITY));
    s = pl_write_json(&out, NULL, "object.json", o, &err);
    CHECK(s == PL_ERR_SOLVER && strstr(err.message, "infinite number at b[1]") && !exists("writers/object.json"),
          "a JSON file with an infinite number is refused, naming where (%d: %s)", s, err.message);
    o = json_pack("{s:o, s:o}", "a", pl_json_number(NAN), "b", pl_json_number(2.5));
    CHECK(pl_write_json(&out, NULL, "object.json", o, &err) == PL_OK && contains("writers/object.json", "null"),
          "NaN is null (undefined), written");
    pl_table_free(&t);
    pl_output_free(&out);
}

/* ---- time budgets ---------------------------------------------------------------------------------- */

/* "penlim ARGS --out SUB" with --max-seconds `budget` among ARGS: it ends within the budget and the
 * margin, exit 3 with the budget named, and what it wrote intact. */
static void within_budget(const char *args, const char *sub, double budget)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s --out %s --force", args, sub);
    double t0 = now();
    int rc = run(cmd);
    double wall = now() - t0;
    char *err = slurp("stderr.txt");
    printf("penlim %s: %.2f s for a budget of %g s\n", cmd, wall, budget);
    CHECK(rc == 3 && err && strstr(err, "stopped after the time budget"), "'%s': stopped by its budget (%d: %.400s)",
          cmd, rc, err ? err : "");
    CHECK(wall <= budget + BUDGET_MARGIN, "'%s': within the budget %g s and the margin (%.1f s)", cmd, budget, wall);
    check_intact(sub, cmd);
    free(err);
}

/* compare with one solution whose files its budget stops: that solution fails ("writing its
 * files"), the others' files and the tables are written, as a sweep's runs.  An external file of a
 * model with 1000 constraints, stored dense (--contacts dense): read in tenths of a second, its
 * trajectory.csv (two numbers per constraint and row, 1.8e7 numbers) written in a second or so; the other solutions write a few thousand
 * numbers.  The budget starts at 1.5 s, halved if everything was written in time, doubled if the
 * set-up (the reading) did not fit, cut by a quarter if it stopped a file after the external's
 * trajectories, until the external's trajectory writing is what it stops.  compare
 * stopped writing at the first solution whose budget ran out: the solutions after it and the
 * tables were left out. */
static void test_compare_budget(void)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/floors_fall.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "the external file");
    if (!f)
        return;
    fputs("t,q1,q2,v1,v2\n", f);
    for (int i = 0; i < 9000; i++) {
        double t = 0.4 * i / 9000.0;
        fprintf(f, "%.17g,0,%.17g,0,%.17g\n", t, 1.0 - 0.5 * 9.81 * t * t, -9.81 * t);
    }
    fclose(f);
    double budget = 1.5;
    int rc = 0;
    char *err = NULL;
    /* the largest budget that ran out in the set-up, the smallest that let the trajectories be written:
     * the budget sought lies between (doubling and halving alone went back and forth between them on a
     * loaded machine whose set-up took longer than half the whole) */
    double set_up_overrun = 0.0, too_long = 0.0;
    for (int attempt = 0; attempt < 16; attempt++) {
        char args[2048];
        snprintf(args, sizeof args,
                 "compare --model %s/floors.so --no-isolate --set N=1000 --external floors_fall.csv --mu 1e4 "
                 "--samples 0 --t-end 0.4 --no-plots --out b_compare --force --contacts dense --max-seconds %g",
                 models, budget);
        rc = run(args);
        free(err);
        err = slurp("stderr.txt");
        printf("compare with an external file of 1.8e7 numbers to write, --max-seconds %g: exit %d\n", budget, rc);
        const char *at = err ? strstr(err, "01_external/") : NULL;
        int in_trajectory =
            at && (strncmp(at + 12, "trajectory.csv", 14) == 0 || strncmp(at + 12, "trajectory_s.csv", 16) == 0);
        if (rc == 3 && err && strstr(err, "during the set-up"))
            set_up_overrun = budget;
        else if (rc == 0 || (rc == 3 && at && !in_trajectory)) /* finished, or stopped after the trajectories */
            too_long = budget;
        else
            break;
        budget = set_up_overrun > 0.0 && too_long > 0.0 ? sqrt(set_up_overrun * too_long)
                 : set_up_overrun > 0.0                 ? 2.0 * set_up_overrun
                                                        : 0.5 * too_long;
    }
    /* the budget stops the writing of trajectory.csv or, on a faster machine, of trajectory_s.csv */
    char stopped[64] = "", stopped_path[128] = "";
    const char *in = err ? strstr(err, "01_external/") : NULL;
    if (in)
        sscanf(in + strlen("01_external/"), "%63[a-z_.]", stopped);
    snprintf(stopped_path, sizeof stopped_path, "b_compare/solutions/01_external/%s", stopped);
    CHECK(rc == 3 && err && strstr(err, "external file floors_fall.csv failed: writing its files: stopped after the "
                                        "time budget") &&
              (strcmp(stopped, "trajectory.csv") == 0 || strcmp(stopped, "trajectory_s.csv") == 0),
          "the external's files stopped by their budget: that solution failed (%d: %s)", rc, err ? err : "");
    free(err);
    json_t *j = load_json("b_compare/compare.json");
    const json_t *sols = json_object_get(j, "solutions");
    const char *ext = json_string_value(json_object_get(json_array_get(sols, 0), "status"));
    const char *why = json_string_value(json_object_get(json_array_get(sols, 0), "error"));
    const char *pen = json_string_value(json_object_get(json_array_get(sols, 1), "status"));
    CHECK(j && ext && strcmp(ext, "failed") == 0 && why && strstr(why, "writing its files") && pen &&
              strcmp(pen, "ok") == 0,
          "compare.json written: the external failed, writing its files; the penalized run ok");
    json_decref(j);
    CHECK(contains("b_compare/compare.csv", ",failed,solutions/01_external,") &&
              contains("b_compare/compare.csv", ",ok,solutions/02_penalty_mu_1e4,"),
          "compare.csv written, with the same statuses");
    CHECK(exists("b_compare/solutions/02_penalty_mu_1e4/trajectory.csv") &&
              exists("b_compare/solutions/02_penalty_mu_1e4/summary.json") && exists("b_compare/limit/summary.json") &&
              stopped[0] && !exists(stopped_path),
          "the other solutions' files written, not the stopped one's");
    CHECK(contains("b_compare/compare_config.gp", "dirs = 'solutions/02_penalty_mu_1e4'"),
          "the figures draw the solutions whose files were written");
    check_intact("b_compare", "compare with a solution stopped writing");
}

static void test_budgets(void)
{
    /* The reproducers, each of which overran --max-seconds 3.5 to 12 times (writing, mostly: 3.3
     * million samples, 90,000 episodes, 1.7e7 values of 100 disks' 2000 constraints). */
    within_budget("run bouncing_ball --samples 3300000 --max-seconds 1", "b_samples", 1.0);
    within_budget("run bouncing_ball --t-end 1e8 --set e=1 --samples 0 --max-seconds 2", "b_long", 2.0);
    within_budget("limit vibrating_table --t-end 1e12 --max-seconds 3", "b_table", 3.0);
    within_budget("limit spheres --set config=3 --set N=60 --max-seconds 4", "b_spheres", 4.0);
    /* 10^4 constraints: the search for crossings missed within a step, over every sample it spans,
     * ran 7 s past the budget.  4000 samples: a run of 11 s unbounded (400 now end within 2 s). */
    char args[1024];
    snprintf(args, sizeof args, "run --model %s/floors.so --mu 1e4 --samples 4000 --max-output 1e9 --max-seconds 2",
             models);
    within_budget(args, "b_floors", 2.0);
    /* A sweep: each run, and the limit solution, within the budget from its own start, then its files
     * within it from the start of their writing (runs in parallel): 3 budgets and the margin. */
    within_budget("sweep vibrating_table --t-end 1e5 --mu 1e2,2e2 --max-seconds 1 --no-plots --jobs 2", "b_sweep", 3.0);
    test_compare_budget();
    /* A solve stopped by its budget keeps the time to write what it found: the files are there.  (A
     * budget of 0.5 s was sometimes spent by the set-up alone on a loaded machine, which then writes
     * nothing, as it should: 2 s, and a run of 3e6 impacts that cannot end within it.) */
    int rc = run("run bouncing_ball --set e=1 --mu 1e4 --t-end 1e7 --samples 0 --max-seconds 2 --out b_kept");
    CHECK(rc == 3 && exists("b_kept/trajectory.csv") && exists("b_kept/trajectory_s.csv") &&
              exists("b_kept/summary.json"),
          "a solve stopped by its budget: its files written (%d)", rc);
    check_intact("b_kept", "a solve stopped by its budget");
    /* check-model: 100 disks (5350 constraints, 200 coordinates) were checked in O(m n^3) gap
     * evaluations and O(m^2) lookups: not done after 120 s.  Now within a budget, and linear. */
    double t0 = now();
    rc = run("check-model spheres --set config=3 --set N=100 --max-seconds 1");
    double wall = now() - t0;
    CHECK((rc == 3 && contains("stderr.txt", "stopped after the time budget of 1 s (max_seconds) checking")) ||
              rc == 0,
          "check-model within its budget: stopped (3) or done (%d)", rc);
    CHECK(wall <= 1.0 + BUDGET_MARGIN, "check-model within the budget and the margin (%.1f s)", wall);
    rc = run("check-model spheres --set config=3 --set N=100 --max-seconds 60");
    char *out = slurp("stdout.txt");
    CHECK(rc == 0 && count_lines(out) == 3 + 2 + 5 * 5350 && contains("stdout.txt", "every derivative agrees"),
          "check-model of 100 disks: every derivative of the 5350 constraints agrees, within 60 s (%d)", rc);
    free(out);
    snprintf(args, sizeof args, "check-model --model %s/floors.so --set N=100000 --max-seconds 60", models);
    rc = run(args);
    CHECK(rc == 0, "check-model of 10^5 constraints within 60 s (%d; before: an hour, quadratic)", rc);
    /* The sparse check still finds what it is for: a gradient that leaves out an entry. */
    snprintf(args, sizeof args, "check-model --model %s/floors.so --set N=1000 --set tilt=0.1 --set wrong=1", models);
    rc = run(args);
    CHECK(rc == 2 && contains("stderr.txt", "1000 derivatives of floors disagree"),
          "a missing gradient entry is found in every gap (%d: %s)", rc, err_text());
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 4 || (argc > 4 && strcmp(argv[4], "budgets") != 0)) {
        fprintf(stderr, "usage: test_resources PENLIM MODELS_DIR FAIL_ALLOC|none [budgets]\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_resources: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    static char models_path[4096], fail_alloc_path[4096];
    if (!realpath(argv[2], models_path) || (strcmp(argv[3], "none") != 0 && !realpath(argv[3], fail_alloc_path))) {
        fprintf(stderr, "test_resources: %s or %s not found\n", argv[2], argv[3]);
        return 2;
    }
    models = models_path;
    fail_alloc = strcmp(argv[3], "none") == 0 ? "none" : fail_alloc_path;
    snprintf(dir, sizeof dir, "/tmp/penlim-resources-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    if (argc > 4)
        test_budgets();
    else {
        test_read_errors();
        test_nonfinite();
        test_budgets();
        if (strcmp(fail_alloc, "none") != 0)
            test_memory();
        else
            printf("memory limits: skipped (AddressSanitizer reserves more address space than any ulimit -v "
                   "allows, and its allocator cannot be replaced)\n");
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    err_text(); /* releases the last one */
    return check_finish("test_resources");
}
