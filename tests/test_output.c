/* End-to-end tests of the output directories: the lock, the manifest, files penlim did not write,
 * stale files, temporaries, file modes, --out validation, --resume and signals. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"
#include "cases/cases.h"
#include "io/outdir.h"
#include "io/plots.h"
#include "io/report.h"


static void compare_sweeps(const char *a, const char *b, size_t n);

static const char *python; /* python3, for editing JSON files in place (tests/CMakeLists.txt finds it) */
/* tests/faults/io_faults.c built as a shared object, or "none" (under the sanitizers, whose
 * runtime must come first among the libraries): the tests that preload it are then skipped. */
static const char *io_faults;

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[4096], body[3800];
    snprintf(body, sizeof body, fmt, a, b);
    snprintf(cmd, sizeof cmd, "cd %s && %s", dir, body);
    return system(cmd) == 0;
}

static int lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* Exit status 2 and one line on stderr containing what. */
static void expect_refusal(const char *args, const char *what)
{
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(rc == 2 && lines(err) == 1 && err && strstr(err, what), "'penlim %s' exits 2 with one line naming %s (got %d: %s)",
          args, what, rc, err ? err : "");
    free(err);
}

/* Whether name lists path in its "files". */
static int manifest_lists(const char *name, const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", dir, name);
    json_t *m = json_load_file(full, 0, NULL);
    int found = 0;
    json_t *files = json_object_get(m, "files");
    for (size_t k = 0; k < json_array_size(files); k++)
        found |= strcmp(json_string_value(json_array_get(files, k)), path) == 0;
    json_decref(m);
    return found;
}

/* Number of penlim temporaries (.NAME.XXXXXX) under sub. */
static int temporaries(const char *sub)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char child[1024];
        snprintf(child, sizeof child, "%s/%s", sub, e->d_name);
        if (e->d_type == DT_DIR)
            n += temporaries(child);
        else if (e->d_name[0] == '.' && len > 8 && e->d_name[len - 7] == '.' && strcmp(e->d_name, ".penlim.journal") != 0)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void test_temporaries_and_foreign_files(void)
{
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 1 --out r1 --quiet") == 0, "a run");
    CHECK(exists("r1/manifest.json") && manifest_lists("r1/manifest.json", "trajectory.csv") &&
              manifest_lists("r1/manifest.json", "summary.json") && !exists("r1/.penlim.journal"),
          "its manifest lists its files; no journal left");
    /* temporaries of a killed command are removed by the next one */
    CHECK(sh("touch r1/.trajectory.csv.Ab12Cd r1/.summary.json.zz99ZZ", "", ""), "plant temporaries");
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 1 --out r1 --quiet") == 0, "the next run");
    CHECK(!exists("r1/.trajectory.csv.Ab12Cd") && !exists("r1/.summary.json.zz99ZZ"), "temporaries removed");
    /* a file penlim did not write: refused, accepted with --force and left alone */
    CHECK(sh("echo mine > r1/notes.txt", "", ""), "drop a file");
    expect_refusal("run bouncing_ball --mu 1e4 --t-end 1 --out r1 --quiet", "notes.txt");
    CHECK(exists("r1/manifest.json") && exists("r1/notes.txt"), "a refused command changes nothing");
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 1 --out r1 --quiet --force") == 0, "--force");
    CHECK(exists("r1/notes.txt") && !manifest_lists("r1/manifest.json", "notes.txt"), "the foreign file is kept, unlisted");
    /* a directory of someone else's files, and a malformed manifest */
    CHECK(sh("mkdir -p other && echo x > other/data.csv && mkdir -p bad && echo '{\"files\": [\"../x\"]' > "
             "bad/manifest.json",
             "", ""),
          "foreign directories");
    expect_refusal("run bouncing_ball --t-end 0.5 --out other --quiet", "data.csv");
    expect_refusal("run bouncing_ball --t-end 0.5 --out bad --quiet", "manifest.json");
    CHECK(run("run bouncing_ball --t-end 0.5 --out bad --quiet --force") == 0, "--force over a malformed manifest");
    CHECK(manifest_lists("bad/manifest.json", "trajectory.csv"), "replaced by a valid one");
    CHECK(sh("mkdir -p empty", "", ""), "an empty directory");
    CHECK(run("run bouncing_ball --t-end 0.5 --out empty --quiet") == 0, "an empty directory is fine");
}

/* Whether the scratch directory's file NAME holds what. */
static int file_has(const char *name, const char *what)
{
    char *text = slurp(name);
    int has = text && strstr(text, what);
    free(text);
    return has;
}

/* A lock on the scratch directory's NAME, as a command writing it (LOCK_EX) or a directory inside
 * it (LOCK_SH) holds one; the descriptor, or -1. */
static int hold_lock(const char *name, int how)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd >= 0 && flock(fd, how | LOCK_NB) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Entries of the scratch directory's NAME (files and directories, recursively), or -1. */
static int entries(const char *name)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && find %s -mindepth 1 | wc -l > count.txt", dir, name);
    if (system(cmd) != 0)
        return -1;
    char *n = slurp("count.txt");
    int k = n ? atoi(n) : -1;
    free(n);
    return k;
}

static void test_lock(void)
{
    CHECK(sh("mkdir -p locked", "", ""), "mkdir");
    int fd = hold_lock("locked", LOCK_EX);
    CHECK(fd >= 0, "hold the lock");
    expect_refusal("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --out locked --quiet", "in use");
    CHECK(entries("locked") == 0, "nothing written while locked, no lock file");
    /* a command writing inside the directory (its runs/) while another writes the directory */
    expect_refusal("run bouncing_ball --mu 1e12 --t-end 1 --out locked/runs/041_mu_1e12 --quiet", "in use");
    CHECK(entries("locked") == 0, "refused without creating runs/");
    close(fd);
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --out locked --quiet") == 0, "then it works");
    CHECK(!exists("locked/.penlim.lock"), "no lock file: the lock is on the directory");
    /* and the other way round: a sweep into the directory that holds one being written */
    CHECK(sh("mkdir -p locked/runs/002_mu_1e4", "", ""), "the run's directory");
    fd = hold_lock("locked/runs/002_mu_1e4", LOCK_EX);
    int up = hold_lock("locked", LOCK_SH), mid = hold_lock("locked/runs", LOCK_SH);
    CHECK(fd >= 0 && up >= 0 && mid >= 0, "hold the locks a run inside holds");
    expect_refusal("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --out locked --quiet --resume", "in use");
    close(fd);
    close(up);
    close(mid);
}

/* Two real commands: a run into a sweep's run directory while the sweep writes, refused either way
 * round; the sweep's manifest then lists what it wrote, its runs' summaries their own mu. */
