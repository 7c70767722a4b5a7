/* penlim run and penlim limit: one solution, solved, analysed, written and summarized. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "cli/progress.h"
#include "core/clock.h"
#include "io/report.h"
#include "laws/law.h"
#include "study/analysis.h"

static const char run_usage[] =
    "usage: penlim run (CASE | --model FILE) [--mu X] [--law NAME] [--set NAME=VALUE ...] [--t-end T] [--rtol R] [--out DIR]\n"
    "                       [--samples N] [--max-steps N] [--max-seconds S] [--max-output N]\n"
    "                       [--contacts dense|sparse] [--force] [--quiet]\n"
    "       penlim run CASE --scheme NAME [--h H] [--theta TH] [--gamma G] [--set NAME=VALUE ...]\n"
    "                       [--t-end T] [--out DIR] [--max-steps N] [--max-seconds S]\n"
    "                       [--max-output N] [--contacts dense|sparse] [--force] [--quiet]\n"
    "Integrate the penalized system of CASE for one stiffness mu (Runge-Kutta through impacts,\n"
    "CVODE BDF in settled contact), or run a time-stepping scheme, and write DIR/trajectory.csv,\n"
    "DIR/trajectory_s.csv, DIR/summary.json and DIR/manifest.json (formats: docs/formats.md).\n"
    "  --mu X            stiffness mu > 0 (default 1e8)\n"
    "  --model FILE      a model compiled apart (a shared object exporting penlim_model; see\n"
    "                    'penlim new-model'), in place of CASE; a CASE not built in is also looked\n"
    "                    up as CASE.so in the directories of PENLIM_MODEL_PATH\n"
    "  --set NAME=VALUE  set a case parameter (repeatable; 'penlim cases' lists them)\n"
    "  --law NAME        the contact law (default kelvin_voigt; 'penlim laws' lists them); its\n"
    "                    parameters are set with --set as the case's (k, e or xi; c, n)\n"
    "  --t-end T         end time (default: the case's)\n"
    "  --rtol R          relative tolerance in [1e-14, 1) (default 1e-8; not for schemes);\n"
    "                    absolute tolerances follow the penetration scales at this mu\n"
    "  --out DIR         output directory (default out/run/CASE/SOLVER_PARAM_VALUE, e.g.\n"
    "                    out/run/CASE/penalty_mu_1e8, out/run/CASE/moreau_jean_h_0.001)\n"
    "  --max-steps N     stop with an error after N steps (default 5000000)\n"
    "  --max-seconds S   bound the command's wall-clock time from its start (default: none): a set-up\n"
    "                    that spends it stops the command (nothing written), a run or its analysis\n"
    "                    that reaches it stops with an error, the results up to there written\n"
    "  --max-output N    cap on the values (rows x columns) of a trajectory (default 2e7): a\n"
    "                    larger --samples is refused, a run that reaches it stops with an error\n"
    "  --contacts MODE   how G and the forces are stored and written: dense (columns G1..Gm and\n"
    "                    force1..forcem of trajectory.csv) or sparse (contacts.csv: the\n"
    "                    constraints in contact at each row); default dense up to 100 constraints\n"
    "  --samples N       rows stored per flight (penalty: every row of a contact episode; schemes:\n"
    "                    also per episode) besides those of the events, from every step and a\n"
    "                    uniform grid of max(N, 1000) dense-output samples (default 200; 0: every\n"
    "                    step, no grid)\n"
    "  --scheme NAME     a time-stepping scheme instead: moreau_jean, paoli or maury\n"
    "  --h H             its time step (default: 1e-2 times the case's time scale: V/A from its\n"
    "                    scales, or its forcing time; rounded up to 1, 2 or 5 x 10^k)\n"
    "  --theta TH        Moreau-Jean: theta in [0.5, 1] (default 0.5)\n"
    "  --gamma G         Moreau-Jean: a constraint enters the LCP when G + gamma h Gdot <= 0,\n"
    "                    gamma in [0, 1] (default 0.5)\n"
    "  --force           write into DIR even if it holds files penlim did not write\n"
    "  --quiet           print nothing on success\n";

static void print_vector(const char *name, const double *x, size_t n)
{
    printf("%s = (", name);
    for (size_t j = 0; j < n; j++)
        printf(j ? ", %.6g" : "%.6g", x[j]);
    printf(")");
}

/* "mu = 1e8, rtol = 1e-8" */
static void options_text(const pl_solution *sol, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sol->solver->noptions && used < len; k++) {
        char v[PL_NUMBER_LEN];
        used += (size_t)snprintf(buf + used, len - used, "%s%s = %s", k ? ", " : "", sol->solver->options[k].name,
                                 num(sol->option[k], v));
    }
}


