/* A program that calls the penlim library: a penalty sweep of the built-in bouncing ball over
 * mu = 1e4 ... 1e10 and the fitted rate at which its first impact's restitution converges to the
 * limit e (Miller and Bentsman: the penalized impact's restitution tends to e as mu -> infinity). */
#include <stdio.h>

#include <penlim/penlim.h>

int main(void)
{
    pl_library_init();
    pl_error err;
    pl_setting settings[] = {{"e", 0.8}};
    pl_model *model = pl_model_create(pl_builtin_case_find("bouncing_ball"), settings, 1, &err);
    if (!model) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
    pl_setting options[] = {{"t_end", 1.0}};
    pl_sweep *sweep;
    if (pl_sweep_model(model, "penalty", mu, 7, options, 1, 2, 0, &sweep, &err) != PL_OK) {
        fprintf(stderr, "%s\n", err.message);
        pl_model_destroy(model);
        return 3;
    }
    double values[7], limit, rate, rate_se;
    if (pl_sweep_quantity_get(sweep, "restitution_first", values, &limit, &rate, &rate_se, &err) != PL_OK) {
        fprintf(stderr, "%s\n", err.message);
    } else {
        for (size_t k = 0; k < pl_sweep_runs(sweep); k++)
            printf("mu = %-8g restitution %.10f\n", mu[k], values[k]);
        printf("limit %.10g, error ~ mu^-rate with rate %.4f +- %.4f\n", limit, rate, rate_se);
    }
    pl_sweep_destroy(sweep);
    pl_model_destroy(model);
    return 0;
}