static void test_nested_commands(void)
{
    char *const argv[] = {(char *)penlim, "sweep", "bouncing_ball", "--mu", "1e3:1e9:12", "--t-end", "10",
                          "--samples", "5000", "--no-plots", "--no-limit", "--jobs", "1", "--quiet", "--out", "nest",
                          NULL};
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execv(penlim, argv);
        _exit(127);
    }
    int status = 0, done = 0;
    while (!exists("nest/.penlim.journal") && !(done = waitpid(pid, &status, WNOHANG) == pid))
        usleep(1000);
    int rc = run("run bouncing_ball --mu 1e12 --t-end 1 --out nest/runs/012_mu_1e9 --quiet");
    int running = !done && waitpid(pid, &status, WNOHANG) == 0;
    CHECK(done || (rc == 2 && file_has("stderr.txt", "in use")), "a run into the sweep's runs/ while it writes is refused (%d)", rc);
    if (running) /* what is left of the sweep is not needed */
        kill(pid, SIGTERM);
    if (!done)
        waitpid(pid, &status, 0);
    CHECK(!done, "the sweep was still writing when the run started (else this proves nothing)");
}

/* Links inside the directory are never followed: a manifest listing a path through one is not
 * penlim's, and neither a cleanup nor a write reaches the link's target, with --force either. */
static void test_symlinks(void)
{
    /* a manifest listing lnk/precious.txt, lnk a link to a directory outside */
    CHECK(sh("mkdir -p victim L && echo precious > victim/precious.txt && ln -s ../victim L/lnk && "
             "printf '{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [\"lnk/precious.txt\", \"lnk\"]}' "
             "> L/manifest.json",
             "", ""),
          "a directory with a link out of it");
    expect_refusal("run bouncing_ball --t-end 0.5 --out L --quiet", "lnk/precious.txt, which passes through a symbolic link");
    CHECK(file_has("victim/precious.txt", "precious"), "the link's target is intact");
    CHECK(run("run bouncing_ball --t-end 0.5 --out L --quiet --force") == 0, "--force writes there");
    CHECK(file_has("victim/precious.txt", "precious") && exists("L/lnk"), "leaving the link and its target alone");
    /* a sweep's runs/ replaced by a link to a copy of it elsewhere, then a smaller grid */
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 1 --no-plots --no-limit --out SL --quiet") == 0, "a sweep");
    CHECK(sh("mv SL/runs elsewhere && ln -s ../elsewhere SL/runs", "", ""), "runs/ becomes a link");
    expect_refusal("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out SL --quiet",
                   "passes through a symbolic link");
    expect_refusal("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out SL --quiet --force",
                   "runs/001_mu_1e3/trajectory.csv: it passes through a symbolic link");
    CHECK(exists("elsewhere/003_mu_1e5/trajectory.csv") && exists("elsewhere/001_mu_1e3/summary.json"),
          "the link's target keeps every run");
    CHECK(exists("SL/manifest.json") && !exists("SL/.penlim.journal"), "the refused sweep changed nothing");
    /* a listed file replaced by a link to a file outside: penlim writes there only by replacing the link */
    CHECK(sh("echo mine > outside.csv && rm SL/sweep.csv && ln -s ../outside.csv SL/sweep.csv && rm SL/runs && "
             "mv elsewhere SL/runs",
             "", ""),
          "sweep.csv becomes a link");
    expect_refusal("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out SL --quiet",
                   "sweep.csv, which is a symbolic link");
    expect_refusal("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out SL --quiet --force",
                   "sweep.csv: it is a symbolic link");
    CHECK(file_has("outside.csv", "mine"), "the file outside is intact");
    /* a link where plot draws a figure: refused with --force too (it leaves foreign files alone), the
     * message saying what helps */
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 0.5 --out PL --quiet") == 0 &&
              sh("rm -f PL/run.png && ln -s ../outside.csv PL/run.png", "", ""),
          "a run whose figure is a link");
    expect_refusal("plot PL", "run.png, a symbolic link); penlim follows no link inside --out: remove it");
    expect_refusal("plot PL --force", "run.png, where a figure goes, is not a file penlim wrote: remove it to draw");
    CHECK(file_has("outside.csv", "mine"), "the link's target is intact");
    /* --out itself may be a link (the user's path): followed once, at the start */
    CHECK(sh("mkdir -p real_out && ln -s real_out linked_out", "", ""), "--out as a link");
    CHECK(run("run bouncing_ball --t-end 0.5 --out linked_out --quiet") == 0 && exists("real_out/manifest.json"),
          "written into the link's target");
}

/* A resumed sweep reuses a run only if its files are the ones penlim wrote (content hashes). */
static void test_resume_verifies(void)
{
    const char *sweep = "sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 2 --no-plots --jobs 2";
    char args[512];
    snprintf(args, sizeof args, "%s --out vfull --quiet", sweep);
    CHECK(run(args) == 0, "the reference sweep");
    snprintf(args, sizeof args, "%s --out swap --quiet", sweep);
    CHECK(run(args) == 0, "the sweep to tamper with");
    CHECK(sh("cd swap/runs && for f in trajectory.csv trajectory_s.csv; do mv 001_mu_1e3/$f t && "
             "mv 002_mu_1e4/$f 001_mu_1e3/$f && mv t 002_mu_1e4/$f; done",
             "", ""),
          "swap two runs' trajectories");
    snprintf(args, sizeof args, "%s --out swap --resume", sweep);
    CHECK(run(args) == 0, "--resume");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 1 of the 3 runs"), "only the untouched run reused: %s", out ? out : "");
    free(out);
    compare_sweeps("vfull", "swap", 3);
    /* one byte changed (an accident) in a run's summary */
    CHECK(sh("sed -i 's/\"steps\": /\"steps\":  /' swap/runs/003_mu_1e5/summary.json", "", ""), "edit a summary");
    CHECK(run(args) == 0, "--resume again");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 3 runs"), "the edited run computed again: %s", out ? out : "");
    free(out);
    compare_sweeps("vfull", "swap", 3);
    CHECK(file_has("swap/manifest.json", "\"content_hashes\""), "the manifest records the hashes");
}

/* A FIFO in place of a listed file is refused, never opened (it would block for ever). */
static void test_fifo(void)
{
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out ff --quiet") == 0, "a sweep");
    CHECK(sh("rm ff/runs/001_mu_1e3/trajectory.csv && mkfifo ff/runs/001_mu_1e3/trajectory.csv", "", ""), "a FIFO");
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && timeout 60 %s sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out ff "
             "--resume --max-seconds 2 --quiet > stdout.txt 2> stderr.txt",
             dir, penlim);
    int rc = system(cmd);
    char *err = slurp("stderr.txt");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && err && strstr(err, "runs/001_mu_1e3/trajectory.csv, which is not a regular file"),
          "refused, not blocked (status %d: %s)", rc, err ? err : "");
    free(err);
    snprintf(cmd, sizeof cmd,
             "cd %s && timeout 60 %s sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out ff "
             "--resume --max-seconds 2 --quiet --force > stdout.txt 2> stderr.txt",
             dir, penlim);
    rc = system(cmd);
    err = slurp("stderr.txt");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && err && strstr(err, "trajectory.csv: it is not a regular file"),
          "with --force too, where penlim would write it (status %d: %s)", rc, err ? err : "");
    free(err);
    struct stat sb;
    char path[512];
    snprintf(path, sizeof path, "%s/ff/runs/001_mu_1e3/trajectory.csv", dir);
    CHECK(lstat(path, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO is left alone");
    /* where the command does not write, --force leaves it alone and goes on */
    CHECK(run("sweep bouncing_ball --mu 1e4 --t-end 1 --no-plots --no-limit --out ff --quiet --force") == 0,
          "a sweep whose grid leaves it out");
    CHECK(lstat(path, &sb) == 0 && S_ISFIFO(sb.st_mode), "still there, unlisted");
    /* penlim plot reads its configuration whether listed or not: a FIFO there is not read either */
    CHECK(sh("rm ff/plots_config.gp && mkfifo ff/plots_config.gp && %s -c 'import json; p = \"ff/manifest.json\"; "
             "m = json.load(open(p)); m[\"files\"].remove(\"plots_config.gp\"); json.dump(m, open(p, \"w\"))'",
             python, ""),
          "an unlisted FIFO in place of plots_config.gp");
    snprintf(cmd, sizeof cmd, "cd %s && timeout 60 %s plot ff --force > stdout.txt 2> stderr.txt", dir, penlim);
    rc = system(cmd);
    err = slurp("stderr.txt");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && err && strstr(err, "plots_config.gp, which its figures need (a regular file)"),
          "plot --force refuses it, not blocked (status %d: %s)", rc, err ? err : "");
    free(err);
    /* a socket in place of the manifest: foreign, as a FIFO is (opening it fails with ENXIO) */
    CHECK(sh("mkdir sock && %s -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"sock/manifest.json\")'", python,
             ""),
          "a socket as manifest.json");
    expect_refusal("run bouncing_ball --t-end 0.5 --out sock --quiet", "holds files penlim did not write (manifest.json)");
}