static void print_solution_summary(const pl_model *model, const pl_solution *sol, const pl_analysis *a,
                                   const char *dir, const pl_strings *written)
{
    char opts[256], v[PL_NUMBER_LEN];
    options_text(sol, opts, sizeof opts);
    printf("penlim %s %s (%s): %s, t in [0, %s]\n", sol->solver->family == PL_FAMILY_LIMIT ? "limit" : "run",
           model->type->name, sol->solver->name, opts, num(sol->t_end, v));
    printf("  status: %s\n", sol->status == PL_OK ? "ok" : sol->error.message);
    if (pl_solver_can(sol->solver, PL_SOLVER_EPISODES))
        printf("  contact episodes: %zu, ", sol->nepisodes);
    else
        printf("  ");
    printf("impacts: %zu", a ? a->impacts : 0);
    if (a && a->impacts > 0 && isfinite(a->restitution_first))
        printf(" (first at t = %.6f, restitution %.5f)", a->first_impact_time, a->restitution_first + 0.0);
    else if (a && a->impacts > 0) /* arrived at zero normal speed: no ratio of speeds */
        printf(" (first at t = %.6f, no restitution: zero approach speed)", a->first_impact_time);
    if (a && a->touches_unresolved > 0)
        printf(", %zu contacts not resolved as impacts (the free motion turns the gap within a contact, or "
               "the entry rate is below the run's resolution)", a->touches_unresolved);
    if (pl_solver_compliant(sol->solver) && sol->nepisodes > 0)
        printf(", first contact: constraint %zu at t = %.6f, max penetration %.3g", sol->episodes[0].constraint + 1,
               sol->episodes[0].t_in, sol->episodes[0].max_penetration);
    if (a && !isnan(a->capture_time))
        printf(", capture at t = %.6f", a->capture_time);
    if (sol->zeno.found)
        printf("\n  Zeno: impacts of constraint %zu accumulate at t = %.12g (%zu resolved, ratio %.6g), %s",
               sol->zeno.constraint + 1, sol->zeno.t_accumulation, sol->zeno.impacts_resolved, sol->zeno.ratio,
               sol->zeno.t_accumulation > sol->t_end ? "past t-end: the run ends at t-end in the state they reach"
                                                      : "then continue");
    if (pl_solver_can(sol->solver, PL_SOLVER_ZENO) && !pl_laws_bounces_accumulate(model->law, model->m))
        printf("\n  no Zeno point: the law's impacts never accumulate (elastic, or 1 - e ~ c V)");
    if (sol->tail.found)
        printf("\n  bounces of constraint %zu from t = %.12g summed in closed form to t-end (c v = %.3g, the "
               "impacts never accumulate): %.6g impacts skipped, the last at t = %.12g (+- %.2g), rebound speed "
               "%.6g", sol->tail.constraint + 1, sol->tail.t_start, sol->tail.x_start, sol->tail.impacts,
               sol->tail.t_last, sol->tail.time_error, sol->tail.speed_last);
    printf("\n  final: t = %s", num(sol->t_final, v));
    if (sol->q_final) { /* none where the solution could not even be allocated */
        printf(", ");
        print_vector("q", sol->q_final, sol->n);
        printf(", ");
        print_vector("v", sol->v_final, sol->n);
    }
    const pl_stats *s = &sol->stats;
    if (sol->solver->family == PL_FAMILY_SCHEME)
        printf("\n  cost: %ld steps of %.6g, %ld LCP solves (%ld pivots), %ld rhs evaluations, %.3f s\n", s->steps,
               sol->step_size, s->lcp_solves, s->lcp_iterations, s->rhs_evals, s->wall_seconds);
    else
        printf("\n  cost: %ld steps, %ld rhs evaluations, %ld Jacobians, %ld restarts, %.3f s\n", s->steps,
               s->rhs_evals, s->jac_evals, s->restarts, s->wall_seconds);
    printf("  ");
    print_written(dir, written);
}

