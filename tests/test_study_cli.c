/* penlim study and merge end to end: a small grid with 1 and 2 jobs and as 3 shards merged gives
 * the same data (study.csv and study.json but for the measured times, and every run's files); a study
 * killed during its runs and resumed gives them too; every bad input is refused (exit 2, one line,
 * nothing written); study.csv agrees with `penlim sweep` run by hand at a point; and the corner at
 * 135 degrees gives the rigid outcomes outside the closed-form thresholds of s = eps sqrt(k mu)
 * (docs/cases.md, derived again below); Newton's cradle at N = 2 is Moreau's law and at N = 3 is not;
 * the wedge near its corner meets the limit above the derived d sqrt(k mu) = 4.556 and not below
 * (docs/studies.md). */
#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"

/* ---- reading the files back ---- */

typedef struct {
    char **cell; /* rows x cols, row 0 the header */
    size_t rows, cols;
    char *text;
} csv;

static int csv_load(const char *name, csv *c)
{
    memset(c, 0, sizeof *c);
    if (!(c->text = slurp(name)))
        return 0;
    size_t lines = (size_t)count_lines(c->text), commas = 0;
    for (const char *p = c->text; *p && *p != '\n'; p++)
        commas += *p == ',';
    c->cols = commas + 1;
    c->cell = calloc((lines + 1) * c->cols, sizeof *c->cell);
    char *p = c->text;
    for (size_t r = 0; r < lines && *p; r++, c->rows++)
        for (size_t k = 0; k < c->cols; k++) {
            c->cell[r * c->cols + k] = p;
            p += strcspn(p, ",\n");
            int end = *p == '\n';
            if (*p)
                *p++ = '\0';
            if (end)
                break;
        }
    return 1;
}

static int csv_col(const csv *c, const char *name)
{
    for (size_t k = 0; k < c->cols; k++)
        if (c->cell[k] && strcmp(c->cell[k], name) == 0)
            return (int)k;
    return -1;
}

static const char *csv_at(const csv *c, size_t row, const char *name)
{
    int k = csv_col(c, name);
    return k >= 0 && row < c->rows && c->cell[row * c->cols + (size_t)k] ? c->cell[row * c->cols + (size_t)k] : "";
}

static void csv_free(csv *c)
{
    free(c->cell);
    free(c->text);
}

/* The JSON without the members whose names say wall or seconds (measured times). */
static void strip_times(json_t *j)
{
    if (json_is_array(j))
        for (size_t k = 0; k < json_array_size(j); k++)
            strip_times(json_array_get(j, k));
    if (!json_is_object(j))
        return;
    const char *key;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(j, tmp, key, v) {
        if (strstr(key, "wall") || strstr(key, "seconds"))
            json_object_del(j, key);
        else
            strip_times(v);
    }
}

/* dir/NAME's JSON, its times stripped. */
static json_t *json_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_t *j = json_load_file(path, 0, NULL);
    strip_times(j);
    return j;
}

/* study.csv of two directories equal but for the wall_seconds column. */
static int same_csv(const char *a, const char *b)
{
    csv x, y;
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/study.csv", a);
    snprintf(pb, sizeof pb, "%s/study.csv", b);
    int ok = csv_load(pa, &x) & csv_load(pb, &y);
    ok = ok && x.rows == y.rows && x.cols == y.cols && x.rows > 1;
    int wall = ok ? csv_col(&x, "wall_seconds") : -1;
    for (size_t k = 0; ok && k < x.rows * x.cols; k++)
        if ((int)(k % x.cols) != wall && strcmp(x.cell[k] ? x.cell[k] : "", y.cell[k] ? y.cell[k] : "") != 0) {
            fprintf(stderr, "  %s vs %s: row %zu column %zu: %s vs %s\n", pa, pb, k / x.cols, k % x.cols, x.cell[k],
                    y.cell[k]);
            ok = 0;
        }
    csv_free(&x);
    csv_free(&y);
    return ok;
}

/* A JSON file's text with the values of members whose names say wall or seconds (a number or null)
 * left out, the rest byte for byte. */
