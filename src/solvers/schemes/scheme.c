#include "solvers/schemes/scheme.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/clock.h"
#include "core/lcp.h"
#include "core/linalg.h"
#include "core/number.h"

static void gaps(const pl_model *model, pl_gap *g, double t, const double *q, double *G, double *H, double *G_t)
{
    size_t n = model->n;
    for (size_t i = 0; i < model->m; i++) {
        pl_model_gap(model, i, t, q, g);
        G[i] = g->g;
        if (H)
            memcpy(H + i * n, g->grad, n * sizeof *H);
        if (G_t)
            G_t[i] = g->g_t;
    }
}

void pl_scheme_gaps(pl_scheme_ctx *ctx, double t, const double *q, double *G, double *H, double *G_t)
{
    gaps(ctx->model, ctx->gap, t, q, G, H, G_t);
}

void pl_scheme_delassus(pl_scheme_ctx *ctx, size_t m, const double *H, const double *B, double *A)
{
    size_t n = ctx->n;
    double *BHt = ctx->bht; /* n x m */
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < m; c++) {
            double s = 0.0;
            for (size_t k = 0; k < n; k++)
                s += B[r * n + k] * H[c * n + k];
            BHt[r * m + c] = s;
        }
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++) {
            double s = 0.0;
            for (size_t k = 0; k < n; k++)
                s += H[a * n + k] * BHt[k * m + b];
            A[a * m + b] = s;
        }
}

pl_status pl_scheme_lcp(pl_scheme_ctx *ctx, size_t m, const double *A, const double *b, double *P, pl_error *err)
{
    long pivots = 0;
    pl_error local;
    pl_status s = pl_lcp_solve(m, A, b, P, &pivots, &local);
    ctx->stats->lcp_solves++;
    ctx->stats->lcp_iterations += pivots;
    if (s != PL_OK)
        return pl_fail(err, s, "step %ld from t = %.17g: %s", ctx->step, ctx->t, local.message);
    return PL_OK;
}

pl_status pl_scheme_projection_lcp(pl_scheme_ctx *ctx, size_t m, const double *H, const double *B, const double *b,
                                   double *P, pl_error *err)
{
    size_t n = ctx->n, k = 0, *idx = ctx->ws_idx;
    int *in = ctx->ws_in;
    double *BHt = ctx->bht, *A = ctx->ws_A, *bJ = ctx->ws_b, *PJ = ctx->ws_P, *u = ctx->ws_u;
    memset(P, 0, m * sizeof *P);
    for (size_t i = 0; i < m; i++) {
        in[i] = b[i] < 0.0;
        if (in[i])
            idx[k++] = i;
    }
    for (int added = k > 0; added;) {
        /* B H_J^T (n x k, over the non-zero entries of each row of H), then A = H_J B H_J^T */
        for (size_t c = 0; c < k; c++) {
            const double *h = H + idx[c] * n;
            for (size_t r = 0; r < n; r++)
                BHt[r * k + c] = 0.0;
            for (size_t l = 0; l < n; l++)
                if (h[l] != 0.0)
                    for (size_t r = 0; r < n; r++)
                        BHt[r * k + c] += B[r * n + l] * h[l];
        }
        for (size_t a = 0; a < k; a++) {
            const double *h = H + idx[a] * n;
            for (size_t c = 0; c < k; c++) {
                double sum = 0.0;
                for (size_t l = 0; l < n; l++)
                    sum += h[l] * BHt[l * k + c];
                A[a * k + c] = sum;
            }
            bJ[a] = b[idx[a]];
        }
        pl_status s = pl_scheme_lcp(ctx, k, A, bJ, PJ, err);
        if (s != PL_OK)
            return s;
        for (size_t r = 0; r < n; r++) {
            double sum = 0.0;
            for (size_t c = 0; c < k; c++)
                sum += BHt[r * k + c] * PJ[c];
            u[r] = sum;
        }
        added = 0;
        for (size_t i = 0; i < m; i++) {
            if (in[i])
                continue;
            double w = b[i];
            for (size_t l = 0; l < n; l++)
                w += H[i * n + l] * u[l];
            if (w < 0.0) {
                in[i] = added = 1;
                idx[k++] = i;
            }
        }
        if (!added)
            for (size_t a = 0; a < k; a++)
                P[idx[a]] = PJ[a];
    }
    return PL_OK;
}

