/* What a default sweep writes and what its figures cost (docs/verification.md, "Output sizes"):
 *
 *   bench_outputs PENLIM [CASE [SCHEME]]      (default: bouncing_ball moreau_jean)
 *
 * runs `penlim sweep CASE --scheme SCHEME` on its default grid (and the penalty's default mu sweep,
 * then again with --samples 1000: the rows stored before they were sampled by events, every step and
 * the 1000 output samples, where no flight holds more), then prints the directory's size in bytes
 * (data files and figures apart, and the largest run), the solves' seconds (sweep.json's
 * wall_seconds summed over the runs), the command's wall time and that of `penlim plot` on the
 * directory (every figure redrawn), each as a ratio to the solves', and for the scheme's sweep the
 * targets of docs/verification.md, "Output sizes": under 10 MB, figures under 3 s on an idle
 * machine (the load average printed with them).  Seconds are measured on a shared machine: the
 * ratios are the result, not asserted anywhere. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    long long data, figures, largest_run;
    char largest[1024];
} sizes;

/* Bytes under path, figures (.png, .pdf) apart; a run directory's total for the largest. */
static long long walk(const char *path, sizes *s, int depth)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    long long total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            long long sub = walk(p, s, depth + 1);
            total += sub;
            if (depth == 1 && sub > s->largest_run) /* runs/NNN_... */
                s->largest_run = sub, snprintf(s->largest, sizeof s->largest, "%s", p);
        } else if (S_ISREG(st.st_mode)) {
            size_t n = strlen(e->d_name);
            int figure = n > 4 && (strcmp(e->d_name + n - 4, ".png") == 0 || strcmp(e->d_name + n - 4, ".pdf") == 0);
            (figure ? &s->figures : &s->data)[0] += st.st_size;
            total += st.st_size;
        }
    }
    closedir(d);
    return total;
}

/* The 1-minute load average (NAN if unknown). */
static double load_average(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double load = 0.0 / 0.0;
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = 0.0 / 0.0;
        fclose(f);
    }
    return load;
}

/* Prints the sweep's figures; its total size in bytes and its figures' seconds into *bytes, *figures. */
static void bench(const char *penlim, const char *args, const char *out, double *bytes, double *figures)
{
    *bytes = *figures = 0.0 / 0.0;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf %s && %s sweep %s --out %s --quiet > /dev/null", out, penlim, args, out);
    double t0 = now();
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_outputs: '%s' failed\n", cmd);
        return;
    }
    double sweep_wall = now() - t0;
    snprintf(cmd, sizeof cmd, "%s plot %s --quiet > /dev/null", penlim, out);
    t0 = now();
    int plotted = system(cmd) == 0;
    double plot_wall = now() - t0;
    char path[1024];
    snprintf(path, sizeof path, "%s/sweep.json", out);
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    double solves = 0;
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(j, "runs"), i, run)
        solves += json_real_value(json_object_get(run, "wall_seconds"));
    json_decref(j);
    sizes s = {0};
    walk(out, &s, 0);
    printf("penlim sweep %s\n", args);
    printf("  size: %lld bytes (data %lld, figures %lld); largest run %lld bytes (%s)\n", s.data + s.figures, s.data,
           s.figures, s.largest_run, s.largest);
    printf("  solves: %.3f s (sum of the runs' wall_seconds); sweep command %.3f s = %.1f x the solves\n", solves,
           sweep_wall, sweep_wall / solves);
    printf("  figures (penlim plot): %.3f s = %.2f x the solves%s\n", plot_wall, plot_wall / solves,
           plotted ? "" : " (penlim plot failed)");
    *bytes = (double)(s.data + s.figures);
    *figures = plotted ? plot_wall : 0.0 / 0.0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_outputs PENLIM [CASE [SCHEME]]\n");
        return 2;
    }
    const char *c = argc > 2 ? argv[2] : "bouncing_ball", *scheme = argc > 3 ? argv[3] : "moreau_jean";
    char dir[] = "/tmp/penlim-bench-outputs-XXXXXX";
    if (!mkdtemp(dir))
        return 2;
    char args[256], out[512];
    double bytes, figures, load = load_average(), penalty, penalty_all, unused;
    snprintf(args, sizeof args, "%s --scheme %s", c, scheme);
    snprintf(out, sizeof out, "%s/h", dir);
    bench(argv[1], args, out, &bytes, &figures);
    printf("  %s's default sweep: %.2f MB (target under 10 MB: %s), figures %.2f s (target under 3 s on an idle "
           "machine: %s; load average %.2f at the start on %ld cores)\n",
           scheme, bytes / 1e6, bytes < 10e6 ? "met" : "NOT met", figures,
           figures < 3.0 ? "met" : "not met here", load, sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(out, sizeof out, "%s/mu", dir);
    bench(argv[1], c, out, &penalty, &unused);
    snprintf(args, sizeof args, "%s --samples 1000", c);
    snprintf(out, sizeof out, "%s/mu_all", dir);
    bench(argv[1], args, out, &penalty_all, &unused);
    printf("  the penalty's default sweep: %.2f MB sampled by events, %.2f MB with every step and output sample "
           "(--samples 1000)\n", penalty / 1e6, penalty_all / 1e6);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}