static char *json_text_without_times(const char *path)
{
    char *t = slurp(path);
    if (!t)
        return NULL;
    char *w = t;
    for (const char *r = t; *r;) {
        if (*r != '"') {
            *w++ = *r++;
            continue;
        }
        const char *end = r + 1; /* the string's end (penlim's names hold no escapes) */
        while (*end && *end != '"')
            end += end[0] == '\\' && end[1] ? 2 : 1;
        size_t len = (size_t)(*end ? end + 1 - r : end - r);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)len, r);
        memmove(w, r, len);
        w += len;
        r += len;
        if (*r == ':' && (strstr(name, "wall") || strstr(name, "seconds"))) {
            *w++ = *r++;
            while (*r == ' ')
                *w++ = *r++;
            r += strncmp(r, "null", 4) == 0 ? 4 : strspn(r, "-+.0123456789eE");
        }
    }
    *w = '\0';
    return t;
}

/* Two JSON files byte for byte but for the measured times. */
static int same_json(const char *a, const char *b)
{
    char *x = json_text_without_times(a), *y = json_text_without_times(b);
    int ok = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return ok;
}

static int same_bytes(const char *a, const char *b)
{
    char *x = slurp(a), *y = slurp(b);
    int ok = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return ok;
}

/* Two study directories (in dir) hold the same data: study.csv, study.json, and every run's and limit
 * solution's files (times apart). */
static int same_study(const char *a, const char *b)
{
    char pa[512], pb[512];
    int ok = same_csv(a, b);
    snprintf(pa, sizeof pa, "%s/study.json", a);
    snprintf(pb, sizeof pb, "%s/study.json", b);
    ok = ok && same_json(pa, pb);
    CHECK(ok, "%s and %s: study.csv and study.json", a, b);
    snprintf(pa, sizeof pa, "%s/manifest.json", a);
    json_t *m = json_file(pa);
    json_t *files = json_object_get(m, "files");
    size_t compared = 0;
    for (size_t k = 0; k < json_array_size(files); k++) {
        const char *f = json_string_value(json_array_get(files, k));
        if (strncmp(f, "runs/", 5) != 0 && strncmp(f, "limits/", 7) != 0)
            continue;
        snprintf(pa, sizeof pa, "%s/%s", a, f);
        snprintf(pb, sizeof pb, "%s/%s", b, f);
        int same = strstr(f, ".json") ? same_json(pa, pb) : same_bytes(pa, pb);
        CHECK(same, "%s: %s as in %s", b, f, a);
        ok = ok && same;
        compared++;
    }
    CHECK(compared > 0, "%s lists its runs' files", a);
    json_decref(m);
    return ok;
}

/* stderr is one line beginning "penlim CMD: " and containing what. */
static void one_line(const char *cmd, const char *what)
{
    char *e = slurp("stderr.txt"), prefix[64];
    snprintf(prefix, sizeof prefix, "penlim %s: ", cmd);
    CHECK(e && count_lines(e) == 1 && strncmp(e, prefix, strlen(prefix)) == 0 && strstr(e, what),
          "one line naming '%s': %s", what, e ? e : "(none)");
    free(e);
}

/* ---- the tests ---- */

static const char grid[] = "corner --grid eps=-0.3,0.25 --grid mu=1e4:1e6:3 --set angle=135";

static void test_same_data(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "study %s --jobs 1 --out one --quiet", grid);
    CHECK(run(cmd) == 0, "study with 1 job");
    snprintf(cmd, sizeof cmd, "study %s --jobs 2 --out two --quiet", grid);
    CHECK(run(cmd) == 0, "study with 2 jobs");
    for (int i = 1; i <= 3; i++) {
        snprintf(cmd, sizeof cmd, "study %s --jobs 1 --shard %d/3 --out shard%d --quiet", grid, i, i);
        CHECK(run(cmd) == 0, "shard %d of 3", i);
        char csv_name[32];
        snprintf(csv_name, sizeof csv_name, "shard%d/study.csv", i);
        CHECK(!exists(csv_name), "a shard writes no study.csv");
    }
    CHECK(run("merge shard3 shard1 shard2 --out merged --jobs 2 --quiet") == 0, "merge of the 3 shards");
    CHECK(same_study("one", "two"), "1 and 2 jobs: the same data");
    CHECK(same_study("one", "merged"), "1 job and 3 shards merged: the same data");
    char a[300];
    /* the shards split the tasks between them: each holds some, none all */
    for (int i = 1; i <= 3; i++) {
        snprintf(a, sizeof a, "shard%d/manifest.json", i);
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, a);
        json_t *m = json_load_file(path, 0, NULL);
        size_t n = json_array_size(json_object_get(json_object_get(m, "shard"), "tasks"));
        CHECK(n >= 1 && n < 8, "shard %d holds %zu of the 8 tasks", i, n);
        json_decref(m);
    }
    /* a merged study is complete: resuming it recomputes nothing */
    snprintf(cmd, sizeof cmd, "study %s --jobs 1 --out merged --resume", grid);
    CHECK(run(cmd) == 0, "resume of the merged study");
    char *e = slurp("stderr.txt");
    CHECK(e && strstr(e, "8 of 8 tasks"), "every task reused: %s", e ? e : "");
    free(e);
}