static void test_stale_files(void)
{
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4,1e5,1e6 --t-end 1 --out st --quiet") == 0, "a sweep with limit and plots");
    CHECK(exists("st/runs/003_mu_1e5/summary.json") && exists("st/limit/summary.json") &&
              exists("st/impact_errors.csv") && exists("st/convergence.gp"),
          "its files");
    int had_png = exists("st/trajectories.png");
    CHECK(!had_png || manifest_lists("st/manifest.json", "trajectories.png"), "plots are listed");
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out st --quiet") == 0, "a smaller one");
    CHECK(!exists("st/runs/003_mu_1e5"), "the run no longer in the grid is removed");
    CHECK(exists("st/runs/002_mu_1e4/trajectory.csv"), "the others are there");
    CHECK(!exists("st/limit") && !exists("st/impact_errors.csv"), "no limit/ nor impact_errors.csv without the limit");
    CHECK(!exists("st/trajectories.png") && !exists("st/convergence.gp") && !exists("st/gnuplot.log"),
          "no plots with --no-plots");
    CHECK(exists("st/plots_config.gp") && exists("st/sweep.csv"), "the data remain");
    CHECK(sh("test $(find st -type f | wc -l) -eq $(%s -c 'import json; print(len(json.load(open(\"st/manifest.json\"))"
             "[\"files\"]) + 1)')",
             python, ""),
          "every file but the manifest is listed");
}

static void test_out_validation(void)
{
    /* Refused before computing: the sweep asked for takes minutes of CPU (an elastic ball to t = 1e5), and
     * under a CPU-time limit of 2 s (work, which a loaded machine does not stretch) the refusal still
     * comes, with exit 2; computing first would end in SIGXCPU. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && ulimit -t 2 && %s sweep bouncing_ball --set e=1 --t-end 1e5 --mu 1e2:1e6:5 --samples 0 "
             "--out /proc/penlim-x --quiet > stdout.txt 2> stderr.txt",
             dir, penlim);
    int rc = system(cmd);
    char *err = slurp("stderr.txt");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && lines(err) == 1 && err && strstr(err, "--out"),
          "refused before computing, within 2 s of CPU (status %d: %s)", rc, err ? err : "");
    free(err);
    char args[6000], *p = args;
    p += sprintf(p, "run bouncing_ball --t-end 0.5 --quiet --out long");
    for (int k = 0; k < 21; k++)
        p += sprintf(p, "/%0200d", k);
    expect_refusal(args, "too long");
    CHECK(!exists("long"), "nothing created for an over-long --out");
    expect_refusal("run bouncing_ball --t-end 0.5 --quiet --out /dev/null/x", "--out");
}

/* A path outside the scratch directory as it is: whether it exists, and its inode and change time. */
typedef struct {
    int exists;
    ino_t ino;
    struct timespec ctime;
} path_state;

static path_state state_of(const char *path)
{
    struct stat sb;
    path_state p = {0};
    if (lstat(path, &sb) == 0)
        p = (path_state){1, sb.st_ino, sb.st_ctim};
    return p;
}

static int same_state(path_state a, path_state b)
{
    return a.exists == b.exists && a.ino == b.ino && a.ctime.tv_sec == b.ctime.tv_sec &&
           a.ctime.tv_nsec == b.ctime.tv_nsec;
}

/* Refusals create nothing: a directory with a foreign file keeps exactly that file, a new --out below
 * a directory another command writes is not made, and system directories are refused before they
 * are opened or walked.  Outside the scratch directory nothing is written: the system paths are
 * only checked to be unchanged. */
static void test_refusals_create_nothing(void)
{
    CHECK(sh("mkdir -p fo && echo x > fo/theirs.txt", "", ""), "a directory of someone else's");
    expect_refusal("run bouncing_ball --t-end 0.5 --out fo --quiet", "theirs.txt");
    CHECK(entries("fo") == 1, "it holds its one file, no lock file");
    CHECK(sh("mkdir -p held", "", ""), "mkdir");
    int fd = hold_lock("held", LOCK_EX);
    expect_refusal("run bouncing_ball --t-end 0.5 --out held/a/b --quiet", "in use");
    CHECK(fd >= 0 && entries("held") == 0, "a/b not made below a directory being written");
    close(fd);
    CHECK(sh("ln -s no_such_target dangling", "", ""), "a link to nothing");
    expect_refusal("run bouncing_ball --t-end 0.5 --out dangling --quiet", "symbolic link to nothing");
    CHECK(!exists("no_such_target"), "not made");
    /* the root, system directories, a shared one, inside one, through a link, through .., the home */
    const char *watched[] = {"/", "/.penlim.lock", "/etc/.penlim.lock", "/usr/.penlim.lock", "/tmp/.penlim.lock",
                             "/usr/share/.penlim.lock", "/usr/share/manifest.json"};
    path_state before[7];
    for (int k = 0; k < 7; k++)
        before[k] = state_of(watched[k]);
    CHECK(sh("ln -sfn /usr sys_link && mkdir -p home", "", ""), "a link to /usr and a home");
    char up[512], cmd[1024];
    snprintf(up, sizeof up, "%s", dir);
    for (const char *c = dir; *c; c++) /* as many .. as dir has components: / */
        if (*c == '/')
            strncat(up, "/..", sizeof up - strlen(up) - 1);
    const struct {
        const char *out, *what;
    } refused[] = {{"/", "/ is the root directory"},
                   {"/etc", "/etc is a system directory"},
                   {"/usr", "/usr is a system directory"},
                   {"/tmp", "/tmp is a directory shared by the whole system"},
                   {"/usr/share", "/usr/share is inside a system directory"},
                   {"sys_link", "/usr is a system directory"},
                   {"sys_link/share", "/usr/share is inside a system directory"},
                   {up, "/ is the root directory"},
                   {"home", "is the home directory"}};
    /* without --force: were the rule broken, these existing directories would still be refused (they
     * hold files penlim did not write) and nothing written into them */
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        snprintf(cmd, sizeof cmd, "sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --out %s --quiet",
                 refused[k].out);
        if (strcmp(refused[k].out, "home") == 0)
            setenv("HOME", "home", 1); /* run() starts penlim in dir */
        expect_refusal(cmd, refused[k].what);
    }
    unsetenv("HOME");
    for (int k = 0; k < 7; k++)
        CHECK(same_state(before[k], state_of(watched[k])), "%s unchanged", watched[k]);
    CHECK(entries("home") == 0, "nothing in the refused home");
    /* before any walk: no directory is read (where strace is found: the tests need not have it) */
    if (system("strace -V > /dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd,
                 /* LeakSanitizer does not run under ptrace */
                 "cd %s && ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=getdents64,getdents -o trace.txt %s run "
                 "bouncing_ball --t-end 0.5 "
                 "--out / > stdout.txt 2> stderr.txt; grep -c getdents trace.txt > count.txt",
                 dir, penlim);
        CHECK(system(cmd) != -1, "strace");
        char *n = slurp("count.txt");
        CHECK(file_has("trace.txt", "+++ exited with 2 +++") && n && atoi(n) == 0 && file_has("stderr.txt", "root directory"),
              "--out / refused before reading any directory (%s getdents)", n ? n : "?");
        free(n);
    } else
        printf("test_output: strace not found: the order of the refusal of --out / is not traced\n");
}

