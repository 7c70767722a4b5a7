#include "solvers/limit/impact.h"

#include "core/carve.h"
#include "core/gsl_ode.h"
#include "core/linalg.h"
#include "core/rootfind.h"
#include "model/sparse_set.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_odeiv2.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Everything the fast system needs, frozen at (q, t), and the scratch of its functions (each its
 * own: the root search integrates through fast_rhs while its caller holds gaps).
 *
 * The state is Y = (z[ns], u[n], Delta Gamma, impulse[ns]) over the ns constraints of its slots, in
 * ascending order (offsets IZ, IV, IG, II; slot[i] is constraint i's place): the scaled gaps
 * z_i themselves (not the displacement d of eq. (19), which grows like sigma |v-| for a body
 * sliding along a constraint and leaves z = grad G . d known only to eps |d|), and the velocity,
 * y_v = v_base + u.  When the approach speed is small against the speed of the motion (below 1e-3
 * of it) u is the velocity change (v_base = v-) and z_i' = z0'_i + grad G_i . (F_p(q, y_v) - F_p(q,
 * v-)), z0'_i = G_t,i + grad G_i . F_p(q, v-) (for F_p = v: z0'_i + grad G_i . u): the rates then
 * carry no round-off of the sliding velocity (disks sliding at 0.5 with a normal approach speed of
 * 3e-7, with d and y_v as states, took 2e5 fast steps where 100 do).  Otherwise u = y_v itself
 * (v_base = 0) and z_i' = G_t,i + grad G_i . F_p(q, y_v): a strongly overdamped contact that stops
 * the body (xi = 1e6) holds z' ~ 0 for a fast time ~2 xi, which the velocity change, cancelling
 * v- to eps |v-|, amplified by the damping 2 xi, could not resolve.  The slots are the p constraints
 * taking part: one not taking part is a constant (z_i = 0, impulse 0), which rk8pd's componentwise
 * arithmetic and error test leave out of the others' numbers, while each fast step passed over it.
 * A stiff impact (msbdf) too: its Newton iteration's norms and LU run over the whole state, so its
 * numbers differ from those of a slot for every constraint by round-off (1e-14 in the velocities of a
 * box of 12 disks at xi = 5), while a slot for every constraint made its dense Jacobian (n + 1 + 2m)^2:
 * 60 disks in one row at xi = 5 did not finish in 120 s, now 3.2 s. */
typedef struct {
    const pl_model *model;
    size_t n, m, N, p;
    size_t IZ, IV, IG, II; /* offsets of z, dv, Delta Gamma, the impulses in Y */
    size_t *pidx;        /* p: the constraints taking part, ascending */
    size_t *sidx, ns;    /* ns: the constraints of the state's slots, ascending */
    size_t *slot;        /* m: slot[sidx[r]] = r (read for those taking part only) */
    double t;
    const double *q;
    const double *v0;    /* n: v- */
    int identity;        /* F_p = v (the case gives no velocity_map) */
    int relative;        /* u is the velocity change (v_base = v-), else the velocity */
    int *part;           /* m */
    int *active;         /* m: I{z_i <= 0}, switched at the roots of z_i */
    /* The non-zero entries of each constraint's grad G and w, ascending: gv[e] in column nz[e] for e
     * from nz_start[i] to nz_start[i + 1] - 1, and wv, wnz, wnz_start: the products over them, in
     * the dense order without its zero terms, are the dense products' numbers at O(s) per
     * constraint rather than O(n) (a chain of N balls: N^2 per evaluation of the fast system was
     * most of its impact), and the storage is the supports' rather than m x n. */
    double *gv, *wv;                         /* nz_cap, wnz_cap */
    size_t *nz, *nz_start, *wnz, *wnz_start; /* nz_cap, m + 1, wnz_cap, m + 1 */
    size_t nz_cap, wnz_cap;
    double *gt, *zd0, *m_eff; /* m: G_t, z_i' at v-, the effective masses */
    pl_contact_law *law;      /* m: each constraint's law at the impact's (t, q) (law_at frozen there) */
    double *pre;              /* m: its prepared coefficient at mu = 1 */
    double *fp0, *yv;    /* n, n: F_p(q, v-), y_v */
    double *fp_gaps;     /* n: gaps */
    double *z_rhs, *zd_rhs, *force_rhs;          /* m, m, n: fast_rhs */
    double *fp_jac, *fp_v_jac, *z_jac, *zd_jac;  /* n, n x n, m, m: fast_jacobian */
    double *force_jac, *dF, *dl;                 /* n, n x (ns + n), n */
    double *jac_block;                           /* fp_v_jac and dF, allocated for a stiff impact */
    size_t jac_cap;
    double *z_at, *zd_at;                        /* m, m: gap_at */
} fast_system;

struct pl_impact_work {
    fast_system f;
    pl_work *work;
    pl_contact_set cs; /* project_settled (a dense model) */
    pl_sparse_set ss;  /* project_settled over supports (pl_model_sparse) */
    size_t *members;   /* m: the settled constraints, ascending */
    pl_contact *contact;
    double *minv, *Y, *Ya, *Yc, *z, *zd, *row; /* n x n (M varies), N, N, N (crossing), m, m, 2 + n */
    double *wdense;                            /* n: one constraint's w spread (zero between uses) */
    double *v_plus, *gdot_plus, *impulse;      /* the results: n, m, m */
    int *settled;
    int *ints;
    double *block;
    pl_budget budget; /* max_seconds 0: none */
};