/* The study's row of a point as `penlim sweep` at that point gives it, column by column. */
static void test_against_sweep(void)
{
    CHECK(run("sweep corner --set angle=135 --set eps=0.25 --mu 1e4:1e6:3 --out sweep --no-plots --quiet --jobs 1") == 0,
          "sweep by hand");
    csv s, w;
    CHECK(csv_load("one/study.csv", &s) && csv_load("sweep/sweep.csv", &w), "both tables");
    size_t compared = 0;
    for (size_t r = 1; r < s.rows; r++) {
        if (strcmp(csv_at(&s, r, "eps"), "0.25") != 0)
            continue;
        for (size_t k = 1; k < w.rows; k++) {
            if (strcmp(csv_at(&w, k, "mu"), csv_at(&s, r, "mu")) != 0)
                continue;
            for (size_t c = 1; c < w.cols; c++) {
                const char *name = w.cell[c];
                if (strcmp(name, "wall_seconds") == 0)
                    continue;
                CHECK(strcmp(csv_at(&s, r, name), csv_at(&w, k, name)) == 0, "mu %s, %s: study %s, sweep %s",
                      csv_at(&w, k, "mu"), name, csv_at(&s, r, name), csv_at(&w, k, name));
                compared++;
            }
        }
    }
    CHECK(compared == 3 * 27, "every column of the 3 runs compared (%zu)", compared);
    csv_free(&s);
    csv_free(&w);
}