/* SIGHUP, SIGPIPE and SIGUSR1 end penlim as SIGTERM does: its temporaries removed first. */
static void test_other_signals(void)
{
    const int sigs[] = {SIGHUP, SIGPIPE, SIGUSR1};
    for (int k = 0; k < 3; k++) {
        char out[32];
        snprintf(out, sizeof out, "sig%d", sigs[k]);
        char *const argv[] = {(char *)penlim, "sweep", "bouncing_ball", "--mu", "1e3:1e9:12", "--t-end", "10",
                              "--samples", "5000", "--no-plots", "--no-limit", "--jobs", "2", "--quiet", "--out", out,
                              NULL};
        pid_t pid = fork();
        if (pid == 0) {
            if (chdir(dir) != 0)
                _exit(126);
            execv(penlim, argv);
            _exit(127);
        }
        char runs[64];
        snprintf(runs, sizeof runs, "%s/runs", out);
        int status = 0, seen = 0, done = 0;
        while (!seen && !(done = waitpid(pid, &status, WNOHANG) == pid))
            seen = temporaries(runs) > 0;
        if (!done) {
            kill(pid, sigs[k]);
            waitpid(pid, &status, 0);
        }
        CHECK(seen && WIFSIGNALED(status) && WTERMSIG(status) == sigs[k], "killed by signal %d while writing (%d, %d)",
              sigs[k], seen, status);
        CHECK(temporaries(out) == 0, "no temporaries left after signal %d", sigs[k]);
    }
}

/* A write that fails says why (it once said "cannot write .../summary.json" and no more): here the
 * file size limit (ulimit -f, SIGXFSZ ignored: the write fails with EFBIG) on the journal, which
 * takes more than one buffer. */
static void test_write_failure_reason(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && (trap '' XFSZ; ulimit -f 4; %s sweep bouncing_ball --mu 1e2:1e6:60 --t-end 1 --no-plots "
             "--no-limit --out efbig --quiet > stdout.txt 2> stderr.txt)",
             dir, penlim);
    int rc = system(cmd);
    char *err = slurp("stderr.txt");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 && err && lines(err) == 1 && strstr(err, ".penlim.journal: File too large"),
          "exit 1, the file and the reason (%d: %s)", rc, err ? err : "");
    free(err);
    CHECK(temporaries("efbig") == 0 && !exists("efbig/manifest.json"), "no temporary, no manifest");
}

static void test_umask(void)
{
    mode_t old = umask(027);
    int rc = run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --no-plots --no-limit --out um --quiet");
    umask(old);
    CHECK(rc == 0, "sweep under umask 027");
    const char *files[] = {"um/sweep.csv", "um/manifest.json", "um/runs/001_mu_1e3/summary.json"};
    for (int k = 0; k < 3; k++) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640, "%s has mode 0640 (got %o)", files[k],
              (unsigned)(st.st_mode & 0777));
    }
}

/* The same file in two directories, byte for byte. */
static int same_file(const char *a, const char *b)
{
    char *x = slurp(a), *y = slurp(b);
    int same = (!x && !y) || (x && y && strcmp(x, y) == 0); /* both absent, or equal */
    free(x);
    free(y);
    return same;
}

/* sweep.csv without its wall_seconds column (the last for a penalized sweep). */
static int same_sweep_csv(const char *a, const char *b)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && diff <(sed 's/,[^,]*$//' %s) <(sed 's/,[^,]*$//' %s) > /dev/null", dir, a, b);
    char full[2100];
    snprintf(full, sizeof full, "bash -c '%s'", cmd);
    return system(full) == 0;
}

static void compare_sweeps(const char *a, const char *b, size_t n)
{
    char x[512], y[512];
    const char *common[] = {"episodes.csv", "impact_errors.csv", "limit/trajectory.csv"};
    for (int k = 0; k < 3; k++) {
        snprintf(x, sizeof x, "%s/%s", a, common[k]);
        snprintf(y, sizeof y, "%s/%s", b, common[k]);
        CHECK(same_file(x, y), "%s: identical to the uninterrupted sweep's", y);
    }
    snprintf(x, sizeof x, "%s/sweep.csv", a);
    snprintf(y, sizeof y, "%s/sweep.csv", b);
    CHECK(same_sweep_csv(x, y), "%s identical but for the wall times", y);
    char full[1024];
    snprintf(full, sizeof full, "%s/%s/runs", dir, a);
    DIR *d = opendir(full);
    size_t runs = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        runs++;
        const char *names[] = {"trajectory.csv", "trajectory_s.csv"};
        for (int k = 0; k < 2; k++) {
            snprintf(x, sizeof x, "%s/runs/%s/%s", a, e->d_name, names[k]);
            snprintf(y, sizeof y, "%s/runs/%s/%s", b, e->d_name, names[k]);
            CHECK(same_file(x, y), "%s identical", y);
        }
    }
    if (d)
        closedir(d);
    CHECK(runs == n, "%zu runs (got %zu)", n, runs);
}