pl_impact_work *pl_impact_work_new(const pl_model *model)
{
    size_t n = model->n, m = model->m, N = n + 1 + 2 * m;
    pl_impact_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    fast_system *f = &w->f;
    w->work = pl_work_new(model);
    w->contact = pl_contact_new_sparse(1, model, 0);
    pl_int_part int_parts[] = {{&f->part, m}, {&f->active, m}, {&w->settled, m}};
    f->nz_start = malloc(2 * (m + 1) * sizeof *f->nz_start);
    f->wnz_start = f->nz_start ? f->nz_start + m + 1 : NULL;
    f->pidx = malloc(3 * (m ? m : 1) * sizeof *f->pidx);
    f->slot = f->pidx ? f->pidx + m : NULL;
    f->sidx = f->pidx ? f->pidx + 2 * m : NULL;
    /* the entries of grad G and w: the supports' (w too where M is constant and diagonal), else n */
    size_t gw = model->support ? pl_model_gap_width(model) : n, ww = model->support && model->minv_diag ? gw : n;
    f->nz_cap = m * gw, f->wnz_cap = m * ww;
    f->gv = malloc((f->nz_cap + f->wnz_cap + 1) * sizeof *f->gv);
    f->wv = f->gv ? f->gv + f->nz_cap : NULL;
    f->nz = malloc((f->nz_cap + f->wnz_cap + 1) * sizeof *f->nz);
    f->wnz = f->nz ? f->nz + f->nz_cap : NULL;
    pl_part parts[] = {{&f->zd0, m},          {&f->gt, m},
                       {&f->m_eff, m},        {&f->pre, m},        {&f->z_rhs, m},      {&f->zd_rhs, m},
                       {&f->z_jac, m},        {&f->zd_jac, m},     {&f->z_at, m},       {&f->zd_at, m},
                       {&w->z, m},            {&w->zd, m},         {&w->gdot_plus, m},  {&w->impulse, m},
                       {&w->minv, model->mass_constant ? 0 : n * n}, {&f->fp_gaps, n},
                       {&f->fp0, n},          {&f->yv, n},         {&f->force_rhs, n},  {&f->fp_jac, n},
                       {&f->force_jac, n},    {&f->dl, n},         {&w->v_plus, n},     {&w->Y, N},
                       {&w->Ya, N},           {&w->Yc, N},         {&w->row, 2 + n},    {&w->wdense, n}};
    w->ints = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    f->law = calloc(m, sizeof *f->law);
    w->block = pl_carve(parts, PL_NPARTS(parts));
    w->members = malloc((m ? m : 1) * sizeof *w->members);
    int sets = pl_model_sparse(model) ? pl_sparse_set_init(&w->ss, model) : pl_contact_set_init(&w->cs, model, NULL) != PL_OK;
    if (!w->work || !w->contact || !w->ints || !f->law || !w->block || !f->nz_start || !w->members || sets ||
        !f->pidx || !f->gv || !f->nz) {
        pl_impact_work_free(w);
        return NULL;
    }
    return w;
}

void pl_impact_work_set_budget(pl_impact_work *w, const pl_budget *budget)
{
    w->budget = budget ? *budget : (pl_budget){0.0, 0.0};
}

void pl_impact_work_free(pl_impact_work *w)
{
    if (!w)
        return;
    pl_work_free(w->work);
    pl_contact_set_free(&w->cs);
    pl_sparse_set_free(&w->ss);
    free(w->members);
    free(w->contact);
    free(w->ints);
    free(w->f.law);
    free(w->f.nz_start);
    free(w->f.pidx);
    free(w->f.gv);
    free(w->f.nz);
    free(w->f.jac_block);
    free(w->block);
    free(w);
}

/* Constraint i's non-zero entries of grad G and of w from its contact c (dense, or over its support),
 * after constraint i - 1's (fast_system.gv, wv), in ascending columns. */
static void append_entries(fast_system *f, size_t i, const pl_contact *c)
{
    size_t count = f->nz_start[i], wcount = f->wnz_start[i];
    const pl_gap *g = &c->gap;
    for (size_t e = 0, ne = g->support ? g->nsupport : f->n; e < ne; e++)
        if (g->grad[e] != 0.0)
            f->gv[count] = g->grad[e], f->nz[count++] = pl_gap_dof(g, e);
    for (size_t e = 0; e < c->nw; e++)
        if (c->w[e] != 0.0)
            f->wv[wcount] = c->w[e], f->wnz[wcount++] = c->w_support ? c->w_support[e] : e;
    f->nz_start[i + 1] = count;
    f->wnz_start[i + 1] = wcount;
}

/* y_v (into f->yv) and the part of F_p(q, y_v) the rates need (into fp): F_p(q, y_v) - F_p(q, v-)
 * if relative (for F_p = v that is u itself, exactly), else F_p(q, y_v); and, if fp_v is not NULL,
 * dF_p/dv at y_v. */