static int count_summaries(const char *study)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/runs", dir, study);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char f[512];
        snprintf(f, sizeof f, "%.64s/runs/%.200s/summary.json", study, e->d_name);
        n += e->d_name[0] != '.' && exists(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* Killed (SIGKILL) once some runs are written, then resumed: the same data as the study run whole. */
static void test_kill_resume(void)
{
    const char *args = "study bouncing_ball --t-end 100 --grid mu=1e5,1e7,1e9 --grid e=lin:0.9:0.95:6 --jobs 1";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --out whole --quiet", args);
    CHECK(run(cmd) == 0, "the study whole");
    char path[512];
    snprintf(path, sizeof path, "%s/killed", dir);
    pid_t pid = fork();
    if (pid == 0) {
        CHECK(chdir(dir) == 0, "chdir");
        execl(penlim, penlim, "study", "bouncing_ball", "--t-end", "100", "--grid", "mu=1e5,1e7,1e9", "--grid",
              "e=lin:0.9:0.95:6", "--jobs", "1", "--quiet", "--out", "killed", (char *)NULL);
        _exit(127);
    }
    int seen = 0, finished = 0;
    for (int k = 0; k < 20000 && (seen = count_summaries("killed")) < 4; k++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            finished = 1;
            break;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (!finished) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    CHECK(finished || !exists("killed/manifest.json"), "killed before its manifest (%d runs written)", seen);
    if (finished)
        printf("test_study_cli: note: the study finished before it could be killed\n");
    snprintf(cmd, sizeof cmd, "%s --out killed --resume", args);
    CHECK(run(cmd) == 0, "resumed");
    char *e = slurp("stderr.txt");
    int reused = -1;
    const char *r = e ? strstr(e, "--resume: ") : NULL;
    if (r)
        reused = atoi(r + 10);
    CHECK(reused >= (seen > 0 ? 1 : 0), "the resume reused what the killed study completed (%d)", reused);
    free(e);
    CHECK(same_study("whole", "killed"), "killed and resumed: the same data as the study whole");
}

/* ---- under MPI (where mpirun exists and penlim was built with MPI: argv[2]) ---- */

static const char *mpirun;

/* "mpirun -np NP penlim ARGS" in dir, as run(), within a timeout (a job that hangs fails the test).
 * The processes' private directories are made in dir/tmp (TMPDIR), not /dev/shm: what a killed job
 * leaves there (docs/usage.md) goes with the test's directory. */
static int run_mpi(int np, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd %s && TMPDIR=%s/tmp timeout 300 %s -np %d --oversubscribe %s %s %s > stdout.txt "
             "2> stderr.txt", dir, dir, mpirun, np, geteuid() == 0 ? "--allow-run-as-root" : "", penlim, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int count_prefixed(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, prefix, strlen(prefix)) == 0;
    return n;
}

/* mpirun -np 3 (1 and 2 threads a process) gives the data one process gives; a bad input is
 * refused by every process, penlim's line printed once; a job killed during its runs (mpirun
 * TERMinated: it ends every process) and resumed under mpirun gives the data of the study whole. */
static void test_mpi(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "study %s --out mpi3 --quiet", grid);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    CHECK(mkdir(tmp, 0700) == 0, "the processes' TMPDIR");
    CHECK(run_mpi(3, cmd) == 0, "mpirun -np 3 study");
    CHECK(same_study("one", "mpi3"), "1 process and mpirun -np 3: the same data");
    DIR *t = opendir(tmp);
    int left = 0;
    for (struct dirent *e; t && (e = readdir(t));)
        left += strncmp(e->d_name, "penlim-farm-", 12) == 0;
    if (t)
        closedir(t);
    CHECK(t && left == 0, "mpirun -np 3: the processes removed their private directories (%d left)", left);
    snprintf(cmd, sizeof cmd, "study %s --jobs 2 --out mpi3j2 --quiet", grid);
    CHECK(run_mpi(3, cmd) == 0, "mpirun -np 3 study --jobs 2");
    CHECK(same_study("one", "mpi3j2"), "1 process and mpirun -np 3 with 2 threads each: the same data");

    CHECK(run_mpi(3, "study corner --grid nosuch=1,2 --out mpibad") == 2, "bad input under mpirun: exit 2");
    char *e = slurp("stderr.txt");
    CHECK(count_prefixed(e, "penlim study: ") == 1 && strstr(e, "nosuch"), "penlim's line once: %s", e ? e : "");
    free(e);
    CHECK(!exists("mpibad"), "bad input under mpirun: nothing written");
    /* processes that planned different studies (one node's settings differ: an MPMD launch here) */
    snprintf(cmd, sizeof cmd,
             "cd %s && TMPDIR=%s/tmp timeout 300 %s --oversubscribe %s -np 1 %s study bouncing_ball --grid e=0.3,0.5,0.7 "
             "--out mpimixed : -np 1 %s study bouncing_ball --grid e=0.3,0.5 --out mpimixed > stdout.txt 2> stderr.txt",
             dir, dir, mpirun, geteuid() == 0 ? "--allow-run-as-root" : "", penlim, penlim);
    int rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "different plans under mpirun: exit 2 (%d)", rc);
    e = slurp("stderr.txt");
    CHECK(count_prefixed(e, "penlim study: ") == 1 && strstr(e, "differ in the study they planned"),
          "different plans: penlim's line once: %s", e ? e : "");
    free(e);
    CHECK(!exists("mpimixed"), "different plans: nothing written");
    CHECK(run_mpi(2, "run bouncing_ball --out mpirun_run") == 2, "run under mpirun -np 2: refused");
    e = slurp("stderr.txt");
    CHECK(count_prefixed(e, "penlim run: ") == 1 && strstr(e, "only 'penlim study'"), "refused once: %s", e ? e : "");
    free(e);
    CHECK(!exists("mpirun_run"), "run under mpirun: nothing written");

    const char *args = "study bouncing_ball --t-end 100 --grid mu=1e5,1e7,1e9 --grid e=lin:0.9:0.95:6";
    snprintf(cmd, sizeof cmd, "cd %s && TMPDIR=%s/tmp exec %s -np 3 --oversubscribe %s %s %s --quiet --out mpikilled "
             "> /dev/null 2>&1", dir, dir, mpirun, geteuid() == 0 ? "--allow-run-as-root" : "", penlim, args);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int seen = 0, finished = 0;
    for (int k = 0; k < 60000 && (seen = count_summaries("mpikilled")) < 4; k++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            finished = 1;
            break;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (!finished) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    if (finished)
        printf("test_study_cli: note: the MPI study finished before it could be killed\n");
    CHECK(finished || !exists("mpikilled/manifest.json"), "killed before its manifest (%d runs written)", seen);
    snprintf(cmd, sizeof cmd, "%s --out mpikilled --resume", args);
    CHECK(run_mpi(2, cmd) == 0, "resumed under mpirun -np 2");
    e = slurp("stderr.txt");
    const char *r = e ? strstr(e, "--resume: ") : NULL;
    CHECK(r && atoi(r + 10) >= (seen > 0 ? 1 : 0), "the resume reused what the killed job stored: %s", e ? e : "");
    free(e);
    CHECK(same_study("whole", "mpikilled"), "killed under MPI and resumed: the same data as the study whole");
}

static void bad(const char *args, const char *cmd, const char *what)
{
    char line[1024];
    snprintf(line, sizeof line, "%s --out bad", args);
    CHECK(run(line) == 2, "%s: exit 2", args);
    one_line(cmd, what);
    CHECK(!exists("bad"), "%s: nothing written", args);
}

static void test_bad_input(void)
{
    bad("study corner --grid nosuch=1,2", "study", "nosuch");
    bad("study corner --grid eps=0.1 --grid eps=0.2", "study", "given twice");
    bad("study corner --grid mu=1e4,1e6 --mu 1e5", "study", "both an option");
    bad("study corner --grid eps=", "study", "no values");
    bad("study corner --grid eps=0.1,nan", "study", "not a finite number");
    bad("study corner --grid eps=0.1,inf", "study", "not a finite number");
    bad("study corner --grid eps=lin:-0.5:0.5:1001 --grid mu=1e4:1e8:1000", "study", "more than 1000000");
    bad("study corner --grid eps=0.1,2", "study", "eps = 2");
    /* values named as written (0.1, not 0.10000000000000001) */
    bad("study corner --grid xi=0.1,0.2 --set e=0.5", "study", "--grid xi = 0.1: ");
    bad("study corner --grid eps=0.3,0.1,0.3", "study", "the value 0.3 is repeated");
    bad("study corner --grid eps=0.1,0.7 --grid angle=135,50", "study", "at eps = 0.7, angle = 50: ");
    bad("study corner --grid h=0.1,0.01", "study", "--scheme");
    /* each value admissible with the others' first, not together: (eps, angle) = (0.5, 60) starts
     * outside the corner (G2 = 0.366 - 0.866 eps < 0) */
    bad("study corner --grid eps=0,0.5 --grid angle=135,60", "study", "eps = 0.5, angle = 60");
    bad("study corner --grid eps=0.1,0.2 --grid angle=90,100,110 --zip", "study", "--zip");
    bad("study corner", "study", "no --grid");
    bad("study corner --grid eps=0.1,0.2 --shard 4/3", "study", "--shard");
    bad("study corner --grid eps=0.1,0.2 --shard 0/3", "study", "--shard");
    bad("study corner --grid eps=0.1,0.2 --shard 1", "study", "--shard");
    bad("study corner --grid eps=0.1,0.2 --map nosuch", "study", "--map");
    bad("study corner --grid eps=0.1,0.2 --grid mu=1e4,1e5 --map-axes eps,angle", "study", "--map-axes");
    /* merge: only the shards of one study, each once, all of them */
    CHECK(run("merge shard1 shard2 shard3") == 2, "merge without --out");
    one_line("merge", "missing --out");
    bad("merge one two", "merge", "not a shard");
    bad("merge shard1 shard2", "merge", "3 shards, 2 given");
    bad("merge shard1 shard1 shard2", "merge", "both shard 1");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "study %s --grid t-end=1.5 --shard 3/3 --out other3 --quiet", grid);
    CHECK(run(cmd) == 0, "a shard of another study");
    bad("merge shard1 shard2 other3", "merge", "not shards of one study");
    bad("merge shard1 shard2 nosuchdir", "merge", "nosuchdir");
    /* a shard's file changed since it was written: refused as it is copied */
    snprintf(cmd, sizeof cmd, "cd %s && cp -r shard1 shard1x && for f in shard1x/runs/*/trajectory.csv; do "
             "echo 1 >> $f; break; done", dir);
    CHECK(system(cmd) == 0, "a shard altered");
    CHECK(run("merge shard1x shard2 shard3 --out altered --quiet") == 2, "merge of an altered shard: exit 2");
    one_line("merge", "has changed since penlim wrote it");
    CHECK(!exists("altered"), "an altered shard: nothing written");
    snprintf(cmd, sizeof cmd, "cd %s && cp -r shard1 shard1m && for f in shard1m/runs/*/summary.json; do "
             "rm $f; break; done", dir);
    CHECK(system(cmd) == 0, "a shard's file removed");
    bad("merge shard1m shard2 shard3", "merge", "is missing");
    /* a shard naming a model compiled apart: never loaded from the path it gives */
    snprintf(cmd, sizeof cmd, "cd %s && cp -r shard1 shard1l && cp -r shard2 shard2l && cp -r shard3 shard3l && "
             "for d in shard1l shard2l shard3l; do python3 -c \"import json,sys; m=json.load(open(sys.argv[1])); "
             "m['model']={'file':'/nonexistent/evil.so','content_hash':'0'}; json.dump(m,open(sys.argv[1],'w'))\" "
             "$d/manifest.json; done", dir);
    CHECK(system(cmd) == 0, "shards naming a model file");
    bad("merge shard1l shard2l shard3l", "merge", "--model FILE");
    bad("merge shard1 shard2 shard3 --model /nonexistent/evil.so", "merge", "built-in case");
}