pl_status pl_scheme_mass_inverse(pl_scheme_ctx *ctx, const double *q, double *minv, pl_error *err)
{
    if (pl_model_mass(ctx->model, q, NULL, minv))
        return pl_fail(err, PL_ERR_SOLVER, "step %ld from t = %.17g: the mass matrix is not positive definite",
                       ctx->step, ctx->t);
    return PL_OK;
}

void pl_scheme_accel(pl_scheme_ctx *ctx, double t, const double *q, const double *v, double *a, double *a_q,
                     double *a_v)
{
    pl_model_accel(ctx->model, ctx->work, t, q, v, a, a_q, a_v);
    ctx->stats->rhs_evals++;
}

/* ---- options ---------------------------------------------------------------------------------- */

pl_status pl_scheme_applies(const pl_model *model, pl_error *err)
{
    if (model->type->velocity_map)
        return pl_fail(err, PL_ERR_INPUT, "case %s has q' = F_p(q, v, t) != v: the time-stepping schemes need q' = v",
                       model->type->name);
    if (model->law_type != &pl_law_kelvin_voigt) /* their impact law is Kelvin-Voigt's restitution e(xi) */
        return pl_fail(err, PL_ERR_INPUT, "the time-stepping schemes take Kelvin-Voigt's restitution: the contact law "
                       "%s is not theirs (use --law kelvin_voigt)", model->law_type->name);
    return PL_OK;
}

pl_status pl_scheme_applies_inelastic(const char *scheme, const pl_model *model, pl_error *err)
{
    pl_status s = pl_scheme_applies(model, err);
    if (s != PL_OK)
        return s;
    for (size_t i = 0; i < model->m; i++) {
        double e = pl_restitution_from_xi(model->law[i].xi);
        if (e > 0.0)
            return pl_fail(err, PL_ERR_INPUT,
                           "the %s scheme is inelastic but constraint %zu has restitution e = %g: use --set e=0", scheme,
                           i + 1, e);
    }
    return PL_OK;
}

/* 1e-2 of the case's time scale (V/A, or its forcing time: pl_model_time_scale; a hundred steps per
 * flight of the case's size), and 10 steps over the run at least, on the round value at or above
 * it, or below t-end/10 (docs/methods.md, "Default grids"). */
double pl_scheme_default_h(const pl_model *model, double t_end, size_t k)
{
    (void)k;
    double h = pl_round_125(1e-2 * pl_model_time_scale(model), 1);
    return isfinite(t_end) && t_end > 0 && h > t_end / 10.0 ? pl_round_125(t_end / 10.0, 0) : h;
}

pl_status pl_scheme_check(const pl_model *model, const pl_solve_opts *opts, pl_error *err)
{
    double h = opts->option[0];
    char hs[PL_NUMBER_LEN], ts[PL_NUMBER_LEN]; /* as given: %g printed h = 1.0000001 as 1 */
    pl_format_short(h, hs, sizeof hs);
    pl_format_short(opts->t_end, ts, sizeof ts);
    if (!(h <= opts->t_end))
        return pl_fail(err, PL_ERR_INPUT, "h = %s exceeds t-end = %s", hs, ts);
    long cap = opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS;
    double steps = ceil(opts->t_end / h * (1.0 - 1e-12)); /* pl_scheme_steps, before it could overflow */
    if (steps > (double)cap)
        return pl_fail(err, PL_ERR_INPUT, "h = %s needs %.3g steps to t-end = %s, more than --max-steps %ld", hs, steps,
                       ts, cap);
    /* An inadmissible start would be projected out of the constraint at -G/h: an h-dependent launch. */
    return pl_model_check_admissible(model, "the schemes start from an admissible state", err);
}

long pl_scheme_steps(double t_end, double h)
{
    return (long)ceil(t_end / h * (1.0 - 1e-12));
}

/* ---- the stepping loop -------------------------------------------------------------------------- */