static void velocity_of(const fast_system *f, const double *Y, double *fp, double *fp_v)
{
    size_t n = f->n;
    const double *u = Y + f->IV;
    for (size_t j = 0; j < n; j++)
        f->yv[j] = f->relative ? f->v0[j] + u[j] : u[j];
    if (f->relative && f->identity && !fp_v) {
        memcpy(fp, u, n * sizeof *fp);
        return;
    }
    pl_model_velocity_map(f->model, f->t, f->q, f->yv, fp, NULL, fp_v, NULL);
    if (f->relative && f->identity)
        memcpy(fp, u, n * sizeof *fp);
    else if (f->relative)
        for (size_t j = 0; j < n; j++)
            fp[j] -= f->fp0[j];
}

/* z and zd of the constraints taking part (the others' entries not written), or (all) the rates zd
 * of every constraint (z of those not taking part is 0: not evolved, and not read). */
static void gaps_of(const fast_system *f, double sigma, const double *Y, double *z, double *zd, int all)
{
    (void)sigma;
    double *fp = f->fp_gaps;
    velocity_of(f, Y, fp, NULL);
    for (size_t r = 0, count = all ? f->m : f->p; r < count; r++) {
        size_t i = all ? r : f->pidx[r];
        double b = f->relative ? f->zd0[i] : f->gt[i];
        for (size_t e = f->nz_start[i]; e < f->nz_start[i + 1]; e++)
            b += f->gv[e] * fp[f->nz[e]];
        z[i] = f->part[i] ? Y[f->IZ + f->slot[i]] : 0.0;
        zd[i] = b;
    }
}

static void gaps(const fast_system *f, double sigma, const double *Y, double *z, double *zd)
{
    gaps_of(f, sigma, Y, z, zd, 0);
}

static int fast_rhs(double sigma, const double *Y, double *dY, void *params)
{
    const fast_system *f = params;
    size_t n = f->n;
    double *z = f->z_rhs, *zd = f->zd_rhs, *force = f->force_rhs;
    memset(force, 0, n * sizeof *force);
    gaps(f, sigma, Y, z, zd);
    for (size_t r = 0; r < f->ns; r++) {
        size_t i = f->sidx[r];
        double lambda = 0.0;
        dY[f->IZ + r] = f->part[i] ? zd[i] : 0.0;
        if (f->part[i] && f->active[i]) {
            /* eq. (18) for the law (4): A z + B z' with A = -w m k, B = -2 xi sqrt(k) w m, i.e. the
             * law's force at mu = 1 on the scaled gap z and its rate z'; the same for a law homogeneous
             * in delta, whose scaled contact problem is free of mu too */
            lambda = pl_law_force(&f->law[i], 1.0, f->pre[i], f->m_eff[i], z[i], zd[i], NULL, NULL);
            for (size_t e = f->wnz_start[i]; e < f->wnz_start[i + 1]; e++)
                force[f->wnz[e]] += f->wv[e] * lambda;
        }
        dY[f->II + r] = lambda;
    }
    double norm = 0.0;
    for (size_t j = 0; j < n; j++) {
        dY[f->IV + j] = force[j];
        norm += force[j] * force[j];
    }
    dY[f->IG] = sqrt(norm);
    return GSL_SUCCESS;
}

/* Jacobian of fast_rhs (for the stiff stepper): with c_i = 2 xi_i/sqrt(k_i) and
 * g_i = (dF_p/dv)' grad_i, dz_i'/d dv = g_i, dlambda_i/dz_i = -m_i k_i,
 * dlambda_i/d dv = -m_i k_i c_i g_i; d|F|/dY = (F/|F|)' dF/dY.  Nothing depends on sigma itself. */