/* Derived from the case's definition (docs/cases.md): unit mass from (-1 + eps, -1) at velocity (1, 1),
 * G1 = -y, G2 = -(x + y)/sqrt(2) at 135 degrees, e = 1, stiffness mu k on wall 1 and mu k2 on wall 2.
 * In X = sqrt(k mu) q, S = sqrt(k mu)(t - 1), s = eps sqrt(k mu), the equations are
 * X'' = -sum_i r_i min(n_i . X, 0) n_i with r_1 = 1, r_2 = k2/k = w^2.  For s <= -pi, wall 1 holds the
 * mass over S in [0, pi] at X = (s + S, sin S), so x + y = (s + S + sin S)/sqrt(k mu) <= (s + pi)/sqrt(k mu)
 * <= 0 (S + sin S increases to pi) and wall 2 is never touched: v = (1, -1) exactly.  For s > 0 wall 2
 * is reached first (at S = -s/2, X = (s/2, -s/2)); alone, it reverses the normal velocity sqrt(2) over
 * half a period of frequency w, moving the mass along (1, 1) by sin(w S')/w <= 1/w, so y <= -s/2 + 1/w
 * <= 0 iff s >= 2/w = 2 sqrt(k/k2): wall 1 is never touched, v = (-1, -1).  Between, both walls act and
 * the outcome is neither.  k = 2.5 and k2 = 4 (threshold 1.5811), values no other test uses, so that
 * both sqrt(k mu) and k2/k are tested; each s at two stiffnesses (--zip pairs eps with mu): the outcome
 * depends on s alone. */
