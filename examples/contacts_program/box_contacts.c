/* A program that reads a solution's contacts through the penlim library: the built-in box of 12
 * disks (spheres, config 3: 114 constraints, so stored sparse by default) solved by the penalty
 * method, then, row by row, the constraints in contact (pl_solution_contacts works the same for
 * dense and sparse storage): the most at one row, and the deepest penetration. */
#include <stdio.h>
#include <stdlib.h>

#include <penlim/penlim.h>

int main(void)
{
    pl_library_init();
    pl_error err;
    pl_setting settings[] = {{"config", 3.0}};
    pl_model *model = pl_model_create(pl_builtin_case_find("spheres"), settings, 1, &err);
    if (!model) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    pl_setting options[] = {{"mu", 1e6}, {"t_end", 2.0}};
    pl_solution *sol;
    if (pl_solve_model(model, "penalty", options, 2, &sol, &err) != PL_OK) {
        fprintf(stderr, "%s\n", err.message);
        pl_solution_destroy(sol);
        pl_model_destroy(model);
        return 3;
    }
    size_t most = 0, most_row = 0, deepest_constraint = 0;
    double deepest = 0.0, deepest_t = 0.0;
    for (size_t row = 0; row < pl_solution_rows(sol); row++) {
        size_t count = pl_solution_contacts(sol, row, 0, NULL, NULL, NULL); /* how many, first */
        size_t *constraint = malloc((count ? count : 1) * sizeof *constraint);
        double *g = malloc((count ? count : 1) * sizeof *g);
        if (!constraint || !g) {
            free(constraint);
            free(g);
            break;
        }
        pl_solution_contacts(sol, row, count, constraint, g, NULL);
        for (size_t k = 0; k < count; k++)
            if (g[k] < deepest) {
                deepest = g[k];
                deepest_constraint = constraint[k];
                deepest_t = pl_solution_row(sol, row)[0];
            }
        if (count > most)
            most = count, most_row = row;
        free(constraint);
        free(g);
    }
    printf("%s contacts, %zu rows of %zu columns\n", pl_solution_sparse_contacts(sol) ? "sparse" : "dense",
           pl_solution_rows(sol), pl_solution_columns(sol));
    printf("at most %zu constraints in contact at once (row %zu)\n", most, most_row);
    printf("deepest penetration %.6g, constraint %zu at t = %.6g\n", -deepest, deepest_constraint + 1, deepest_t);
    pl_solution_destroy(sol);
    pl_model_destroy(model);
    return 0;
}