static int fast_jacobian(double sigma, const double *Y, double *J, double *dfdt, void *params)
{
    (void)sigma;
    const fast_system *f = params;
    size_t n = f->n, N = f->N, m = f->ns; /* the columns of z: the slots' */
    double *fp = f->fp_jac, *fp_v = f->fp_v_jac, *z = f->z_jac, *zd = f->zd_jac;
    double *force = f->force_jac, *dF = f->dF, *dl = f->dl; /* dF: n x (ns + n), the columns z, dv */
    memset(force, 0, n * sizeof *force);
    memset(dF, 0, n * (m + n) * sizeof *dF);
    memset(J, 0, N * N * sizeof *J);
    memset(dfdt, 0, N * sizeof *dfdt);
    velocity_of(f, Y, fp, fp_v);
    gaps(f, sigma, Y, z, zd);
    for (size_t r = 0; r < m; r++) {
        size_t i = f->sidx[r];
        if (!f->part[i])
            continue;
        for (size_t j = 0; j < n; j++) {
            double gfv = 0.0;
            for (size_t e = f->nz_start[i]; e < f->nz_start[i + 1]; e++)
                gfv += f->gv[e] * fp_v[f->nz[e] * n + j];
            dl[j] = gfv; /* dz_i'/d dv_j */
            J[(f->IZ + r) * N + f->IV + j] = gfv;
        }
        if (!f->active[i])
            continue;
        const pl_contact_law *law = &f->law[i];
        double mk = f->m_eff[i] * law->k, ci = 2.0 * law->xi / sqrt(law->k);
        double lambda = -mk * (z[i] + ci * zd[i]), l_z = -mk, l_zd = -mk * ci;
        if (!pl_law_is_linear(law)) /* the law's partials (the effective mass is fixed here) */
            lambda = pl_law_force(law, 1.0, f->pre[i], f->m_eff[i], z[i], zd[i], &l_z, &l_zd);
        J[(f->II + r) * N + f->IZ + r] = l_z;
        for (size_t j = 0; j < n; j++)
            J[(f->II + r) * N + f->IV + j] = pl_law_is_linear(law) ? -mk * ci * dl[j] : l_zd * dl[j];
        for (size_t e = f->wnz_start[i]; e < f->wnz_start[i + 1]; e++) {
            size_t j = f->wnz[e];
            double wj = f->wv[e];
            force[j] += wj * lambda;
            dF[j * (m + n) + r] += wj * l_z;
            for (size_t col = 0; col < n; col++)
                dF[j * (m + n) + m + col] += pl_law_is_linear(law) ? wj * -mk * ci * dl[col] : wj * l_zd * dl[col];
        }
    }
    double norm = 0.0;
    for (size_t j = 0; j < n; j++) {
        norm += force[j] * force[j];
        for (size_t col = 0; col < m; col++)
            J[(f->IV + j) * N + f->IZ + col] = dF[j * (m + n) + col];
        for (size_t col = 0; col < n; col++)
            J[(f->IV + j) * N + f->IV + col] = dF[j * (m + n) + m + col];
    }
    norm = sqrt(norm);
    if (norm > 0.0)
        for (size_t j = 0; j < n; j++) {
            for (size_t col = 0; col < m; col++)
                J[f->IG * N + f->IZ + col] += force[j] / norm * dF[j * (m + n) + col];
            for (size_t col = 0; col < n; col++)
                J[f->IG * N + f->IV + col] += force[j] / norm * dF[j * (m + n) + m + col];
        }
    return GSL_SUCCESS;
}

/* State at sigma, integrated from (sa, Ya) with the current modes. */
typedef struct {
    fast_system *f;
    gsl_odeiv2_driver *driver;
    double sa;
    const double *Ya;
    size_t i;
    double *Y; /* N */
} crossing;

static double gap_at(double sigma, void *p)
{
    crossing *c = p;
    memcpy(c->Y, c->Ya, c->f->N * sizeof *c->Y);
    double s = c->sa;
    gsl_odeiv2_driver_reset(c->driver);
    if (sigma > s && gsl_odeiv2_driver_apply(c->driver, &s, sigma, c->Y) != GSL_SUCCESS)
        return NAN;
    gaps(c->f, sigma, c->Y, c->f->z_at, c->f->zd_at);
    return c->f->z_at[c->i];
}

/* The root of z_i in [sa, sb] (Brent on re-integrations from sa), returned as the upper end of
 * the final bracket: just past the root, where z_i has its new sign.  A constraint that began the
 * step on its boundary (z_i = 0 at a switch, or at sigma = 0) first departs from it: the root is
 * searched from a point sa + (sb - sa) 2^-k where z_i has the sign opposite to its end (without
 * this, Brent returned sa itself, where z_i = 0, and a neighbour separating slowly when the impact
 * began was switched at sigma = 0 back and forth without end); if z_i never departs, the switch is
 * at sa. */
static double locate(crossing *c, double sb)
{
    double a = c->sa, zb = gap_at(sb, c);
    if (!(gap_at(a, c) * zb < 0.0)) {
        double from = NAN;
        for (int k = 1; k <= 40 && isnan(from); k++) {
            double s = c->sa + (sb - c->sa) * ldexp(1.0, -k);
            if (s > c->sa && gap_at(s, c) * zb < 0.0)
                from = s;
        }
        if (isnan(from))
            return c->sa;
        a = from;
    }
    double root = pl_brent(gap_at, c, a, sb, 1);
    return isnan(root) ? sb : root;
}

/* Constraints that settled (z, z' -> 0 exponentially) keep decaying after the stop: their limit
 * is reached exactly by removing the remaining normal velocity along their directions w_i, the
 * only directions their forces act in: v+ -= sum_j w_j a_j with W a = z'_settled (W of
 * pl_model_contact_coupling).  Returns 0, 1 if W is singular (nothing done), -1 if out of memory. */
