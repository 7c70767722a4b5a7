#include "solvers/solver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/number.h"

const char *pl_solver_family_name(pl_solver_family family)
{
    switch (family) {
    case PL_FAMILY_PENALTY: return "penalty";
    case PL_FAMILY_LIMIT: return "limit";
    case PL_FAMILY_EXTERNAL: return "external";
    default: return "scheme";
    }
}

int pl_solver_option_index(const pl_solver_type *s, const char *name)
{
    return pl_param_find(s->options, s->noptions, name);
}

double pl_solution_option(const pl_solution *sol, const char *name)
{
    int k = sol->solver ? pl_solver_option_index(sol->solver, name) : -1;
    return k < 0 ? NAN : sol->option[k];
}

void pl_solve_opts_init(pl_solve_opts *o, const pl_solver_type *s, const pl_model *model, double t_end)
{
    memset(o, 0, sizeof *o);
    o->t_end = isnan(t_end) ? model->type->t_end : t_end;
    o->samples = pl_solver_can(s, PL_SOLVER_SAMPLED) ? PL_SAMPLED_DEFAULT_SAMPLES : 1000;
    for (size_t k = 0; k < s->noptions; k++) {
        o->option[k] = s->options[k].value;
        if ((s->options[k].flags & PL_PARAM_DERIVED) && s->default_option)
            o->option[k] = s->default_option(model, o->t_end, k);
    }
}

pl_status pl_solve_opts_set(pl_solve_opts *o, const pl_solver_type *s, const char *name, double value,
                            pl_error *err)
{
    int k = pl_solver_option_index(s, name);
    if (k < 0)
        return pl_fail(err, PL_ERR_INPUT, "option --%s does not apply to the %s solver", name, s->name);
    pl_status st = pl_param_check(&s->options[k], value, err);
    if (st == PL_OK)
        o->option[k] = value;
    return st;
}

pl_status pl_solve_check(const pl_solver_type *s, const pl_model *model, const pl_solve_opts *o, pl_error *err)
{
    pl_status st;
    if (s->applies && (st = s->applies(model, err)) != PL_OK)
        return st;
    char got[PL_NUMBER_LEN]; /* as given: %g printed t-end = 9.9999999e-13 as 1e-12 */
    if (!(isfinite(o->t_end) && o->t_end >= 1e-12))
        return pl_fail(err, PL_ERR_INPUT, "t-end must be a finite number >= 1e-12 (got %s)",
                       pl_format_double(o->t_end, got, sizeof got));
    if (model->type->valid_until) { /* parameters that admit no configuration from some time on */
        char why[384] = "";
        double until = model->type->valid_until(model->par, why, sizeof why, model->type->user);
        why[sizeof why - 1] = '\0'; /* a model that filled msg to the end without its NUL */
        char t_end[PL_NUMBER_LEN], most[PL_NUMBER_LEN];
        if (isnan(until)) /* no time to offer: a defect of the model, not of t-end */
            return pl_fail(err, PL_ERR_INPUT, "%s: its valid_until returned NaN instead of a time (INFINITY if its "
                           "parameters always admit a configuration)", model->type->name);
        /* t-end against the case's time itself; the message offers it rounded down to 12 digits, a
         * t-end that is accepted */
        if (!(until >= o->t_end))
            return pl_fail(err, PL_ERR_INPUT, "%s: %s; t-end = %s lies beyond: lower it to %s or change the parameters",
                           model->type->name, why[0] ? why : "its parameters admit no configuration",
                           pl_format_double(o->t_end, t_end, sizeof t_end), pl_format_down(until, 12, most, sizeof most));
    }
    if (o->max_steps < 0)
        return pl_fail(err, PL_ERR_INPUT, "max-steps must be >= 0 (got %ld)", o->max_steps);
    if (!(o->max_seconds >= 0 && o->max_seconds < INFINITY))
        return pl_fail(err, PL_ERR_INPUT, "max-seconds must be a finite number >= 0 (got %s)",
                       pl_format_double(o->max_seconds, got, sizeof got));
    if (!(o->max_output >= 0 && o->max_output < INFINITY))
        return pl_fail(err, PL_ERR_INPUT, "max-output must be a finite number >= 0 (got %s)",
                       pl_format_double(o->max_output, got, sizeof got));
    if ((st = pl_contacts_check(o->contacts, model->m, err)) != PL_OK)
        return st;
    double cap = o->max_output > 0 ? o->max_output : PL_DEFAULT_MAX_OUTPUT;
    size_t ncols = pl_contacts_resolve(o->contacts, model->m) == PL_CONTACTS_DENSE ? pl_ncols(model->n, model->m)
                                                                                 : 2 + 2 * model->n;
    double values = (double)(o->samples + 1) * (double)ncols;
    if (values > cap)
        return pl_fail(err, PL_ERR_INPUT,
                       "--samples %zu asks for %.3g values (rows x %zu columns), beyond the output cap of %.3g: "
                       "raise it with --max-output",
                       o->samples, values, ncols, cap);
    for (size_t k = 0; k < s->noptions; k++)
        if ((st = pl_param_check(&s->options[k], o->option[k], err)) != PL_OK)
            return st;
    return s->check ? s->check(model, o, err) : PL_OK;
}

