/* The penalized system as the steppers see it: the state y = (q, v, P, I) (engine.h), its right-hand
 * side and Jacobian (the stepper's rhs and jacobian hooks, on pl_penalized of penalized.c), and the
 * evaluations at a state that the other parts of the engine share: the forces (forces_at, held from
 * the last right-hand side), the gaps with their geometry and rates (geometry_at, held per state),
 * the gap acceleration along the field, and the round-off and resolution of a gap. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "solvers/penalty/engine.h"

/* Whether (t, y) with the current modes is the state (t_held, y_held) with modes_held. */
static int same_state(const run_ctx *c, double t, const double *y, double t_held, unsigned modes_held,
                      const double *y_held)
{
    if (c->trial || t != t_held || modes_held != c->modes)
        return 0;
    size_t j = 0, n2 = 2 * c->n;
    while (j < n2 && y_held[j] == y[j])
        j++;
    return j == n2;
}

/* The forces at the state y into scratch, or those of the last right-hand side if it was at y (the
 * Runge-Kutta stepper evaluates the right-hand side at a step's end, the next step's first stage,
 * before the roots and the record there need the same forces), or a copy of the last forces this
 * function evaluated if they were at y (the scan of a BDF step for missed crossings takes Gddot at
 * its end, whose forces the record then needs).  NULL if M(q) is not positive definite. */
const pl_forces *pen_forces_at(run_ctx *c, double t, const double *y, pl_forces *scratch)
{
    if (same_state(c, t, y, c->rhs_t, c->rhs_modes, c->rhs_y))
        return &c->f_rhs;
    if (c->held && same_state(c, t, y, c->held_t, c->held_modes, c->held_y)) {
        if (c->held != scratch)
            pl_forces_copy(scratch, c->held, c->model);
        return scratch;
    }
    if (c->held == scratch)
        c->held = NULL;
    if (evaluate_forces(c, t, Q(y), V(y, c), scratch))
        return NULL;
    if (!c->trial) {
        c->held = scratch;
        c->held_t = t;
        c->held_modes = c->modes;
        for (size_t j = 0; j < 2 * c->n; j++)
            c->held_y[j] = y[j];
    }
    return scratch;
}

/* A trial evaluation with modes that are not the run's (a constraint's force off, to see what moves
 * its gap without it) lies between these two: no forces held at the run's modes stand for it, and
 * none of it are held. */
void pen_trial_begin(run_ctx *c)
{
    c->trial++;
}

void pen_trial_end(run_ctx *c)
{
    c->trial--;
}

/* (Plain loops throughout: at a few dofs the calls of memcpy and friends cost more than the
 * loops, and this runs at every stage of every step.) */
static inline int rhs_n(run_ctx *c, double t, const double *y, double *yd, size_t n)
{
    size_t m = c->m;
    pl_forces *f = &c->f_rhs;
    c->rhs_t = NAN;
    if (evaluate_forces(c, t, Q(y), V(y, c), f))
        return -1;
    /* the forces' arrays are not yd's (restrict: see pl_penalized_forces) */
    const double *restrict fp = f->fp, *restrict a = f->a, *restrict ac = f->ac, *restrict lambda = f->lambda;
    double *restrict held = c->rhs_y;
    /* sum: finite exactly when every component is (but for an overflow of the sum itself, at
     * components beyond 1e307, which is as much a failure of the state) */
    double ac2 = 0.0, sum = 0.0;
    for (size_t j = 0; j < n; j++) {
        double vd = a[j] + ac[j];
        yd[j] = fp[j];
        yd[n + j] = vd;
        ac2 += ac[j] * ac[j];
        sum += fp[j] + vd;
        held[j] = y[j];
        held[n + j] = y[n + j];
    }
    double gamma = 1.0;
    if (ac2 > 0.0)
        gamma += pen_gamma_rate_sign(c, f) * (n == 1 ? fabs(ac[0]) : sqrt(ac2)); /* pl_norm(ac, n) */
    GAMMA(yd, c) = gamma;
    double *impulse = IMPULSE(yd, c);
    if (!c->slot_of) {
        for (size_t i = 0; i < m; i++) {
            impulse[i] = lambda[i];
            sum += lambda[i];
        }
    } else { /* the active constraints' slots (slots.c; lambda is 0 but where listed) */
        for (size_t k = 0; k < c->slots; k++)
            impulse[k] = 0.0;
        for (size_t e = 0; e < f->nnonzero; e++) {
            size_t i = f->nonzero[e], slot = c->slot_of[i];
            if (slot < c->slots)
                impulse[slot] = lambda[i];
            sum += lambda[i];
        }
    }
    c->rhs_t = t;
    c->rhs_modes = c->modes;
    /* A state gone non-finite gives a non-finite derivative: recoverable, the stepper retries
     * with a smaller step. */
    return isfinite(sum + gamma) ? 0 : 1;
}

/* rhs_n at n known to the compiler for one and two coordinates (as forces_simple in penalized.c:
 * the same operations, its loops unrolled). */