static int project_settled(pl_impact_work *iw, pl_impact *impact, double *zd)
{
    const fast_system *f = &iw->f;
    const size_t *idx;
    const pl_contact *c;
    double *rhs, *a, *W;
    size_t k = 0;
    if (pl_model_sparse(f->model)) { /* over supports: the same numbers (model/sparse_set.h) */
        pl_sparse_set *ss = &iw->ss;
        size_t formed = 0;
        for (size_t i = 0; i < f->m; i++)
            if (impact->settled[i])
                iw->members[k++] = i;
        if (k == 0)
            return 0;
        if (pl_sparse_set_fill(ss, f->model, f->t, f->q, impact->v_plus, iw->members, k, &formed) ||
            pl_sparse_set_dense(ss))
            return -1;
        idx = ss->idx, c = ss->c, rhs = ss->D, a = ss->z, W = ss->W;
    } else {
        pl_contact_set *cs = &iw->cs;
        k = pl_model_contact_coupling(f->model, iw->work, f->t, f->q, impact->v_plus, impact->settled, cs, 0);
        idx = cs->idx, c = cs->c, rhs = cs->b, a = cs->a, W = cs->W;
    }
    for (size_t r = 0; r < k; r++)
        rhs[r] = zd[idx[r]];
    int bad = pl_solve_small(k, W, rhs, a);
    if (bad > 0)
        return 1; /* singular: nothing removed (dependent directions), v+ and zd as they were */
    for (size_t r = 0; !bad && r < k; r++) {
        for (size_t e = 0; e < c[r].nw; e++) /* over w's entries: its zeros add nothing */
            impact->v_plus[c[r].w_support ? c[r].w_support[e] : e] -= c[r].w[e] * a[r];
        zd[idx[r]] = 0.0;
    }
    return bad;
}

/* Every constraint's rate zd at the impact's v+ (after a projection), those of the set projected
 * (settled) 0, as project_settled leaves them. */
static void rates_at_v_plus(pl_impact_work *iw, const pl_impact *impact, const double *v_minus, double sigma)
{
    fast_system *fs = &iw->f;
    for (size_t j = 0; j < fs->n; j++) /* the state's velocity part, as gaps_of reads it */
        iw->Y[fs->IV + j] = impact->v_plus[j] - (fs->relative ? v_minus[j] : 0.0);
    gaps_of(fs, sigma, iw->Y, iw->z, iw->zd, 1);
    for (size_t r = 0; r < fs->p; r++)
        if (impact->settled[fs->pidx[r]])
            iw->zd[fs->pidx[r]] = 0.0;
}

void pl_impact_free(pl_impact *impact)
{
    pl_table_free(&impact->arc);
}

static pl_status record_arc(pl_impact *impact, pl_impact_work *iw, double sigma, const double *Y, pl_error *err)
{
    const fast_system *f = &iw->f;
    double *row = iw->row;
    row[0] = sigma;
    row[1] = Y[f->IG];
    for (size_t j = 0; j < f->n; j++)
        row[2 + j] = (f->relative ? f->v0[j] : 0.0) + Y[f->IV + j];
    return pl_table_append(&impact->arc, row, err);
}

/* One constraint i taking part, separating at the exit, under a law with a restitution map (closed
 * form, laws/restitution.c) and F_p = v: its exit rate is e(V) V exactly, V its approach speed,
 * rather than the fast system's to that integration's tolerance (which drifted by 5e-8 of the speed
 * over the 7700 resolved Hunt-Crossley bounces of the ball on [0, 3]).  The fast solution's impulse
 * is corrected along w_i: Delta P = (e V - z_i'(s*))/(grad G_i . w_i), and Delta Gamma by |w_i| Delta P
 * (exact for a law that never pulls, as the force keeps its sign; a first-order correction of the
 * fast system's error under Kelvin-Voigt).  Paper 004's impact of a single constraint is that law's
 * restitution (Theorem 5 with the fast system of one contact). */
static void exit_from_restitution_map(const fast_system *fs, pl_impact_work *iw, pl_impact *impact)
{
    size_t m = fs->m, i = fs->p == 1 ? fs->pidx[0] : m;
    if (fs->p != 1 || impact->settled[i] || !fs->identity || !fs->law[i].type->restitution)
        return;
    double V = -fs->zd0[i], e = fs->law[i].type->restitution(fs->law[i].p, V);
    double *w = iw->wdense; /* w_i spread (zero elsewhere): the dense sums' terms, their zeros left out */
    double a = 0.0, norm = 0.0;
    for (size_t k = fs->wnz_start[i]; k < fs->wnz_start[i + 1]; k++)
        w[fs->wnz[k]] = fs->wv[k];
    for (size_t k = fs->nz_start[i]; k < fs->nz_start[i + 1]; k++)
        a += fs->gv[k] * w[fs->nz[k]];
    for (size_t k = fs->wnz_start[i]; k < fs->wnz_start[i + 1]; k++)
        norm += fs->wv[k] * fs->wv[k];
    if (V > 0.0 && e >= 0.0 && e <= 1.0 && a > 0.0 && impact->gdot_plus[i] > 0.0) {
        double dP = (e * V - impact->gdot_plus[i]) / a;
        for (size_t k = fs->wnz_start[i]; k < fs->wnz_start[i + 1]; k++)
            impact->v_plus[fs->wnz[k]] += fs->wv[k] * dP;
        for (size_t k = 0; k < m; k++)
            for (size_t x = fs->nz_start[k]; x < fs->nz_start[k + 1]; x++)
                impact->gdot_plus[k] += fs->gv[x] * w[fs->nz[x]] * dP;
        impact->gdot_plus[i] = e * V;
        impact->impulse[i] += dP;
        impact->delta_gamma += sqrt(norm) * dP;
    }
    for (size_t k = fs->wnz_start[i]; k < fs->wnz_start[i + 1]; k++)
        w[fs->wnz[k]] = 0.0;
}