/* The bookkeeping of the run, with its arrays (m or n each, once per run). */
typedef struct {
    const pl_model *model;
    pl_solution *sol;
    size_t n, m;
    double gamma;
    int *open;          /* index of the open episode of constraint i, or -1 */
    double *gdot;       /* normal rates at the last row */
    long last_impact;   /* the last step that was an impact (-2: none) */
    unsigned char *needed; /* per row: a row the analysis reads (impacts), kept by thin_rows */
    size_t needed_cap;
    /* scratch */
    pl_work *work;
    pl_contact *contact;
    double *gdot_next, *minv, *q_impact, *row;
    unsigned char *pushed;
    double *block;
} recorder;

static pl_status alloc_recorder(recorder *r, pl_error *err)
{
    size_t n = r->n, m = r->m;
    r->open = calloc(m, sizeof *r->open);
    r->pushed = calloc(m, sizeof *r->pushed);
    r->work = pl_work_new(r->model);
    r->contact = pl_contact_new(1, n, 0);
    pl_part parts[] = {{&r->gdot, m}, {&r->gdot_next, m}, {&r->minv, n * n}, {&r->q_impact, n},
                       {&r->row, pl_ncols(n, m)}};
    r->block = pl_carve(parts, PL_NPARTS(parts));
    if (!r->open || !r->pushed || !r->work || !r->contact || !r->block)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a scheme's run (%zu dofs, %zu constraints)", n, m);
    return PL_OK;
}

static void free_recorder(recorder *r)
{
    free(r->needed);
    free(r->open);
    free(r->pushed);
    pl_work_free(r->work);
    free(r->contact);
    free(r->block);
}

static void normal_rates(recorder *r, double t, const double *q, const double *v, double *gdot)
{
    const pl_model *model = r->model;
    pl_model_mass(model, q, NULL, r->minv);
    for (size_t i = 0; i < model->m; i++) {
        pl_model_contact(model, i, t, q, v, r->minv, r->contact);
        gdot[i] = r->contact->gdot;
    }
}

/* An iterate zeroed before its step (pl_scheme_point). */
static void clear_point(pl_scheme_point *p, size_t n, size_t m)
{
    double *arrays[] = {p->q, p->v, p->dv_impulse, p->q_free};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
        memset(arrays[k], 0, n * sizeof *arrays[k]);
    memset(p->impulse, 0, m * sizeof *p->impulse);
}

static pl_status record_row(recorder *r, const pl_scheme_point *p, pl_error *err)
{
    size_t n = r->n, m = r->m;
    double *row = r->row;
    row[0] = p->t;
    row[1] = r->gamma;
    memcpy(row + pl_col_q(n, m), p->q, n * sizeof *row);
    memcpy(row + pl_col_v(n, m), p->v, n * sizeof *row);
    gaps(r->model, &r->contact->gap, p->t, p->q, row + pl_col_g(n, m), NULL, NULL);
    for (size_t i = 0; i < m; i++) /* a NaN gap would never enter the contact set */
        if (!isfinite(row[pl_col_g(n, m) + i]))
            return pl_fail(err, PL_ERR_SOLVER, "constraint %zu is not finite at t = %.17g (G = %g): the model's gap",
                           i + 1, p->t, row[pl_col_g(n, m) + i]);
    memcpy(row + pl_col_force(n, m), p->impulse, m * sizeof *row);
    for (size_t i = 0; i < m; i++) {
        int e = r->open[i];
        if (e >= 0 && -row[pl_col_g(n, m) + i] > r->sol->episodes[e].max_penetration) {
            r->sol->episodes[e].max_penetration = -row[pl_col_g(n, m) + i];
            r->sol->episodes[e].t_max_penetration = p->t;
        }
    }
    size_t rows = r->sol->traj.nrows;
    if (rows >= r->needed_cap) {
        size_t cap = r->needed_cap ? 2 * r->needed_cap : 1024;
        unsigned char *grown = realloc(r->needed, cap);
        if (!grown)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory recording %zu rows", rows + 1);
        r->needed = grown;
        r->needed_cap = cap;
    }
    r->needed[rows] = 0;
    return pl_solution_append_row(r->sol, row, err);
}

/* Mark rows lo .. hi (clipped to the table) as needed. */
static void need_rows(recorder *r, size_t lo, size_t hi)
{
    for (size_t k = lo; k <= hi && k < r->sol->traj.nrows; k++)
        r->needed[k] = 1;
}