int pen_rhs(double t, const double *y, double *yd, void *user)
{
    run_ctx *c = user;
    switch (c->n) {
    case 1:
        return rhs_n(c, t, y, yd, 1);
    case 2:
        return rhs_n(c, t, y, yd, 2);
    default:
        return rhs_n(c, t, y, yd, c->n);
    }
}

/* The Jacobian of (q, v) (analytic); Gamma and the impulses do not act on the motion, and their rows
 * are left out of the Newton matrix (they converge with the motion, one iteration behind). */
int pen_jacobian(double t, const double *y, double *J, void *user)
{
    run_ctx *c = user;
    size_t n2 = 2 * c->n, N = c->N;
    /* the (q, v) block in place: row r of the 2n x 2n Jacobian moves to row r of the N x N one,
     * from the last row back so that nothing is overwritten before it moves */
    if (pl_penalized_jacobian(&c->field, t, Q(y), V(y, c), J))
        return -1;
    for (size_t r = n2; r-- > 0;) {
        memmove(J + r * N, J + r * n2, n2 * sizeof *J);
        memset(J + r * N + n2, 0, (N - n2) * sizeof *J);
    }
    memset(J + n2 * N, 0, (N - n2) * N * sizeof *J);
    return 0;
}

/* The same for BDF's sparse solver, straight into compressed columns: the (q, v) block without its
 * exact zeros, and the diagonal of Gamma's and the impulses' rows (zero, stored: pl_csc_from_dense's
 * layout, so that the matrix is the one the dense Jacobian converts to).  Its cost is that of the
 * block, 4 n^2, not of the N^2 dense state (N = 2n + 1 + m: a box of 64 disks has 2272 constraints
 * for 128 dofs). */
int pen_jacobian_csc(double t, const double *y, pl_csc *J, void *user)
{
    run_ctx *c = user;
    size_t n2 = 2 * c->n, N = c->N;
    if (c->field.sparse_jacobian) /* no dense block at all: the same entries, column by column */
        return pl_penalized_jacobian_csc(&c->field, t, Q(y), V(y, c), N, J);
    const double *B = c->jac_block;
    if (pl_penalized_jacobian(&c->field, t, Q(y), V(y, c), c->jac_block))
        return -1;
    int64_t *p = J->colptr, nnz = 0;
    for (size_t j = 0; j < n2; j++) {
        p[j] = nnz;
        for (size_t r = 0; r < n2; r++)
            nnz += B[r * n2 + j] != 0.0 || r == j;
    }
    if (pl_csc_reserve(J, (size_t)nnz + (N - n2)) != 0)
        return PL_CSC_NOMEM;
    for (size_t j = 0; j < n2; j++) {
        int64_t k = p[j];
        for (size_t r = 0; r < n2; r++)
            if (B[r * n2 + j] != 0.0 || r == j) {
                J->rowind[k] = (int64_t)r;
                J->values[k++] = B[r * n2 + j];
            }
    }
    for (size_t j = n2; j < N; j++) {
        p[j] = nnz;
        J->rowind[nnz] = (int64_t)j;
        J->values[nnz++] = 0.0;
    }
    p[N] = nnz;
    return 0;
}

/* The round-off of G_i at q: 100 ulps of its terms (pl_gap_terms; grad G . q stands for those that depend on q;
 * a constraint moving with t has its offset in q near contact, as the table).  A dip of an inactive
 * constraint's G_i below 0 smaller than this cannot be told from a tangency and starts no contact
 * (gap_resolution: this or the floor of G's tolerance).  The terms, not a length scale of the case:
 * 100 ulps of L = V^2/A (2e-12 for the ball without gravity) is not small against an impact's
 * penetration at large mu (1e-6 at mu = 1e12) and would move Delta Gamma by 3e-8. */
double pen_noise_of_gap(const run_ctx *c, const pl_gap *gap, const double *q)
{
    return PL_GAP_NOISE_ULPS * DBL_EPSILON * pl_gap_terms(gap, 0.0, q, c->n);
}

/* The gaps, their geometry and rates at (t, y) (see run_ctx.geometry), evaluated unless held. */
const pl_gap *pen_geometry_at(run_ctx *c, double t, const double *y)
{
    size_t n2 = 2 * c->n, j = 0;
    if (c->geometry_t == t)
        while (j < n2 && c->geometry_y[j] == y[j])
            j++;
    if (c->geometry_t == t && j == n2)
        return c->geometry;
    c->geometry_t = NAN;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), c->fp_geometry, NULL, NULL, NULL);
    if (c->nl.near) { /* the list's (those left out hold G = inf: pen_neighbours_rebuild) */
        for (size_t k = 0; k < c->nl.nlist; k++) {
            size_t i = c->nl.list[k];
            c->geometry_gdot[i] = pl_model_gap_rate_sparse(c->model, i, t, Q(y), c->fp_geometry, &c->geometry[i]);
        }
        c->gap_evals += (long)c->nl.nlist;
    } else {
        for (size_t i = 0; i < c->m; i++)
            c->geometry_gdot[i] = pl_model_gap_rate_sparse(c->model, i, t, Q(y), c->fp_geometry, &c->geometry[i]);
        c->gap_evals += (long)c->m;
    }
    c->geometry_t = t;
    memcpy(c->geometry_y, y, n2 * sizeof *y);
    return c->geometry;
}

