/* The cost of writing and analysing contacts stored dense and sparse (solvers/solution.h): the
 * spheres box of N disks (config 3, default N = 48, mu = 1e6) solved once with dense contacts, its
 * rows copied into a solution with sparse ones (pl_solution_append_row, what the solvers record
 * through), then the files of each (pl_write_solution: trajectory.csv, trajectory_s.csv,
 * summary.json and, sparse, contacts.csv) and the analysis of each, alternately, REPEATS times in one
 * process: the ratios dense / sparse of the fastest of each, and the bytes written.  The numbers
 * written and the contacts stored are counts; the walls are only compared within the run. */
#include <dirent.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/cases.h"
#include "core/clock.h"
#include "io/report.h"
#include "solve.h"
#include "study/analysis.h"

enum { REPEATS = 5 };

/* The bytes of the regular files in path. */
static double bytes_in(const char *path) /* path: at most 1024 bytes */
{
    DIR *d = opendir(path);
    double total = 0.0;
    struct dirent *e;
    char file[2048];
    struct stat st;
    while (d && (e = readdir(d)) != NULL) {
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
            total += (double)st.st_size;
    }
    if (d)
        closedir(d);
    return total;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double N = argc > 1 ? atof(argv[1]) : 48.0;
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"config", 3.0}, {"N", N}};
    if (pl_model_init(&m, pl_case_find("spheres"), set, 2, &err) != PL_OK) {
        fprintf(stderr, "bench_contacts: %s\n", err.message);
        return 2;
    }
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_penalty, &m, NAN);
    o.option[pl_solver_option_index(&pl_solver_penalty, "mu")] = 1e6;
    o.contacts = PL_CONTACTS_DENSE;
    pl_solution sol[2];
    double t0 = pl_now_seconds();
    if (pl_solve(&pl_solver_penalty, &m, &o, &sol[0], &err) != PL_OK) {
        fprintf(stderr, "bench_contacts: %s\n", err.message);
        return 3;
    }
    double solve = pl_now_seconds() - t0;
    /* the sparse copy: the same solution, its rows recorded again */
    sol[1] = sol[0];
    pl_table_init(&sol[1].traj, 0);
    sol[1].traj.max_values = 0;
    sol[1].entries = NULL, sol[1].row_first = NULL, sol[1].nentries = sol[1].entries_cap = sol[1].row_first_cap = 0;
    pl_solution_set_contacts(&sol[1], PL_CONTACTS_SPARSE);
    for (size_t r = 0; r < sol[0].traj.nrows; r++)
        if (pl_solution_append_row(&sol[1], pl_table_row(&sol[0].traj, r), &err) != PL_OK) {
            fprintf(stderr, "bench_contacts: %s\n", err.message);
            return 3;
        }
    char root[] = "/tmp/penlim-bench-contacts-XXXXXX";
    if (!mkdtemp(root))
        return 2;
    const char *sub[2] = {"dense", "sparse"};
    double write[2] = {INFINITY, INFINITY}, analyse[2] = {INFINITY, INFINITY}, bytes[2] = {0, 0};
    for (int k = 0; k < REPEATS; k++)
        for (int j = 0; j < 2; j++) {
            int w = k % 2 ? 1 - j : j; /* alternately first */
            pl_analysis a;
            double ta = pl_now_seconds();
            if (pl_analyze(&m, &sol[w], &a, &err) != PL_OK) {
                fprintf(stderr, "bench_contacts: %s\n", err.message);
                return 3;
            }
            analyse[w] = fmin(analyse[w], pl_now_seconds() - ta);
            pl_output out;
            pl_output_init(&out, root, 0644, NULL);
            double tw = pl_now_seconds();
            pl_status s = pl_write_solution(&out, sub[w], &m, &sol[w], &a, NULL, &err);
            write[w] = fmin(write[w], pl_now_seconds() - tw);
            pl_output_free(&out);
            pl_analysis_free(&a);
            if (s != PL_OK) {
                fprintf(stderr, "bench_contacts: %s\n", err.message);
                return 3;
            }
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", root, sub[w]);
            bytes[w] = bytes_in(path);
        }
    size_t rows = sol[0].traj.nrows;
    printf("spheres config 3, N = %g (%zu constraints), mu = 1e6: %zu rows, %ld steps, %ld rhs, solve %.2f s\n", N, m.m,
           rows, sol[0].stats.steps, sol[0].stats.rhs_evals, solve);
    printf("dense:  %zu numbers of G and force, files %.4g MB, write %.3f s, analysis %.3f s (fastest of %d)\n",
           2 * rows * m.m, bytes[0] / 1e6, write[0], analyse[0], REPEATS);
    printf("sparse: %zu contacts stored, files %.4g MB, write %.3f s, analysis %.3f s\n", sol[1].nentries,
           bytes[1] / 1e6, write[1], analyse[1]);
    printf("dense / sparse: bytes %.2f, write %.2f, analysis %.2f\n", bytes[0] / bytes[1], write[0] / write[1],
           analyse[0] / analyse[1]);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_contacts: could not remove %s\n", root);
    pl_solution_free_rows(&sol[1]); /* its own rows and contacts; the rest is sol[0]'s */
    pl_solution_free(&sol[0]);
    pl_model_free(&m);
    return 0;
}