/* The time an impact of constraint i, found in the step from `now` to `next` (the last row), begins:
 * where its gap, interpolated linearly, reaches 0: in the step before, if the scheme penetrated
 * there (Moreau-Jean's index set can lag the crossing by a step); else between the step's start and
 * the position the step would have reached without impulses; else, for a rebound taken before any
 * penetration, extrapolated from the step's start with its gap rate, within the step.  And q there. */
static void contact_time(const recorder *r, size_t i, const pl_scheme_point *now, const pl_scheme_point *next,
                         double gdot_now, double *t, double *q)
{
    const pl_solution *sol = r->sol;
    size_t n = r->n, m = r->m, last = sol->traj.nrows - 1;
    pl_gap *scratch = &r->contact->gap;
    const double *before = last >= 2 ? pl_table_row(&sol->traj, last - 2) : NULL;
    const double *at = pl_table_row(&sol->traj, last - 1);
    double a = pl_solution_gap_at(sol, r->model, last - 1, i, scratch), h = next->t - now->t, u;
    double gb = before ? pl_solution_gap_at(sol, r->model, last - 2, i, scratch) : NAN;
    const double *q0 = now->q, *q1 = next->q_free;
    if (before && gb > 0.0 && a <= 0.0) {
        u = gb / (gb - a);
        *t = before[0] + u * (at[0] - before[0]);
        q0 = before + pl_col_q(n, m), q1 = now->q;
    } else {
        pl_gap *g = &r->contact->gap;
        pl_model_gap(r->model, i, next->t, next->q_free, g);
        if (a > 0.0 && g->g <= 0.0)
            u = a / (a - g->g);
        else
            u = gdot_now < 0.0 && a > 0.0 ? fmin(1.0, a / (-gdot_now * h)) : 0.0;
        *t = now->t + u * h;
    }
    for (size_t j = 0; j < n; j++)
        q[j] = q0[j] + u * (q1[j] - q0[j]);
}

/* After a step from `now` to `next` (recorded as the last row): episodes and impact events.  A
 * constraint is pushed in a step when its own impulse changes its normal velocity (P_i/m_i) by more
 * than 1e3 ulps of the velocity scale: the LCPs leave impulses of round-off size on constraints at
 * their boundary, which are no contact. */