static void test_corner_thresholds(void)
{
    const double k = 2.5, k2 = 4.0, upper = 2 * sqrt(k / k2);
    const double s[] = {-4.0, -3.3, -3.0, 1.45, 1.65, 3.0};
    const double mu[] = {1e6, 1e8};
    char eps_list[1024] = "", mu_list[256] = "";
    for (int m = 0; m < 2; m++)
        for (int j = 0; j < 6; j++) {
            char v[64];
            snprintf(v, sizeof v, "%s%.17g", *eps_list ? "," : "", s[j] / sqrt(k * mu[m]));
            strcat(eps_list, v);
            snprintf(v, sizeof v, "%s%g", *mu_list ? "," : "", mu[m]); /* --zip: values may recur */
            strcat(mu_list, v);
        }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "study corner --set angle=135 --set k=2.5 --set k2=4 --grid eps=%s --grid mu=%s --zip "
             "--out corner --quiet --rtol 1e-10", eps_list, mu_list);
    CHECK(run(cmd) == 0, "the corner's study");
    csv c;
    CHECK(csv_load("corner/study.csv", &c) && c.rows == 13, "12 runs");
    for (size_t r = 1; r < c.rows; r++) {
        int j = (int)((r - 1) % 6);
        double v1 = atof(csv_at(&c, r, "final_v1")), v2 = atof(csv_at(&c, r, "final_v2"));
        double eps = atof(csv_at(&c, r, "eps")), m = atof(csv_at(&c, r, "mu"));
        NEAR(eps * sqrt(k * m), s[j], 1e-8, "s of run %zu", r - 1);
        if (s[j] <= -M_PI) {
            NEAR(v1, 1.0, 1e-6, "s = %g (mu %g): v1 on the rigid wall-1 branch", s[j], m);
            NEAR(v2, -1.0, 1e-6, "s = %g (mu %g): v2 on the rigid wall-1 branch", s[j], m);
        } else if (s[j] >= upper) {
            NEAR(v1, -1.0, 1e-6, "s = %g (mu %g): v1 on the rigid wall-2 branch", s[j], m);
            NEAR(v2, -1.0, 1e-6, "s = %g (mu %g): v2 on the rigid wall-2 branch", s[j], m);
        } else
            CHECK(fabs(v1 - 1) + fabs(v2 + 1) > 1e-3 && fabs(v1 + 1) + fabs(v2 + 1) > 1e-3,
                  "s = %g (mu %g): between the thresholds, neither rigid branch (%g, %g)", s[j], m, v1, v2);
        /* the same s at the other stiffness: the same outcome */
        size_t twin = r <= 6 ? r + 6 : r - 6;
        NEAR(v1, atof(csv_at(&c, twin, "final_v1")), 1e-6, "s = %g: v1 at mu = 1e6 and 1e8", s[j]);
        NEAR(v2, atof(csv_at(&c, twin, "final_v2")), 1e-6, "s = %g: v2 at mu = 1e6 and 1e8", s[j]);
    }
    csv_free(&c);
}