pl_status pl_impact_solve(const pl_model *model, pl_impact_work *iw, double t, const double *q, const double *v_minus,
                          const int *part, pl_impact *impact, pl_error *err)
{
    memset(impact, 0, sizeof *impact);
    size_t n = model->n, m = model->m;
    pl_table_init(&impact->arc, 2 + n);
    impact->v_plus = iw->v_plus;
    impact->gdot_plus = iw->gdot_plus;
    impact->impulse = iw->impulse;
    impact->settled = iw->settled;
    memset(impact->settled, 0, m * sizeof *impact->settled);
    fast_system *fs = &iw->f;
    size_t p = 0;
    for (size_t i = 0; i < m; i++)
        if (part[i])
            fs->pidx[p++] = i;
    fs->model = model, fs->n = n, fs->m = m, fs->p = p, fs->t = t, fs->q = q, fs->v0 = v_minus;
    fs->identity = model->type->velocity_map == NULL;
    memset(fs->active, 0, m * sizeof *fs->active);
    double *fp = fs->fp0, kmax = 0.0;
    const double *minv = model->mass_constant ? model->minv : iw->minv; /* read in place where constant */
    pl_model_velocity_map(model, t, q, v_minus, fp, NULL, NULL, NULL);
    if (!model->mass_constant && pl_model_mass(model, q, NULL, iw->minv))
        return pl_fail(err, PL_ERR_SOLVER, "the mass matrix is not positive definite at t = %.17g", t);
    pl_contact *contact = iw->contact;
    fs->nz_start[0] = fs->wnz_start[0] = 0;
    for (size_t i = 0; i < m; i++) {
        fs->part[i] = part[i];
        /* over the support where the case gives one: the dense contact's numbers (pl_model_contact_sparse),
         * the sign of a zero rate as the dense sum has it */
        pl_model_contact_sparse(model, i, t, q, fp, minv, contact);
        append_entries(fs, i, contact);
        fs->zd0[i] = pl_gap_rate_dense_zero(&contact->gap, fp, n, contact->gdot); /* G_t + grad G . F_p(q, v-) */
        fs->gt[i] = contact->gap.g_t;
        fs->m_eff[i] = contact->m_eff;
        pl_contact_law varying;
        fs->law[i] = *pl_model_law_at(model, i, t, q, &varying);
        fs->pre[i] = pl_law_prepare(&fs->law[i], 1.0);
    }
    fs->ns = p;
    for (size_t r = 0; r < fs->ns; r++) {
        fs->sidx[r] = fs->pidx[r];
        fs->slot[fs->sidx[r]] = r;
    }
    size_t ns = fs->ns;
    fs->N = n + 1 + 2 * ns;
    fs->IZ = 0, fs->IV = ns, fs->IG = ns + n, fs->II = ns + n + 1;
    double *Y = iw->Y, *Ya = iw->Ya;
    double *z = iw->z, *zd = iw->zd, sigma = 0.0, scale = 0.0, speed = 0.0;
    for (size_t r = 0; r < p; r++)
        scale = fmax(scale, fabs(fs->zd0[fs->pidx[r]]));
    for (size_t j = 0; j < n; j++)
        speed = fmax(speed, fabs(v_minus[j]));
    fs->relative = scale < 1e-3 * speed;
    memset(Y, 0, fs->N * sizeof *Y); /* z = 0 (on the boundary) */
    if (!fs->relative)
        memcpy(Y + fs->IV, v_minus, n * sizeof *Y);
    gaps(fs, 0.0, Y, z, zd);
    /* On the boundary at the start: in contact unless separating beyond the round-off of the
     * rates, 1e-12 of the approach speed or 100 ulps of the velocities they are computed from (a
     * neighbour leaving at 1e-13 of the approach speed, or at 3e-17 out of velocities ~0.5, taken
     * as free, was hit at once, and switched off again as leaving at every other switch at sigma =
     * 0, without end). */
    double tol_rate = fmax(1e-12 * (scale > 0.0 ? scale : 1.0), 100.0 * DBL_EPSILON * speed);
    for (size_t r = 0; r < p; r++)
        fs->active[fs->pidx[r]] = zd[fs->pidx[r]] <= tol_rate;
    if (scale == 0.0)
        for (size_t j = 0; j < n; j++)
            scale = fmax(scale, fabs(v_minus[j]));
    if (scale == 0.0)
        scale = 1.0;
    /* Time scales in fast time: the contact oscillation 1/sqrt(k), and the slowest decay, which
     * for xi >> 1 is 1/(sqrt(k) (xi - sqrt(xi^2 - 1))) ~ 2 xi/sqrt(k).  Overdamped contacts
     * (xi > 3) are stiff, with a stiffness ratio ~4 xi^2: an implicit stepper (GSL msbdf, with
     * the analytic Jacobian) takes them; the explicit rk8pd the others.  A nonlinear law's
     * frequency is its fast system's at the speed scale, sqrt(k) that of a linear one (mu = 1). */
    for (size_t r = 0; r < p; r++) {
        const pl_contact_law *law = &fs->law[fs->pidx[r]];
        kmax = fmax(kmax, pl_law_is_linear(law) ? law->k : pow(pl_law_frequency(law, 1.0, scale), 2.0));
    }
    double omega = sqrt(kmax > 0 ? kmax : 1.0), slowest = 1.0 / omega, xi_max = 0.0;
    for (size_t r = 0; r < p; r++) {
        const pl_contact_law *law = &fs->law[fs->pidx[r]];
        double xi = law->xi, wi = pl_law_is_linear(law) ? sqrt(law->k) : pl_law_frequency(law, 1.0, scale);
        xi_max = fmax(xi_max, xi);
        slowest = fmax(slowest, 1.0 / (xi <= 1.0 ? wi : wi * (xi - sqrt(xi * xi - 1.0))));
    }
    double sigma_max = 1e4 * slowest;
    double eps_v = 1e-10 * scale, eps_z = eps_v / omega, tol_switch = 1e-12 * scale / omega;

    gsl_odeiv2_system sys = {fast_rhs, fast_jacobian, fs->N, fs};
    const gsl_odeiv2_step_type *type = xi_max > 3.0 ? gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rk8pd;
    if (xi_max > 3.0 && n * n + n * (ns + n) > fs->jac_cap) { /* the Jacobian's scratch, for a stiff impact only */
        free(fs->jac_block);
        fs->jac_cap = n * n + n * (ns + n);
        fs->jac_block = malloc(fs->jac_cap * sizeof *fs->jac_block);
        if (!fs->jac_block) {
            fs->jac_cap = 0;
            return pl_fail(err, PL_ERR_NOMEM, "out of memory for the fast system of %zu constraints", p);
        }
    }
    fs->fp_v_jac = fs->jac_block;
    fs->dF = fs->jac_block ? fs->jac_block + n * n : NULL;
    /* Two drivers (the multistep msbdf needs its driver): one steps through the fast motion, the
     * other re-integrates pieces of a step to locate mode switches. */
    double h = 1e-3 / omega, eps_abs = 1e-14 * scale / omega;
    gsl_odeiv2_driver *stepper = pl_odeiv2_driver_alloc_y_new(&sys, type, h, eps_abs, 1e-12);
    gsl_odeiv2_driver *driver = pl_odeiv2_driver_alloc_y_new(&sys, type, h, eps_abs, 1e-12);
    pl_status status = PL_OK;
    if (!stepper || !driver) {
        status = pl_fail(err, PL_ERR_NOMEM, "out of memory for the fast-time integrator");
        goto done;
    }
    if ((status = record_arc(impact, iw, sigma, Y, err)) != PL_OK)
        goto done;
    int stalls = 0;
    for (;;) {
        /* Exit (21)-(22): every constraint out of contact and separating, a free one approaching
         * within eps_v taken as not approaching (the rates' round-off grows with a chain: -4e-12 at
         * 250 balls held the exit until sigma_max); its approach is removed after the loop. */
        int out = 1, settled = 1;
        for (size_t r = 0; r < p; r++) {
            size_t i = fs->pidx[r];
            if (fs->active[i] || zd[i] < -eps_v)
                out = 0;
            if (fs->active[i] ? (fabs(z[i]) > eps_z || fabs(zd[i]) > eps_v) : zd[i] < -eps_v)
                settled = 0;
        }
        if (out || settled) {
            for (size_t r = 0; r < p; r++)
                impact->settled[fs->pidx[r]] = !out && fs->active[fs->pidx[r]];
            break;
        }
        if (pl_budget_spent(&iw->budget)) {
            status = pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " in the impact at t = %.17g (its fast system, "
                             "after %zu fast steps)", iw->budget.max_seconds, t, impact->fast_steps);
            goto done;
        }
        if (sigma > sigma_max || impact->fast_steps > 1000000) {
            status = pl_fail(err, PL_ERR_SOLVER,
                             "impact at t = %.17g: the fast motion did not end by sigma = %g (%zu fast steps)", t, sigma,
                             impact->fast_steps);
            goto done;
        }
        double sa = sigma;
        memcpy(Ya, Y, fs->N * sizeof *Y);
        if (gsl_odeiv2_evolve_apply(stepper->e, stepper->c, stepper->s, &sys, &sigma, sigma_max * 2, &h, Y) !=
            GSL_SUCCESS) {
            status = pl_fail(err, PL_ERR_SOLVER, "impact at t = %.17g: the fast-time integration failed", t);
            goto done;
        }
        impact->fast_steps++;
        gaps(fs, sigma, Y, z, zd);
        /* A mode switch inside the step: z_i of an active constraint turns positive (it lets
         * go) or that of an inactive one negative (it is hit again).  Go to the first one.  A
         * contact at rest to round-off (|z_i| within tol_switch, |z_i'| within eps_v: a disk
         * resting on another in a pile that the impact has not reached) switches neither way: its
         * force is 0 in either mode, and its z_i, re-integrated in the other mode, took the other
         * sign at the same sigma, toggled back and forth until "modes chatter" (25 disks in rows
         * of 5 under gravity at t = 0.337). */
        double first = INFINITY;
        size_t which = 0;
        crossing c = {.f = fs, .driver = driver, .sa = sa, .Ya = Ya, .Y = iw->Yc};
        for (size_t r = 0; r < p; r++) {
            size_t i = fs->pidx[r];
            if ((fs->active[i] ? !(z[i] > 0.0) : !(z[i] < 0.0)) || (fabs(z[i]) <= tol_switch && fabs(zd[i]) <= eps_v))
                continue;
            c.i = i;
            double root = locate(&c, sigma);
            if (root < first)
                first = root, which = i;
        }
        if (isfinite(first)) {
            if (first <= sa && ++stalls > 10 * (int)m + 10) {
                status = pl_fail(err, PL_ERR_SOLVER, "impact at t = %.17g: contact modes chatter at sigma = %g",
                                 t, sa);
                goto done;
            }
            c.i = which;
            gap_at(first, &c);
            memcpy(Y, c.Y, fs->N * sizeof *Y);
            sigma = first;
            gaps(fs, sigma, Y, z, zd);
            /* Switch `which` and every constraint crossing there too (a symmetric corner impact
             * releases both walls at once; round-off must not split it). */
            for (size_t r = 0; r < p; r++) {
                size_t i = fs->pidx[r];
                int leaving = fs->active[i] && zd[i] > tol_rate && z[i] > -tol_switch;
                int hitting = !fs->active[i] && zd[i] < -tol_rate && z[i] < tol_switch;
                if (i == which || leaving || hitting)
                    fs->active[i] = !fs->active[i];
            }
            gsl_odeiv2_driver_reset(stepper); /* restart the stepper from the switch */
        }
        if ((status = record_arc(impact, iw, sigma, Y, err)) != PL_OK)
            goto done;
    }
    gaps_of(fs, sigma, Y, z, zd, 1); /* z_i' at the exit of every constraint (the same for those taking part) */
    for (size_t j = 0; j < n; j++)
        impact->v_plus[j] = (fs->relative ? v_minus[j] : 0.0) + Y[fs->IV + j];
    if (project_settled(iw, impact, zd) < 0) {
        status = pl_fail(err, PL_ERR_NOMEM, "out of memory ending the impact at t = %.17g", fs->t);
        goto done;
    }
    /* The projection moved the velocities of the settled constraints' bodies, and so the rates of
     * their neighbours: every rate afresh (the settled ones 0, as projected).  They were the exit's,
     * and a neighbour approaching after the projection (-4e-11 in a chain of 400 balls at e = 0.45)
     * read as leaving, until it crossed G = 0 in the slow time. */
    int moved = 0;
    for (size_t r = 0; r < p && !moved; r++)
        moved = impact->settled[fs->pidx[r]] != 0;
    if (moved)
        rates_at_v_plus(iw, impact, v_minus, sigma);
    /* A free constraint that the exit test let approach within eps_v (round-off of the rates: in a
     * chain of 250 balls at e = 0.45, z' = -4e-12 with z = 1.3e-7 held the fast motion to sigma_max)
     * has its approach removed with the settled ones': left, it crossed G = 0 in the slow time and
     * failed the run later ("constraint 157 violated" at t = 33.7).  A projection moves the
     * neighbours' rates too, so until none approaches: the set grows each pass (flagged 2 for the
     * projection alone), at most p passes. */
    for (size_t pass = 0; pass <= p; pass++) {
        size_t added = 0;
        for (size_t r = 0; r < p; r++) {
            size_t i = fs->pidx[r];
            if (!impact->settled[i] && !fs->active[i] && zd[i] < 0.0)
                impact->settled[i] = 3, added++; /* 3: this pass's, 2 once projected */
        }
        if (added == 0)
            break;
        int singular = project_settled(iw, impact, zd);
        if (singular < 0) {
            status = pl_fail(err, PL_ERR_NOMEM, "out of memory ending the impact at t = %.17g", fs->t);
            goto done;
        }
        for (size_t r = 0; r < p; r++) {
            size_t i = fs->pidx[r];
            if (impact->settled[i] == 3)
                impact->settled[i] = singular ? 0 : 2;
        }
        if (singular) /* singular W: this pass's approaches stay as they are (rates true, not 0) */
            break;
        rates_at_v_plus(iw, impact, v_minus, sigma);
    }
    for (size_t r = 0; r < p; r++)
        if (impact->settled[fs->pidx[r]] == 2)
            impact->settled[fs->pidx[r]] = 0;
    impact->delta_gamma = Y[fs->IG];
    memset(impact->impulse, 0, m * sizeof *impact->impulse);
    for (size_t r = 0; r < ns; r++)
        impact->impulse[fs->sidx[r]] = Y[fs->II + r];
    memcpy(impact->gdot_plus, zd, m * sizeof *zd);
    impact->s_exit = sigma;
    impact->state_size = fs->N;
    exit_from_restitution_map(fs, iw, impact);
done:
    if (driver)
        gsl_odeiv2_driver_free(driver);
    if (stepper)
        gsl_odeiv2_driver_free(stepper);
    return status;
}