static pl_status bookkeeping(recorder *r, const pl_scheme_point *now, const pl_scheme_point *next, double h,
                             double gamma_before, long step, pl_error *err)
{
    const pl_model *model = r->model;
    size_t n = r->n, m = r->m, last = r->sol->traj.nrows - 1;
    double *gdot_next = r->gdot_next, *minv = r->minv;
    normal_rates(r, next->t, next->q, next->v, gdot_next);
    int any = 0;
    for (size_t i = 0; i < m; i++)
        any |= next->impulse[i] != 0.0;
    if (any)
        pl_model_mass(model, now->q, NULL, minv);
    pl_status s;
    int impact = 0;
    unsigned char *pushed = r->pushed;
    size_t trigger = 0;
    double strongest = 0.0, tol_v = 1e3 * DBL_EPSILON * model->v_scale;
    pl_contact *c = r->contact;
    for (size_t i = 0; i < m; i++) {
        int pushing = 0;
        if (next->impulse[i] != 0.0) {
            pl_model_contact(model, i, now->t, now->q, now->v, minv, c);
            pushing = next->impulse[i] / c->m_eff > tol_v;
        }
        pushed[i] = (unsigned char)pushing;
        if (pushing && r->open[i] < 0) {
            pl_episode *ep;
            if ((s = pl_solution_add_episode(r->sol, i, now->t, &ep, err)) != PL_OK)
                return s;
            ep->gdot_in = r->gdot[i];
            ep->t_in_resolution = DBL_EPSILON * fabs(now->t); /* a step's time */
            ep->gamma_in = gamma_before;
            ep->row_in = last - 1; /* the state before the first impulse */
            ep->max_penetration = fmax(0.0, -pl_solution_gap_at(r->sol, model, last, i, &c->gap));
            ep->t_max_penetration = next->t;
            r->open[i] = (int)r->sol->nepisodes - 1;
        }
        if (pushing) {
            pl_episode *ep = &r->sol->episodes[r->open[i]];
            ep->impulse += next->impulse[i];
            ep->steps++;
            ep->gamma_out = r->gamma;
            ep->row_out = last;
        } else if (r->open[i] >= 0) {
            pl_episode *ep = &r->sol->episodes[r->open[i]];
            ep->t_out = now->t;
            ep->t_out_resolution = DBL_EPSILON * fabs(now->t);
            ep->gdot_out = r->gdot[i];
            r->open[i] = -1;
        }
        if (!pushing)
            continue;
        /* The normal velocity change the impulses produce, against the smooth part. */
        double jump = 0.0;
        for (size_t j = 0; j < n; j++)
            jump += c->gap.grad[j] * next->dv_impulse[j];
        double D = pl_model_free_gap_accel(model, r->work, i, now->t, now->q, now->v);
        if (fabs(jump) > 2.0 * h * fabs(D) + tol_v) {
            if (!impact || fabs(jump) > strongest)
                trigger = i, strongest = fabs(jump);
            impact = 1;
        }
    }
    pl_event *prev = r->sol->nevents > 0 ? &r->sol->events[r->sol->nevents - 1] : NULL;
    double t_impact = now->t, *q_impact = r->q_impact;
    memcpy(q_impact, now->q, n * sizeof *q_impact);
    if (impact)
        contact_time(r, trigger, now, next, r->gdot[trigger], &t_impact, q_impact);
    if (impact && r->last_impact == step - 1 && prev && prev->participants[trigger]) {
        /* The same impact over a second step (a landing stopped in two steps): one event. */
        memcpy(prev->v_after, next->v, n * sizeof *prev->v_after);
        prev->gamma_after = r->gamma;
        prev->gdot_after = gdot_next[prev->constraint];
        for (size_t i = 0; i < m; i++) {
            prev->impulse[i] += next->impulse[i];
            prev->participants[i] |= pushed[i];
        }
    } else if (impact) {
        pl_event *e;
        if ((s = pl_solution_new_event(r->sol, PL_EVENT_IMPACT, t_impact, trigger, &e, err)) != PL_OK)
            return s;
        memcpy(e->q, q_impact, n * sizeof *e->q);
        memcpy(e->v_before, now->v, n * sizeof *e->v_before);
        memcpy(e->v_after, next->v, n * sizeof *e->v_after);
        e->gamma_before = gamma_before;
        e->gamma_after = r->gamma;
        e->gdot_before = r->gdot[trigger];
        e->gdot_after = gdot_next[trigger];
        memcpy(e->impulse, next->impulse, m * sizeof *e->impulse);
        memcpy(e->participants, pushed, m * sizeof *e->participants);
        /* where the trajectory reaches the constraint: the gap's round-off over its rate */
        pl_model_gap(model, trigger, t_impact, q_impact, &c->gap);
        e->t_resolution = pl_time_resolution(pl_gap_terms(&c->gap, t_impact, q_impact, n), t_impact, e->gdot_before);
    }
    if (impact) { /* the rows contact_time read and the step's own */
        r->last_impact = step;
        need_rows(r, last >= 2 ? last - 2 : 0, last);
    }
    memcpy(r->gdot, gdot_next, m * sizeof *gdot_next);
    return PL_OK;
}

/* The rows an impact was read from are marked in needed (bookkeeping); the others the sampling keeps
 * are every solution's (pl_solution_sample_rows). */
static pl_status thin_rows(recorder *r, size_t samples, pl_error *err)
{
    return pl_solution_sample_rows(r->sol, r->needed, samples, err);
}

static int event_order(const void *pa, const void *pb)
{
    const pl_event *a = pa, *b = pb;
    return (a->t > b->t) - (a->t < b->t);
}