/* An axis that changes the degrees of freedom: the final state's columns are those of the largest
 * model, nan past a smaller one's.  Two equal balls, elastic (e = 1): the velocities exchange, v =
 * (0, V), momentum and energy being conserved by the undamped spring (a closed form). */
static void test_dof_axis(void)
{
    CHECK(run("study newtons_cradle --grid N=2,4 --set e=1 --grid mu=1e8 --out cradle --quiet") == 0, "the cradle");
    csv c;
    CHECK(csv_load("cradle/study.csv", &c) && c.rows == 3, "2 runs");
    CHECK(csv_col(&c, "final_v4") >= 0 && csv_col(&c, "final_v5") < 0, "final_v1..final_v4: N up to 4");
    NEAR(atof(csv_at(&c, 1, "final_v1")), 0.0, 1e-6, "N = 2: the first ball stops");
    NEAR(atof(csv_at(&c, 1, "final_v2")), 1.0, 1e-6, "N = 2: the second leaves at V");
    CHECK(strcmp(csv_at(&c, 1, "final_v3"), "nan") == 0 && strcmp(csv_at(&c, 1, "final_q4"), "nan") == 0,
          "N = 2: nan past its 2 balls");
    CHECK(strcmp(csv_at(&c, 2, "final_v4"), "nan") != 0, "N = 4: its 4 balls");
    csv_free(&c);
}

/* Newton's cradle over N x e against Moreau's simultaneous impact law (docs/studies.md, derived
 * there): ball 0 at V into N - 1 balls at rest and touching; with every gap active and Newton's
 * restitution e on each, the gap velocities after are (e V, 0, ..., 0) and momentum is kept, so
 * v_0 = (1 + e - e N) V/N and v_j = (1 + e) V/N, with impulses (N - 1 - j)(1 + e) V/N >= 0.  At N = 2
 * the penalty's one contact is a damped spring of restitution e, so the penalty limit is Moreau's law;
 * at N = 3 the spring chain sends the last ball off faster than Moreau's common velocity (0.98 V
 * against 2V/3 at e = 1).  e and V at values no other test uses. */