static ino_t inode(const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

static void test_resume(void)
{
    const char *sweep = "sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 2 --no-plots --jobs 2";
    char args[512];
    snprintf(args, sizeof args, "%s --out full --quiet", sweep);
    CHECK(run(args) == 0, "an uninterrupted sweep");
    /* one run's files and its manifest entry removed */
    snprintf(args, sizeof args, "%s --out res --quiet", sweep);
    CHECK(run(args) == 0, "the sweep to resume");
    CHECK(sh("rm -r res/runs/002_mu_1e4 && %s -c '"
             "import json; p = \"res/manifest.json\"; m = json.load(open(p)); "
             "m[\"runs\"] = [r for r in m[\"runs\"] if \"002_\" not in r[\"directory\"]]; "
             "m[\"files\"] = [f for f in m[\"files\"] if \"002_\" not in f]; json.dump(m, open(p, \"w\"))'",
             python, ""),
          "remove run 2");
    /* A parameter left to its derived default (the corner's k2, null in the files) still matches:
     * NaN != NaN once made every such run be computed again. */
    CHECK(run("sweep corner --mu 1e4,1e5 --t-end 2 --no-plots --out cres --quiet") == 0, "a sweep of the corner");
    CHECK(run("sweep corner --mu 1e4,1e5 --t-end 2 --no-plots --out cres --resume") == 0, "resumed");
    char *cout = slurp("stdout.txt");
    CHECK(cout && strstr(cout, "reused 2 of the 2 runs"), "both reused with k2 derived: %s", cout ? cout : "");
    free(cout);
    ino_t kept = inode("res/runs/001_mu_1e3/trajectory.csv");
    snprintf(args, sizeof args, "%s --out res --resume", sweep);
    CHECK(run(args) == 0, "--resume");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 3 runs"), "two runs reused: %s", out ? out : "");
    free(out);
    CHECK(kept != 0 && inode("res/runs/001_mu_1e3/trajectory.csv") == kept, "a reused run's files are not rewritten");
    compare_sweeps("full", "res", 3);
    /* an interrupted sweep: its journal, no manifest, run 3 incomplete */
    CHECK(sh("%s -c 'import json; m = json.load(open(\"res/manifest.json\")); "
             "[r.update(status=\"pending\") for r in m[\"runs\"]]; json.dump(m, open(\"res/.penlim.journal\", \"w\"))' "
             "&& rm res/manifest.json res/sweep.csv res/runs/003_mu_1e5/summary.json",
             python, ""),
          "simulate an interruption");
    kept = inode("res/runs/002_mu_1e4/trajectory.csv");
    CHECK(run(args) == 0, "--resume after an interruption");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 3 runs"), "the two complete runs reused: %s", out ? out : "");
    free(out);
    CHECK(kept != 0 && inode("res/runs/002_mu_1e4/trajectory.csv") == kept, "and not rewritten");
    CHECK(exists("res/manifest.json") && !exists("res/.penlim.journal"), "complete again");
    compare_sweeps("full", "res", 3);
    /* other settings reuse nothing */
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 2 --rtol 1e-9 --no-plots --out res --resume") == 0,
          "--resume with another rtol");
    out = slurp("stdout.txt");
    CHECK(out && !strstr(out, "reused"), "reuses nothing");
    free(out);
}

/* A --resume whose --max-seconds runs out (1e-3 s: reading back and analysing 2 x 20000 rows takes
 * longer anywhere; a set-up that took longer writes nothing, which the checks accept too) keeps the
 * complete runs and limit solution of the earlier sweep as they are, listed in its manifest: a second
 * such --resume does not solve them again (truncated over the complete ones), and one without a
 * budget reuses them all, as an uninterrupted sweep. */
static void test_resume_out_of_time(void)
{
    const char *sweep = "sweep bouncing_ball --mu 1e3,1e4 --t-end 20 --samples 20000 --no-plots --jobs 2";
    const char *kept[] = {"runs/001_mu_1e3/trajectory.csv", "runs/001_mu_1e3/summary.json",
                          "runs/002_mu_1e4/trajectory_s.csv", "limit/trajectory.csv", "limit/trajectory_s.csv",
                          "limit/summary.json"};
    enum { NKEPT = sizeof kept / sizeof kept[0] };
    char args[512], path[256];
    snprintf(args, sizeof args, "%s --out tfull --quiet", sweep);
    CHECK(run(args) == 0, "an uninterrupted sweep");
    snprintf(args, sizeof args, "%s --out tres --quiet", sweep);
    CHECK(run(args) == 0, "the sweep to resume");
    ino_t before[NKEPT];
    for (int j = 0; j < NKEPT; j++) {
        snprintf(path, sizeof path, "tres/%s", kept[j]);
        before[j] = inode(path);
    }
    for (int pass = 1; pass <= 2; pass++) {
        snprintf(args, sizeof args, "%s --out tres --resume --max-seconds 1e-3", sweep);
        int rc = run(args);
        char *err = slurp("stderr.txt");
        CHECK(rc == 3 && err && (strstr(err, "time budget of 0.001 s") || strstr(err, "during the set-up")),
              "resume %d out of time: exit 3 naming the budget (%d: %s)", pass, rc, err ? err : "");
        free(err);
        for (int j = 0; j < NKEPT; j++) {
            snprintf(path, sizeof path, "tres/%s", kept[j]);
            CHECK(before[j] != 0 && inode(path) == before[j], "resume %d out of time: %s kept as it was", pass, path);
            CHECK(manifest_lists("tres/manifest.json", kept[j]), "resume %d out of time: the manifest lists %s", pass,
                  kept[j]);
        }
    }
    snprintf(args, sizeof args, "%s --out tres --resume", sweep);
    CHECK(run(args) == 0, "--resume without a budget");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 2 runs"), "both complete runs reused: %s", out ? out : "");
    free(out);
    for (int j = 0; j < NKEPT; j++) {
        snprintf(path, sizeof path, "tres/%s", kept[j]);
        CHECK(inode(path) == before[j], "%s still the earlier sweep's", path);
    }
    compare_sweeps("tfull", "tres", 2);
}

/* SIGTERM while a sweep writes a file: the temporary is removed, no manifest; --resume completes it. */
static void test_signal(void)
{
    char *const argv[] = {(char *)penlim, "sweep", "bouncing_ball", "--mu", "1e3:1e9:12", "--t-end", "10",
                          "--samples", "5000", "--no-plots", "--no-limit", "--jobs", "2", "--quiet", "--out", "sig",
                          NULL};
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execv(penlim, argv);
        _exit(127);
    }
    /* wait until a file is being written, then kill */
    int status = 0, seen = 0, done = 0;
    while (!seen && !(done = waitpid(pid, &status, WNOHANG) == pid))
        seen = temporaries("sig/runs") > 0;
    if (!done) {
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
    }
    CHECK(seen && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "killed by SIGTERM while writing (%d, %d)", seen,
          status);
    CHECK(temporaries("sig") == 0, "no temporaries left after SIGTERM");
    CHECK(!exists("sig/manifest.json") && exists("sig/.penlim.journal"), "a killed sweep leaves no manifest (%d %d)",
          exists("sig/manifest.json"), exists("sig/.penlim.journal"));
    CHECK(run("sweep bouncing_ball --mu 1e3:1e9:12 --t-end 10 --samples 5000 --no-plots --no-limit --jobs 2 --out sig "
              "--resume --quiet") == 0,
          "--resume after SIGTERM");
    CHECK(run("sweep bouncing_ball --mu 1e3:1e9:12 --t-end 10 --samples 5000 --no-plots --no-limit --jobs 1 --out "
              "sigref --quiet") == 0,
          "the uninterrupted sweep");
    compare_sweeps("sigref", "sig", 12);
    CHECK(temporaries("sig") == 0 && exists("sig/manifest.json"), "complete");
}