/* Solve, analyse, write and report one solution (run and limit). */
static int solve_and_write(const case_options *o, const pl_solver_type *solver, const pl_model *model,
                           const pl_solve_opts *opts)
{
    outdir_session d;
    int rc = outdir_start(o, &d);
    if (rc >= 0) {
        outdir_end(&d);
        return rc;
    }
    pl_error err, io;
    const char *files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < 4; k++)
        s = pl_strings_add(&d.planned, files[k], &io);
    d.manifest = pl_manifest_new(o->cmd, model, solver, opts, NULL);
    d.manifest = with_model_identity(d.manifest, o, model);
    json_t *journal = json_deep_copy(d.manifest);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &io);
    json_decref(journal);
    if (s != PL_OK) {
        fprintf(stderr, "penlim %s: %s\n", o->cmd, io.message);
        outdir_end(&d);
        return exit_code(s);
    }
    pl_solution sol;
    pl_analysis analysis;
    /* the phases on stderr (a line per phase off a terminal, and one every 10 s of a long solve) */
    progress_state progress;
    progress_start(&progress, o->cmd, o->quiet, 1);
    progress_phase(&progress, "solve", "", 0, 1, 0);
    pl_status status = pl_solve(solver, model, opts, &sol, &err);
    if (status == PL_ERR_INPUT) {
        progress_end(&progress);
        pl_solution_free(&sol);
        outdir_end(&d);
        return failure(o->cmd, &err);
    }
    progress_phase(&progress, "solve", "", 1, 1, status != PL_OK);
    progress_phase(&progress, "analysis", "", 0, 1, 0);
    /* the command's budget (opts->started: its start) bounds the analysis too, not the solution */
    pl_status analysis_status = pl_analyze_within(model, &sol, &(pl_budget){opts->max_seconds, opts->started},
                                                  &analysis, &err);
    progress_phase(&progress, "analysis", "", 1, 1, 0);
    if (status == PL_OK && analysis_status != PL_OK) {
        status = sol.status = analysis_status;
        sol.error = err;
    }
    /* The files within a budget of their own, from the start of their writing: a solve or analysis
     * stopped by its budget still has the time to write what it has.  Stopped while writing, the
     * files written are complete and the manifest lists them (pl_outdir_finish removes the rest). */
    pl_budget writing = {opts->max_seconds, pl_now_seconds()};
    pl_error stopped;
    progress_phase(&progress, "files", "", 0, 1, 0);
    s = pl_write_solution(&d.out, NULL, model, &sol, analysis_status == PL_OK ? &analysis : NULL, &writing,
                          &stopped);
    progress_phase(&progress, "files", "", 1, 1, 0);
    progress_end(&progress);
    pl_status write_status = s;
    if (s == PL_ERR_SOLVER)
        s = PL_OK;
    else if (s != PL_OK)
        io = stopped;
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &io);
    if (status != PL_OK)
        fprintf(stderr, "penlim %s: %s\n", o->cmd, sol.error.message);
    if (write_status == PL_ERR_SOLVER)
        fprintf(stderr, "penlim %s: %s\n", o->cmd, stopped.message);
    if (s != PL_OK)
        fprintf(stderr, "penlim %s: %s\n", o->cmd, io.message);
    if (s == PL_OK && !o->quiet)
        print_solution_summary(model, &sol, analysis_status == PL_OK ? &analysis : NULL, o->out, &d.out.written);
    if (status == PL_OK && write_status == PL_ERR_SOLVER)
        status = write_status;
    pl_analysis_free(&analysis);
    pl_solution_free(&sol);
    outdir_end(&d);
    return status != PL_OK ? exit_code(status) : exit_code(s);
}