/* The gaps and rates at (t, y) of the constraints left out of the neighbour list, into g and gdot
 * (entries of the others untouched): what a trajectory's record of every gap (dense contacts) needs,
 * and nothing of the run's own.  The one place that evaluates them. */
void pen_far_gaps(run_ctx *c, double t, const double *y, double *g, double *gdot)
{
    if (!c->nl.near)
        return;
    double *fp = c->fp_dense;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), fp, NULL, NULL, NULL);
    for (size_t i = 0; i < c->m; i++)
        if (!c->nl.near[i]) {
            gdot[i] = pl_model_gap_rate_sparse(c->model, i, t, Q(y), fp, c->gap_dense);
            g[i] = c->gap_dense->g;
        }
}

/* Gap and gap rate of every constraint evaluated at a state (those left out of the neighbour list
 * untouched: pen_far_gaps), and (if lambda is not NULL) the force, which uses the current modes; each
 * gap's geometry is in c->geometry after the call.  The geometry alone needs neither the mass matrix
 * nor the forces. */
void pen_contact_state(run_ctx *c, double t, const double *y, double *g, double *gdot, double *lambda)
{
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    const pl_forces *f = lambda ? pen_forces_at(c, t, y, &c->f_state) : NULL;
    size_t count = pen_near_count(c);
    for (size_t k = 0; k < count; k++) {
        size_t i = pen_near_at(c, k);
        g[i] = gaps[i].g;
        gdot[i] = c->geometry_gdot[i];
    }
    if (!lambda)
        return;
    for (size_t k = 0; k < count; k++) {
        size_t i = pen_near_at(c, k);
        lambda[i] = f ? f->lambda[i] : NAN;
    }
    if (!f) /* M(q) not positive definite: no state */
        for (size_t k = 0; k < count; k++) {
            size_t i = pen_near_at(c, k);
            g[i] = gdot[i] = NAN;
        }
}

/* Gddot_i along the penalized field with the current modes: the free part and the contact
 * acceleration's, grad G_i . dF_p/dv ac. */
double pen_gap_accel(run_ctx *c, size_t i, double t, const double *y)
{
    size_t n = c->n;
    const pl_forces *f = pen_forces_at(c, t, y, &c->f_accel); /* a step's end: its last right-hand side's */
    if (!f)
        return NAN;
    double *fp = c->fp_accel, *fp_v = c->fp_v_accel;
    pl_gap *gap = c->gap_accel;
    const pl_model *model = c->model;
    double D = pl_model_free_gap_accel(model, c->field.work, i, t, Q(y), V(y, c));
    pl_model_gap_sparse(model, i, t, Q(y), gap);
    if (gap->support && !model->type->velocity_map) { /* dF_p/dv = I: grad G_i . ac over its support */
        for (size_t e = 0; e < gap->nsupport; e++)
            D += gap->grad[e] * f->ac[gap->support[e]];
        return D;
    }
    pl_model_velocity_map(model, t, Q(y), V(y, c), fp, NULL, fp_v, NULL);
    for (size_t e = 0; e < gap->nsupport; e++) {
        size_t j = pl_gap_dof(gap, e);
        for (size_t k = 0; k < n; k++)
            D += gap->grad[e] * fp_v[j * n + k] * f->ac[k];
    }
    return D;
}

/* The round-off of G_i at (t, q) (noise_of_gap). */
double pen_gap_noise(const run_ctx *c, size_t i, double t, const double *q)
{
    pl_model_gap_sparse(c->model, i, t, q, c->gap_noise);
    return pen_noise_of_gap(c, c->gap_noise, q);
}

/* The resolution of G_i at (t, q) (pl_gap_resolution): its round-off (noise_of_gap), or the floor
 * rtol pen_i of its tolerance (error_weights), whichever is larger.  Below it the integrated G_i is not
 * the penalized system's: a mass that has settled into the wedge's corner (e = 0, m < 0: the corner's
 * modes overdamped, G -> 0 with q) carries gaps of 1e-20 and below, far within the tolerance 2e-16 of
 * G at mu = 1e8, whose sign the integration does not decide (the exact G stays negative there), and
 * whose terms, q itself, give no round-off to hold them. */
double pen_gap_resolution(const run_ctx *c, size_t i, double t, const double *q)
{
    pl_model_gap_sparse(c->model, i, t, q, c->gap_noise);
    return pl_gap_resolution(pl_gap_terms(c->gap_noise, 0.0, q, c->n), c->rtol * c->pen[i]);
}