/* The content hash is FNV-1a (64 bits): the reference vectors of its authors (Fowler, Noll, Vo). */
static void test_hash(void)
{
    const struct {
        const char *text, *hash;
    } vectors[] = {{"", "cbf29ce484222325"}, {"a", "af63dc4c8601ec8c"}, {"foobar", "85944171f73967e8"}};
    for (size_t k = 0; k < 3; k++) {
        char path[512], hash[PL_HASH_LEN] = "";
        snprintf(path, sizeof path, "%s/hash.txt", dir);
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(vectors[k].text, f) >= 0 && fclose(f) == 0, "write %s", path);
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && pl_hash_fd(fd, hash, NULL) == PL_OK && strcmp(hash, vectors[k].hash) == 0,
              "FNV-1a of '%s': %s (got %s)", vectors[k].text, vectors[k].hash, hash);
        if (fd >= 0)
            close(fd);
    }
}

/* Which --out is refused, as canonical paths: the rule of pl_outdir_system_path. */
static void test_system_paths(void)
{
    const struct {
        const char *path;
        int refused;
    } cases[] = {{"/", 1},           {"/usr", 1},         {"/usr/share/x", 1},  {"/usr/local", 1},
                 {"/usr/local/x", 1}, {"/etc", 1},         {"/etc/x/y", 1},      {"/proc/self", 1},
                 {"/dev", 1},         {"/dev/shm", 1},     {"/dev/shm/study", 0}, {"/tmp", 1},
                 {"/tmp/study", 0},   {"/var", 1},         {"/var/tmp", 1},      {"/var/tmp/study", 0},
                 {"/var/lib/x", 1},   {"/home", 1},        {"/home/ann", 1},     {"/home/ann/study", 0},
                 {"/root", 1},        {"/root/study", 0},  {"/usrx", 0},         {"/work/out", 0},
                 {"/etcetera", 0},    {"/opt", 1},         {"/opt/study", 0},    {"/var/mail", 1},
                 {"/var/backups/x", 1}, {"/var/tmpx", 1},  {"/run", 1},          {"/run/lock", 1},
                 {"/run/lock/subsys", 1}, {"/run/user", 1}, {"/run/user/1000", 1}, {"/run/user/1000/study", 0},
                 {"/runx", 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        CHECK((pl_outdir_system_path(cases[k].path, "/home/ann") != NULL) == cases[k].refused, "%s %s", cases[k].path,
              cases[k].refused ? "refused" : "accepted");
    CHECK(pl_outdir_system_path("/home/ann", NULL) == NULL && pl_outdir_system_path("/home", "") != NULL,
          "without a home: /home itself only");
}

/* Manifests are read from untrusted files: anything is either accepted or refused, never a crash. */
static void test_manifest_parse(void)
{
    const char *valid = "{\"penlim_manifest\": 1, \"command\": \"sweep\", \"refined\": \"mu\", \"files\": [\"a.csv\"],"
                        " \"runs\": [{\"mu\": 1.0, \"status\": \"ok\", \"directory\": \"runs/1\", \"files\": []}]}";
    json_t *m;
    CHECK(pl_manifest_parse(valid, strlen(valid), &m, NULL) == PL_OK, "a valid manifest");
    json_decref(m);
    const char *hashed = "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [\"a.csv\"], "
                         "\"content_hashes\": {\"a.csv\": \"0123456789abcdef\"}}";
    CHECK(pl_manifest_parse(hashed, strlen(hashed), &m, NULL) == PL_OK, "a valid manifest with its hashes");
    json_decref(m);
    const char *bad[] = {"", "null", "[]", "{}", "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [\"../x\"]}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [\"/etc/passwd\"]}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [\"a//b\"]}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [\"manifest.json\"]}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [1]}",
                         "{\"penlim_manifest\": 2, \"command\": \"run\", \"files\": []}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [], \"runs\": [{}]}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [], \"content_hashes\": []}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [], \"content_hashes\": {\"a\": 1}}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [], \"content_hashes\": {\"a\": \"0123\"}}",
                         "{\"penlim_manifest\": 1, \"command\": \"run\", \"files\": [], \"content_hashes\": "
                         "{\"a\": \"0123456789ABCDEF\"}}"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CHECK(pl_manifest_parse(bad[k], strlen(bad[k]), &m, NULL) == PL_ERR_INPUT && !m, "refused: %s", bad[k]);
    }
    /* random mutations of the valid one */
    unsigned seed = 12345;
    char buf[512];
    size_t len = strlen(valid);
    for (int trial = 0; trial < 20000; trial++) {
        memcpy(buf, valid, len);
        for (int j = 0; j < 1 + trial % 4; j++) {
            seed = seed * 1103515245u + 12345u;
            buf[(seed >> 8) % len] = (char)(seed >> 20);
        }
        if (pl_manifest_parse(buf, len, &m, NULL) == PL_OK)
            json_decref(m);
    }
}

/* The content hash of dir/NAME, as pl_hash_fd computes it. */
static void file_hash(const char *name, char hash[PL_HASH_LEN])
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY);
    hash[0] = '\0';
    if (fd >= 0 && pl_hash_fd(fd, hash, NULL) != PL_OK)
        hash[0] = '\0';
    if (fd >= 0)
        close(fd);
}

/* JSON numbers written as CSV writes them (1e4, 1e-8, 3.0) read back as the numbers they were, and so
 * does a summary.json in the form of earlier versions (10000.0, as jansson dumps it, without
 * "samples"), whose samples are then not known. */
static void test_json_numbers_read_back(void)
{
    CHECK(run("sweep bouncing_ball --mu 1e4 --t-end 1 --samples 30 --no-plots --no-limit --jobs 1 --out jn --quiet") == 0,
          "a sweep");
    char *text = slurp("jn/runs/001_mu_1e4/summary.json");
    CHECK(text && strstr(text, "\"mu\": 1e4,") && strstr(text, "\"rtol\": 1e-8,") && strstr(text, "\"t_end\": 1.0,"),
          "summary.json writes 1e4, 1e-8, 1.0");
    free(text);
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, pl_case_find("bouncing_ball"), NULL, 0, &err) == PL_OK, "the model");
    char path[512];
    snprintf(path, sizeof path, "%s/jn/runs/001_mu_1e4", dir);
    for (int old = 0; old < 2; old++) {
        if (old) { /* as jansson dumps it, without "samples" */
            char file[600];
            snprintf(file, sizeof file, "%s/summary.json", path);
            json_error_t jerr;
            json_t *j = json_load_file(file, 0, &jerr);
            CHECK(j && json_object_del(j, "samples") == 0 && json_dump_file(j, file, JSON_INDENT(2)) == 0,
                  "summary.json rewritten in the earlier form");
            json_decref(j);
            text = slurp("jn/runs/001_mu_1e4/summary.json");
            CHECK(text && strstr(text, "\"mu\": 10000.0,"), "the earlier form");
            free(text);
        }
        pl_solution sol;
        pl_status s = pl_read_solution(path, &m, &pl_solver_penalty, &sol, &err);
        CHECK(s == PL_OK && sol.option[0] == 1e4 && sol.option[1] == 1e-8 && sol.t_end == 1.0 &&
                  sol.samples == (old ? SIZE_MAX : 30),
              "%s form read back: mu %g, rtol %g, t_end %g, samples %zu (%s)", old ? "earlier" : "current",
              sol.option[0], sol.option[1], sol.t_end, sol.samples, s ? err.message : "");
        pl_solution_free(&sol);
    }
    pl_model_free(&m);
}