static int cmd_run_with(int argc, char **argv, pl_model *model)
{
    case_options o = {.cmd = "run", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_RUN, run_usage);
    const pl_solver_type *solver;
    if (rc >= 0 || (rc = choose_solver(&o, &pl_solver_penalty, &solver)) >= 0)
        return rc;
    pl_solve_opts opts;
    if ((rc = prepare(&o, solver, NULL, model, &opts)) >= 0)
        return rc;
    if (o.out == o.out_default) { /* out/run/CASE/SOLVER_PARAM_VALUE: runs at other values do not overwrite it */
        char v[PL_NUMBER_LEN];
        size_t used = strlen(o.out_default);
        int refined = solver->refine ? pl_solver_option_index(solver, solver->refine) : -1;
        if (refined >= 0)
            snprintf(o.out_default + used, sizeof o.out_default - used, "/%s_%s_%s", solver->name, solver->refine,
                     num(opts.option[refined], v));
        else
            snprintf(o.out_default + used, sizeof o.out_default - used, "/%s", solver->name);
    }
    if ((rc = setup_within_budget(&o)) >= 0)
        return rc;
    pl_solve_opts_count_from(&opts, o.started); /* one budget for the command: set-up, run and analysis */
    return solve_and_write(&o, solver, model, &opts);
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
int cmd_run(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_run_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}
static const char limit_usage[] =
    "usage: penlim limit (CASE | --model FILE) [--law NAME] [--set NAME=VALUE ...] [--t-end T] [--rtol R] [--out DIR] [--samples N]\n"
    "                         [--max-steps N] [--max-seconds S] [--max-output N] [--contacts dense|sparse]\n"
    "                         [--force] [--quiet]\n"
    "Compute the limit (generalized) solution of CASE directly, event by event: flight, impacts\n"
    "from the infinitesimal dynamics, sustained contact with the sliding-mode force, lift-off, and\n"
    "Zeno accumulation continued past the accumulation point.  Writes DIR/trajectory.csv,\n"
    "DIR/trajectory_s.csv, DIR/summary.json and DIR/manifest.json (formats: docs/formats.md).\n"
    "  --model FILE      a model compiled apart (a shared object exporting penlim_model; see\n"
    "                    'penlim new-model'), in place of CASE; a CASE not built in is also looked\n"
    "                    up as CASE.so in the directories of PENLIM_MODEL_PATH\n"
    "  --set NAME=VALUE  set a case parameter (repeatable; 'penlim cases' lists them)\n"
    "  --law NAME        the contact law (default kelvin_voigt; 'penlim laws' lists them); its\n"
    "                    parameters are set with --set as the case's (k, e or xi; c, n)\n"
    "  --t-end T         end time (default: the case's)\n"
    "  --rtol R          relative tolerance of the smooth phases in [1e-14, 1) (default 1e-12)\n"
    "  --samples N       rows stored per flight between events, from every step and a uniform grid\n"
    "                    of max(N, 1000) samples; every row of a sustained contact (default 200;\n"
    "                    0: every event and step, no grid)\n"
    "  --max-steps N     stop with an error after N steps (default 5000000)\n"
    "  --max-seconds S   bound the command's wall-clock time from its start (default: none): a set-up\n"
    "                    that spends it stops the command (nothing written), a run or its analysis\n"
    "                    that reaches it stops with an error, the results up to there written\n"
    "  --max-output N    cap on the values (rows x columns) of a trajectory (default 2e7): a\n"
    "                    larger --samples is refused, a run that reaches it stops with an error\n"
    "  --contacts MODE   how G and the forces are stored and written: dense (columns G1..Gm and\n"
    "                    force1..forcem of trajectory.csv) or sparse (contacts.csv: the\n"
    "                    constraints in contact at each row); default dense up to 100 constraints\n"
    "  --out DIR         output directory (default out/limit/CASE)\n"
    "  --force           write into DIR even if it holds files penlim did not write\n"
    "  --quiet           print nothing on success\n";

static int cmd_limit_with(int argc, char **argv, pl_model *model)
{
    case_options o = {.cmd = "limit", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_LIMIT, limit_usage);
    if (rc >= 0)
        return rc;
    pl_solve_opts opts;
    if ((rc = prepare(&o, &pl_solver_limit, NULL, model, &opts)) >= 0 || (rc = setup_within_budget(&o)) >= 0)
        return rc;
    pl_solve_opts_count_from(&opts, o.started); /* one budget for the command: set-up, solve and analysis */
    return solve_and_write(&o, &pl_solver_limit, model, &opts);
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
int cmd_limit(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_limit_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}