pl_status pl_solve_poll(const pl_model *model, int (*cancel)(void *user), void *user, double t, pl_error *err)
{
    if (cancel && cancel(user))
        return pl_fail(err, PL_ERR_SOLVER, "cancelled at t = %.17g", t);
    char why[256];
    if (pl_model_failed(model, why, sizeof why))
        return pl_fail(err, PL_ERR_SOLVER, "the model failed at t = %.17g: %s", t, why);
    return PL_OK;
}

pl_status pl_solve(const pl_solver_type *s, const pl_model *model, const pl_solve_opts *o, pl_solution *sol,
                   pl_error *err)
{
    pl_status st = pl_solution_init(sol, s, model, o->t_end, err);
    memcpy(sol->option, o->option, s->noptions * sizeof *o->option);
    sol->samples = o->samples;
    pl_solution_set_contacts(sol, o->contacts);
    if (st == PL_OK)
        st = pl_solve_check(s, model, o, err);
    if (st != PL_OK) {
        sol->status = st;
        if (err)
            sol->error = *err;
        return st;
    }
    sol->traj.max_values = o->max_output > 0 ? o->max_output : PL_DEFAULT_MAX_OUTPUT;
    pl_solve_opts with_start = *o;
    pl_solve_opts_count_from(&with_start, pl_budget_start(o, pl_now_seconds()));
    st = s->solve(model, &with_start, sol, err);
    /* A model whose callback failed returned NAN, which the solver may have taken for its own failure
     * (or not noticed): the model's reason is the one to report, once the solve is over. */
    char why[256];
    if ((st == PL_OK || st == PL_ERR_SOLVER) && pl_model_failed(model, why, sizeof why)) {
        pl_error failed;
        st = sol->status = pl_fail(&failed, PL_ERR_SOLVER, "the model failed at t = %.17g: %s", sol->t_final, why);
        sol->error = failed;
        if (err)
            *err = failed;
    }
    /* A failure names the run (mu = ..., h = ...) where the solver's own message does not: out of
     * memory, or a cap on the output. */
    if (st != PL_OK && err && s->refine) {
        int k = pl_solver_option_index(s, s->refine);
        char tag[64], value[PL_NUMBER_LEN]; /* as the penalized run's context writes it */
        snprintf(tag, sizeof tag, "(%s = %s)", s->refine, pl_format_short(o->option[k], value, sizeof value));
        if (!strstr(err->message, tag)) {
            char msg[sizeof err->message];
            memcpy(msg, err->message, sizeof msg);
            pl_fail(err, st, "%.400s %s", msg, tag);
            sol->error = *err;
        }
    }
    return st;
}