/* A run read back through its directory's descriptor is checked on the bytes read: the recorded
 * hashes accept it, another hash or a link in place of a file refuses it (a run to compute again). */
static void test_read_verified(void)
{
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 2 --no-plots --no-limit --jobs 1 --out rv --quiet") == 0,
          "a sweep");
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, pl_case_find("bouncing_ball"), NULL, 0, &err) == PL_OK, "the model");
    char hs[PL_HASH_LEN], ht[PL_HASH_LEN], other[PL_HASH_LEN], path[512];
    file_hash("rv/runs/001_mu_1e3/summary.json", hs);
    file_hash("rv/runs/001_mu_1e3/trajectory.csv", ht);
    file_hash("rv/runs/002_mu_1e4/trajectory.csv", other);
    snprintf(path, sizeof path, "%s/rv/runs/001_mu_1e3", dir);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    pl_solution sol;
    pl_run_hashes right = {hs, ht, NULL}, wrong = {hs, other, NULL};
    pl_status s = pl_read_solution_at(fd, path, &m, &pl_solver_penalty, &right, &sol, &err);
    CHECK(s == PL_OK && sol.traj.nrows > 0, "read with the hashes recorded (%d: %s)", s, s ? err.message : "");
    pl_solution_free(&sol);
    s = pl_read_solution_at(fd, path, &m, &pl_solver_penalty, &wrong, &sol, &err);
    CHECK(s == PL_ERR_INPUT && strstr(err.message, "001_mu_1e3/trajectory.csv: has changed since penlim wrote it") &&
              sol.traj.nrows == 0,
          "another hash: refused, nothing kept (%d: %s)", s, err.message);
    pl_solution_free(&sol);
    CHECK(sh("cd rv/runs/001_mu_1e3 && mv trajectory.csv t.csv && ln -s t.csv trajectory.csv", "", ""), "a link");
    s = pl_read_solution_at(fd, path, &m, &pl_solver_penalty, &right, &sol, &err);
    CHECK(s == PL_ERR_INPUT && strstr(err.message, "trajectory.csv"), "a link is not followed (%d: %s)", s,
          err.message);
    pl_solution_free(&sol);
    if (fd >= 0)
        close(fd);
    pl_model_free(&m);
}

/* A file swapped with another run's between the check of its hash and its reading (here by a
 * preloaded library, right after penlim first opens it): what is reused is what was verified.
 * penlim verified a run's files, then opened them again by path to read them: the run at mu = 1e3
 * was reused with the trajectory of the run at 1e4, and sweep.csv computed from it. */
static void test_resume_swap_while_reading(void)
{
    if (strcmp(io_faults, "none") == 0) {
        printf("a swap while --resume reads: skipped (sanitizers)\n");
        return;
    }
    const char *sweep = "sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 2 --no-plots --jobs 1";
    char args[8192], env[2048];
    snprintf(args, sizeof args, "%s --out sw_ref --quiet", sweep);
    CHECK(run(args) == 0, "the reference sweep");
    CHECK(sh("rm -rf sw_race && cp -r sw_ref sw_race", "", ""), "a copy to resume");
    snprintf(env, sizeof env,
             "LD_PRELOAD=%s PENLIM_FAULT_SWAP=%s/sw_race/runs/001_mu_1e3/trajectory.csv:%s/sw_race/runs/"
             "002_mu_1e4/trajectory.csv",
             io_faults, dir, dir);
    snprintf(args, sizeof args, "cd %s && %s %s %s --out sw_race --resume > stdout.txt 2> stderr.txt", dir, env,
             penlim, sweep);
    int rc = system(args);
    char *out = slurp("stdout.txt");
    CHECK(rc == 0 && out && strstr(out, "reused 2 of the 3 runs"),
          "resumed: the run whose file now holds another's computed again (%d: %s)", rc, out ? out : "");
    free(out);
    CHECK(same_sweep_csv("sw_ref/sweep.csv", "sw_race/sweep.csv"), "sweep.csv computed from the files verified");
    CHECK(same_file("sw_ref/runs/002_mu_1e4/trajectory.csv", "sw_race/runs/002_mu_1e4/trajectory.csv"),
          "the run computed again written again");
    /* The file swapped in after the reading is not the one the manifest records: the next --resume
     * computes that run again, and the directory is the reference's. */
    snprintf(args, sizeof args, "%s --out sw_race --resume", sweep);
    CHECK(run(args) == 0, "--resume again");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 3 runs"), "the swapped file found: %s", out ? out : "");
    free(out);
    compare_sweeps("sw_ref", "sw_race", 3);
}

/* A file of a directory that cannot be read (EIO, from a preloaded library) is an error: exit 1
 * with the file and the reason, never taken for a malformed or short file.  The manifest was taken
 * for a malformed one (a file penlim did not write, exit 2); plots_config.gp and trajectory.csv were
 * read with stdio, whose errors were taken for the end of the file; a run --resume could not hash
 * was computed again quietly (exit 0). */
static void test_read_errors_in_directory(void)
{
    if (strcmp(io_faults, "none") == 0) {
        printf("read errors in a directory: skipped (sanitizers)\n");
        return;
    }
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 1 --samples 50 --out eio_run --quiet") == 0, "a run");
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 50 --no-plots --out eio_sweep --quiet") == 0,
          "a sweep");
    const struct {
        const char *file, *args, *message;
    } cases[] = {
        {"manifest.json", "plot eio_run", "eio_run/manifest.json: Input/output error"},
        {"manifest.json", "run bouncing_ball --mu 1e4 --t-end 1 --out eio_run",
         "eio_run/manifest.json: Input/output error"},
        {"trajectory.csv", "plot eio_run", "cannot read eio_run/trajectory.csv: Input/output error"},
        {"plots_config.gp", "plot eio_sweep", "cannot read eio_sweep/plots_config.gp: Input/output error"},
        {"trajectory_s.csv", "sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 50 --no-plots --out eio_sweep --resume",
         "eio_sweep/runs/001_mu_1e3/trajectory_s.csv: cannot read: Input/output error"},
        {"summary.json", "sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 50 --no-plots --out eio_sweep --resume",
         "eio_sweep/runs/001_mu_1e3/summary.json: cannot read: Input/output error"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "cd %s && LD_PRELOAD=%s PENLIM_FAULT_EIO=%s %s %s > stdout.txt 2> stderr.txt", dir,
                 io_faults, cases[k].file, penlim, cases[k].args);
        int rc = system(cmd);
        char *err = slurp("stderr.txt");
        CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 && err && lines(err) == 1 && strstr(err, cases[k].message),
              "'%s' with %s unreadable: exit 1 naming it and the reason (%d: %s)", cases[k].args, cases[k].file,
              WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, err ? err : "");
        free(err);
    }
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 50 --no-plots --out eio_sweep --quiet --resume") ==
              0,
          "resumed again, readable");
    int rc_run = run("plot eio_run --quiet");
    char *err = slurp("stderr.txt");
    CHECK(rc_run == 0, "readable again: drawn (%d: %s)", rc_run, err ? err : "");
    free(err);
    rc_run = run("plot eio_sweep --quiet");
    err = slurp("stderr.txt");
    CHECK(rc_run == 0, "readable again: drawn (%d: %s)", rc_run, err ? err : "");
    free(err);
}