pl_status pl_scheme_run(const pl_model *model, const pl_solve_opts *opts, double h, pl_scheme_step_fn step, void *state,
                        pl_solution *sol, pl_error *err)
{
    double t0 = pl_now_seconds();
    pl_error local;
    pl_error *e = err ? err : &local;
    pl_error_clear(e);
    /* N equal steps ending exactly at t_end: h itself when it divides t_end, else slightly less. */
    long steps = pl_scheme_steps(opts->t_end, h);
    double h_used = opts->t_end / (double)steps;
    sol->step_size = h_used;
    size_t n = model->n, m = model->m;
    recorder r = {.model = model, .sol = sol, .n = n, .m = m, .last_impact = -2};
    pl_scheme_ctx ctx = {.model = model, .opts = opts, .h = h_used, .n = n, .m = m, .stats = &sol->stats,
                         .state = state};
    pl_scheme_point now = {0}, next = {0};
    /* the iterates' arrays and the helpers' scratch, one block */
    pl_part parts[] = {{&now.q, n},      {&now.v, n},      {&now.dv_impulse, n},  {&now.q_free, n},  {&now.impulse, m},
                       {&next.q, n},     {&next.v, n},     {&next.dv_impulse, n}, {&next.q_free, n}, {&next.impulse, m},
                       {&ctx.bht, n * m}, {&ctx.ws_A, m * m}, {&ctx.ws_b, m},     {&ctx.ws_P, m},    {&ctx.ws_u, n}};
    double *arrays = pl_carve(parts, PL_NPARTS(parts));
    ctx.work = pl_work_new(model);
    ctx.gap = pl_gap_new(1, n, 0);
    ctx.ws_idx = calloc(m, sizeof *ctx.ws_idx);
    ctx.ws_in = calloc(m, sizeof *ctx.ws_in);
    pl_status s = alloc_recorder(&r, e);
    if (s == PL_OK && (!arrays || !ctx.work || !ctx.gap || !ctx.ws_idx || !ctx.ws_in))
        s = pl_fail(e, PL_ERR_NOMEM, "out of memory for a scheme's run (%zu dofs, %zu constraints)", n, m);
    for (size_t i = 0; s == PL_OK && i < r.m; i++)
        r.open[i] = -1;
    if (s == PL_OK) {
        pl_model_initial_state(model, now.q, now.v);
        normal_rates(&r, 0.0, now.q, now.v, r.gdot);
        s = record_row(&r, &now, e);
    }
    for (long k = 0; s == PL_OK && k < steps; k++) {
        clear_point(&next, n, m);
        next.t = k + 1 == steps ? opts->t_end : (double)(k + 1) * h_used;
        ctx.step = k;
        ctx.t = now.t;
        pl_budget budget = {opts->max_seconds, pl_budget_start(opts, t0)};
        if (pl_budget_spent_writing(&budget, pl_solution_numbers(sol))) {
            char note[128];
            s = pl_fail(e, PL_ERR_SOLVER, PL_BUDGET_STOPPED " at t = %.17g (step %ld)%s", opts->max_seconds, now.t, k,
                        pl_budget_writing_note(&budget, pl_solution_numbers(sol), note, sizeof note));
            break;
        }
        if ((s = pl_solve_poll(model, opts->cancel, opts->cancel_user, now.t, e)) != PL_OK)
            break;
        if ((s = step(&ctx, &now, &next, e)) != PL_OK)
            break;
        if (!pl_all_finite(next.q, r.n) || !pl_all_finite(next.v, r.n)) {
            s = pl_fail(e, PL_ERR_SOLVER, "step %ld from t = %.17g: the state is not finite", k, now.t);
            break;
        }
        double gamma_before = r.gamma;
        r.gamma += h_used + pl_norm(next.dv_impulse, r.n);
        sol->stats.steps++;
        if ((s = record_row(&r, &next, e)) != PL_OK ||
            (s = bookkeeping(&r, &now, &next, h_used, gamma_before, k, e)) != PL_OK)
            break;
        pl_scheme_point done = now; /* the next step overwrites the older iterate */
        now = next;
        next = done;
    }
    if (r.needed) { /* a failed run's rows too; a failure to thin leaves them all, after the first failure */
        pl_error thin_err;
        pl_status t = thin_rows(&r, opts->samples, s == PL_OK ? e : &thin_err);
        if (s == PL_OK)
            s = t;
    }
    /* An impact found a step back can precede the last event of another constraint. */
    if (sol->nevents > 1)
        qsort(sol->events, sol->nevents, sizeof *sol->events, event_order);
    free(arrays);
    pl_work_free(ctx.work);
    free(ctx.gap);
    free(ctx.ws_idx);
    free(ctx.ws_in);
    free_recorder(&r);
    pl_solution_finish(sol, s, e, t0);
    return s;
}