static void test_cradle_moreau(void)
{
    const double V = 1.3;
    CHECK(run("study newtons_cradle --grid N=2,3 --grid e=0.37,0.81 --set V=1.3 --mu 1e8 --out moreau --quiet "
              "--no-plots") == 0,
          "the cradle over N x e");
    csv c;
    CHECK(csv_load("moreau/study.csv", &c) && c.rows == 5, "4 runs");
    for (size_t r = 1; r < c.rows; r++) {
        int N = atoi(csv_at(&c, r, "N"));
        double e = atof(csv_at(&c, r, "e")), sum = 0.0;
        char last[32];
        snprintf(last, sizeof last, "final_v%d", N);
        double v0 = atof(csv_at(&c, r, "final_v1")), vl = atof(csv_at(&c, r, last));
        for (int j = 1; j <= N; j++) {
            char name[32];
            snprintf(name, sizeof name, "final_v%d", j);
            sum += atof(csv_at(&c, r, name));
        }
        NEAR(sum, V, 1e-9 * V, "N = %d, e = %g: momentum", N, e);
        if (N == 2) {
            NEAR(v0, (1 + e - e * N) * V / N, 1e-6 * V, "N = 2, e = %g: the first ball as Moreau's law", e);
            NEAR(vl, (1 + e) * V / N, 1e-6 * V, "N = 2, e = %g: the last ball as Moreau's law", e);
        } else
            CHECK(vl - (1 + e) * V / N > 0.05 * V, "N = 3, e = %g: the last ball (%g) faster than Moreau's %g", e, vl,
                  (1 + e) * V / N);
    }
    csv_free(&c);
}

/* The wedge from (1, 1 + d) at v0 = (-1, -1), m = 0.3, e = 0.4 (docs/studies.md, derived there): in
 * units of 1/sqrt(k mu) a single-wall contact lasts T = pi/sqrt(1 - xi^2) (xi from e, docs/laws.md) and
 * leaves the one-wall map's velocities (e, -w), w = 1 + (1 + e) m.  Wall 2 is then at D - (1 + m) T
 * (D = d sqrt(k mu)), reached after a flight of (D - (1 + m) T)/w, during which q1 grows at e; the
 * wall-2 contact moves q1 by (e - m w) T, so wall 1 stays clear of it iff
 * D >= D* = T ((1 + m) + w (m w - e)/e) = 4.556: above, the penalty's outcome is exactly the limit's
 * three single-wall maps; below, the contacts overlap. */
static void test_wedge_threshold(void)
{
    const double m = 0.3, e = 0.4, mu = 1e6, D[] = {4.3, 4.8};
    char cmd[512];
    snprintf(cmd, sizeof cmd, "study wedge --set m=0.3 --set e=0.4 --grid q2=%.17g,%.17g --grid mu=1e6 --out wedge "
             "--quiet --no-plots", 1 + D[0] / sqrt(mu), 1 + D[1] / sqrt(mu));
    CHECK(run(cmd) == 0, "the wedge near its corner");
    double v1 = -1, v2 = -1;
    v2 += (1 + e) * m * v1, v1 = -e * v1; /* wall 1 */
    v1 += (1 + e) * m * v2, v2 = -e * v2; /* wall 2 */
    v2 += (1 + e) * m * v1, v1 = -e * v1; /* wall 1 */
    double w = 1 + (1 + e) * m, L = log(e), xi = -L / sqrt(M_PI * M_PI + L * L), T = M_PI / sqrt(1 - xi * xi);
    double Dstar = T * ((1 + m) + w * (m * w - e) / e);
    CHECK(Dstar > D[0] && Dstar < D[1], "D* = %g between the two starts", Dstar);
    csv c;
    CHECK(csv_load("wedge/study.csv", &c) && c.rows == 3, "2 runs");
    double err[2];
    for (size_t r = 1; r < c.rows; r++)
        err[r - 1] = hypot(atof(csv_at(&c, r, "final_v1")) - v1, atof(csv_at(&c, r, "final_v2")) - v2);
    CHECK(err[0] > 1e-5, "D = 4.3 < D*: the contacts overlap, the outcome is not the limit's (%g off)", err[0]);
    CHECK(err[1] < 1e-7, "D = 4.8 > D*: the limit's outcome (%g off)", err[1]);
    csv_free(&c);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 2)
        return 2;
    penlim = argv[1];
    snprintf(dir, sizeof dir, "/tmp/penlim_study_cli_XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_same_data();
    test_against_sweep();
    test_bad_input();
    test_kill_resume();
    test_corner_thresholds();
    test_dof_axis();
    test_cradle_moreau();
    test_wedge_threshold();
    if (argc > 2) {
        mpirun = argv[2];
        test_mpi();
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (check_failures == 0 && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_study_cli");
}