/* --isolate's solve process writes into the run directory its command made and opened, given as
 * descriptor 3, not into the path it is given (for messages): a --out renamed or replaced by a link
 * meanwhile changes nothing.  The hidden command run as a sweep runs it, with descriptor 3 on
 * iso_dir and a path that names no directory: it wrote under that path (mkdir -p, by path). */
static void test_isolated_writes_in_descriptor(void)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p iso_dir && sh -c 'exec 3<iso_dir && exec %s __solve sweep $PPID penalty iso_path/run "
             "bouncing_ball --mu 1e4 --t-end 1 --samples 20 --quiet' > stdout.txt 2> stderr.txt",
             dir, penlim);
    int rc = system(cmd);
    char *err = slurp("stderr.txt");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "the solve's process (%d: %s)", rc, err ? err : "");
    free(err);
    CHECK(exists("iso_dir/trajectory.csv") && exists("iso_dir/trajectory_s.csv") && exists("iso_dir/summary.json"),
          "its files in the directory given as a descriptor");
    CHECK(!exists("iso_path"), "nothing at the path it was given");
}

/* The figure step runs gnuplot in the output directory penlim opened, through its descriptor: the
 * directory renamed and its path made a link to another one while the command runs, gnuplot (a
 * stand-in that writes the figures and where it ran) still works in the directory opened, and
 * nothing is written into the link's target.  gnuplot was started in the directory the path named. */
static void test_render_in_descriptor(void)
{
    CHECK(sh("mkdir -p fig_bin fig_a fig_elsewhere && printf '#!/bin/sh\\npwd -P > where.txt\\n"
             "echo png > probe.png\\necho pdf > probe.pdf\\n' > fig_bin/gnuplot && chmod +x fig_bin/gnuplot", "", ""),
          "a stand-in gnuplot");
    char root[512], bin[512], path_env[4096];
    snprintf(root, sizeof root, "%s/fig_a", dir);
    snprintf(bin, sizeof bin, "%s/fig_bin", dir);
    const char *old_path = getenv("PATH");
    char *saved = old_path ? strdup(old_path) : NULL;
    snprintf(path_env, sizeof path_env, "%s:%s", bin, old_path ? old_path : "/usr/bin:/bin");
    setenv("PATH", path_env, 1);
    pl_output out;
    pl_error err;
    pl_output_init(&out, root, 0644, NULL);
    CHECK(pl_output_open(&out, &err) == PL_OK, "open %s: %s", root, err.message);
    CHECK(sh("echo '# the figure' > fig_a/probe.gp && mv fig_a fig_moved && ln -s fig_elsewhere fig_a", "", ""),
          "the directory moved, a link in its place");
    pl_status s = pl_plot_render(&out, "probe", NULL, &err);
    CHECK(s == PL_OK, "rendered in the directory opened (%d: %s)", s, s == PL_OK ? "" : err.message);
    char *where = slurp("fig_moved/where.txt"), moved[600], real[PATH_MAX] = "";
    snprintf(moved, sizeof moved, "%s/fig_moved", dir);
    CHECK(realpath(moved, real) && where && strncmp(where, real, strlen(real)) == 0 && where[strlen(real)] == '\n',
          "gnuplot ran in the directory opened (%s), not where its path now leads: %s", real, where ? where : "(none)");
    free(where);
    CHECK(exists("fig_moved/probe.png") && exists("fig_moved/probe.pdf") && exists("fig_moved/gnuplot.log") &&
              pl_strings_has(&out.written, "probe.png"),
          "the figures and the log in the directory opened");
    CHECK(!exists("fig_elsewhere/where.txt") && !exists("fig_elsewhere/probe.png") &&
              !exists("fig_elsewhere/gnuplot.log"),
          "nothing written into the link's target");
    CHECK(pl_plot_start_log(&out, &err) == PL_OK && !exists("fig_moved/gnuplot.log"),
          "the log removed through the descriptor");
    pl_output_free(&out);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
}

/* The list's index finds every item, after additions, a replacement, a removal and a reordering,
 * and nothing else (a study lists 1e5 file names: a pass over them per lookup was its set-up's cost). */
static void test_strings_index(void)
{
    pl_strings s = {0};
    pl_error err;
    char name[64];
    for (int k = 0; k < 3000; k++) {
        snprintf(name, sizeof name, "runs/%05d/summary.json", k);
        CHECK(pl_strings_add(&s, name, &err) == PL_OK, "add");
    }
    int found = 0, wrong = 0;
    for (int k = 0; k < 3000; k++) {
        snprintf(name, sizeof name, "runs/%05d/summary.json", k);
        found += pl_strings_find(&s, name) == k;
        snprintf(name, sizeof name, "runs/%05d/summary.jso", k);
        wrong += pl_strings_has(&s, name);
    }
    CHECK(found == 3000 && wrong == 0 && s.index, "3000 found at their positions, none of 3000 absent (%d, %d)", found,
          wrong);
    CHECK(pl_strings_set(&s, 7, "replaced", &err) == PL_OK && pl_strings_find(&s, "replaced") == 7 &&
              !pl_strings_has(&s, "runs/00007/summary.json"),
          "a replaced item is found by its new text only");
    pl_strings_pop(&s);
    CHECK(s.n == 2999 && !pl_strings_has(&s, "runs/02999/summary.json"), "a removed item is gone");
    char *t = s.items[0];
    s.items[0] = s.items[1];
    s.items[1] = t;
    pl_strings_reindex(&s);
    CHECK(pl_strings_find(&s, "runs/00000/summary.json") == 1 && pl_strings_find(&s, "runs/00001/summary.json") == 0,
          "reordered and indexed again: the new positions");
    pl_strings_free(&s);
}

int main(int argc, char **argv)
{
    check_init();
    test_strings_index();
    if (argc < 4) {
        fprintf(stderr, "usage: test_output PATH_TO_PENLIM PATH_TO_PYTHON3 IO_FAULTS|none\n");
        return 2;
    }
    python = argv[2];
    static char faults_path[PATH_MAX];
    if (strcmp(argv[3], "none") != 0 && !realpath(argv[3], faults_path)) {
        fprintf(stderr, "test_output: %s not found\n", argv[3]);
        return 2;
    }
    io_faults = strcmp(argv[3], "none") == 0 ? "none" : faults_path;
    static char path[PATH_MAX];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_output: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-output-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_temporaries_and_foreign_files();
    test_lock();
    test_nested_commands();
    test_symlinks();
    test_refusals_create_nothing();
    test_stale_files();
    test_out_validation();
    test_umask();
    test_resume();
    test_resume_verifies();
    test_resume_out_of_time();
    test_read_verified();
    test_json_numbers_read_back();
    test_resume_swap_while_reading();
    test_read_errors_in_directory();
    test_fifo();
    test_signal();
    test_other_signals();
    test_write_failure_reason();
    test_manifest_parse();
    test_system_paths();
    test_hash();
    test_render_in_descriptor();
    test_isolated_writes_in_descriptor();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_output");
}
