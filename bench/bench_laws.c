/* Cost of the penalized integration under each contact law: bouncing_ball with its defaults (e = 0.9 for
 * Kelvin-Voigt and its clamped form, Hertz's k = 1, Hunt-Crossley's k = 1, n = 3/2, c = 0.1 s/m), t in
 * [0, 10], rtol = 1e-8, mu = 1e4, 1e6, ..., 1e12.  Prints counts only: steps per impact (the contact and
 * the flight after it, as in bench_cost; and those inside the contact alone, split at the largest
 * penetration into compression and restitution), the impacts, all steps, rejected steps (error test
 * failures, flights included) per impact, right-hand sides and Jacobians; then
 * each law's steps per impact over Kelvin-Voigt's at the same mu (target: within 2) and its largest over
 * its smallest across mu (flat in mu: target within 1.5). */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cases/cases.h"
#include "laws/law.h"
#include "solve.h"

enum { NMU = 5, NLAW = 4 };

/* The first row at or after time t from row a on. */
static size_t row_at(const pl_table *traj, size_t a, double t)
{
    while (a + 1 < traj->nrows && pl_table_row(traj, a)[0] < t)
        a++;
    return a;
}

/* Internal steps between rows a and b: rows with distinct times (a contact switch records its state
 * twice at the same time). */
static size_t steps_between(const pl_table *traj, size_t a, size_t b)
{
    size_t count = 0;
    for (size_t r = a + 1; r <= b && r < traj->nrows; r++)
        count += pl_table_row(traj, r)[0] > pl_table_row(traj, r - 1)[0];
    return count;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double rtol = argc > 1 ? atof(argv[1]) : 1e-8;
    const pl_law_type *laws[NLAW] = {&pl_law_kelvin_voigt, &pl_law_kelvin_voigt_clamped, &pl_law_hertz,
                                     &pl_law_hunt_crossley};
    double per_impact[NLAW][NMU];
    printf("bouncing_ball, t in [0, 10], rtol = %g: steps per impact (contact and the flight after it)\n", rtol);
    printf("%-22s %8s %8s %8s %9s %6s %13s %12s %9s %9s %10s\n", "law", "mu", "impacts", "steps", "rhs", "jac",
           "steps/impact", "in contact", "compress", "restitute", "rejected/i");
    for (int l = 0; l < NLAW; l++) {
        pl_model model;
        pl_error err;
        if (pl_model_init_law(&model, &pl_case_bouncing_ball, laws[l], NULL, 0, &err) != PL_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        for (int k = 0; k < NMU; k++) {
            double mu = pow(10.0, 4 + 2 * k);
            pl_solution r;
            per_impact[l][k] = NAN;
            if (solve_penalty(&model, mu, rtol, 10.0, 0, &r, &err) != PL_OK) {
                printf("%-22s %8.0e failed: %s\n", laws[l]->name, mu, err.message);
                pl_solution_free(&r);
                continue;
            }
            /* every episode that ends is an impact; its steps run to the next episode's entry */
            size_t impacts = 0, rows = 0, contact_rows = 0, compression_rows = 0;
            for (size_t e = 0; e < r.nepisodes; e++) {
                if (isnan(r.episodes[e].t_out))
                    continue;
                impacts++;
                contact_rows += steps_between(&r.traj, r.episodes[e].row_in, r.episodes[e].row_out);
                compression_rows += steps_between(
                    &r.traj, r.episodes[e].row_in, row_at(&r.traj, r.episodes[e].row_in, r.episodes[e].t_max_penetration));
                rows += steps_between(&r.traj, r.episodes[e].row_in,
                                      e + 1 < r.nepisodes ? r.episodes[e + 1].row_in : r.traj.nrows - 1);
            }
            per_impact[l][k] = impacts ? (double)rows / (double)impacts : NAN;
            double ni = impacts ? (double)impacts : NAN;
            printf("%-22s %8.0e %8zu %8ld %9ld %6ld %13.1f %12.1f %9.1f %9.1f %10.1f\n", laws[l]->name, mu, impacts,
                   r.stats.steps, r.stats.rhs_evals, r.stats.jac_evals, per_impact[l][k], (double)contact_rows / ni,
                   (double)compression_rows / ni, (double)(contact_rows - compression_rows) / ni,
                   (double)r.stats.error_test_fails / ni);
            pl_solution_free(&r);
        }
        pl_model_free(&model);
    }
    printf("\nsteps per impact over kelvin_voigt's at the same mu (target <= 2), and max/min over mu (target <= 1.5)\n");
    printf("%-22s", "law");
    for (int k = 0; k < NMU; k++)
        printf(" %7s%d", "mu=1e", 4 + 2 * k);
    printf(" %8s\n", "max/min");
    for (int l = 0; l < NLAW; l++) {
        double lo = INFINITY, hi = 0.0;
        printf("%-22s", laws[l]->name);
        for (int k = 0; k < NMU; k++) {
            printf(" %8.2f", per_impact[l][k] / per_impact[0][k]);
            lo = fmin(lo, per_impact[l][k]);
            hi = fmax(hi, per_impact[l][k]);
        }
        printf(" %8.2f\n", hi / lo);
    }
    return 0;
}
