#include "solvers/limit/impact.h"

#include "core/carve.h"
#include "core/gsl_ode.h"
#include "core/linalg.h"
#include "core/rootfind.h"

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
 * The state is Y = (z[m], u[n], Delta Gamma, impulse[m]) (offsets IZ, IV, IG, II): the scaled gaps
 * z_i themselves (not the displacement d of eq. (19), which grows like sigma |v-| for a body
 * sliding along a constraint and leaves z = grad G . d known only to eps |d|), and the velocity,
 * y_v = v_base + u.  When the approach speed is small against the speed of the motion (below 1e-3
 * of it) u is the velocity change (v_base = v-) and z_i' = z0'_i + grad G_i . (F_p(q, y_v) - F_p(q,
 * v-)), z0'_i = G_t,i + grad G_i . F_p(q, v-) (for F_p = v: z0'_i + grad G_i . u): the rates then
 * carry no round-off of the sliding velocity (disks sliding at 0.5 with a normal approach speed of
 * 3e-7, with d and y_v as states, took 2e5 fast steps where 100 do).  Otherwise u = y_v itself
 * (v_base = 0) and z_i' = G_t,i + grad G_i . F_p(q, y_v): a strongly overdamped contact that stops
 * the body (xi = 1e6) holds z' ~ 0 for a fast time ~2 xi, which the velocity change, cancelling
 * v- to eps |v-|, amplified by the damping 2 xi, could not resolve.  z_i of a constraint not
 * taking part is not evolved. */
typedef struct {
    const pl_model *model;
    size_t n, m, N;
    size_t IZ, IV, IG, II; /* offsets of z, dv, Delta Gamma, the impulses in Y */
    double t;
    const double *q;
    const double *v0;    /* n: v- */
    int identity;        /* F_p = v (the case gives no velocity_map) */
    int relative;        /* u is the velocity change (v_base = v-), else the velocity */
    int *part;           /* m */
    int *active;         /* m: I{z_i <= 0}, switched at the roots of z_i */
    double *grad, *w;    /* m x n: row i of constraint i */
    /* The non-zero entries of each row of grad and of w, ascending (row i's from nz_start[i], and from
     * wnz_start[i]): the products over them, in the dense order without its zero terms, are the
     * dense products' numbers at O(s) per constraint rather than O(n) (a chain of N balls: N^2 per
     * evaluation of the fast system was most of its impact). */
    size_t *nz, *nz_start, *wnz, *wnz_start; /* nz_cap each, m + 1, nz_cap, m + 1 */
    size_t nz_cap;
    double *gt, *zd0, *m_eff; /* m: G_t, z_i' at v-, the effective masses */
    pl_contact_law *law;      /* m: each constraint's law at the impact's (t, q) (law_at frozen there) */
    double *pre;              /* m: its prepared coefficient at mu = 1 */
    double *fp0, *yv;    /* n, n: F_p(q, v-), y_v */
    double *fp_gaps;     /* n: gaps */
    double *z_rhs, *zd_rhs, *force_rhs;          /* m, m, n: fast_rhs */
    double *fp_jac, *fp_v_jac, *z_jac, *zd_jac;  /* n, n x n, m, m: fast_jacobian */
    double *force_jac, *dF, *dl;                 /* n, n x (m + n), n */
    double *z_at, *zd_at;                        /* m, m: gap_at */
} fast_system;

struct pl_impact_work {
    fast_system f;
    pl_work *work;
    pl_contact_set cs; /* project_settled */
    pl_contact *contact;
    double *minv, *Y, *Ya, *Yc, *z, *zd, *row; /* n x n, N, N, N (crossing), m, m, 2 + n */
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
    w->contact = pl_contact_new(1, n, 0);
    pl_int_part int_parts[] = {{&f->part, m}, {&f->active, m}, {&w->settled, m}};
    f->nz_start = malloc(2 * (m + 1) * sizeof *f->nz_start);
    f->wnz_start = f->nz_start ? f->nz_start + m + 1 : NULL;
    pl_part parts[] = {{&f->grad, m * n},     {&f->w, m * n},      {&f->zd0, m},        {&f->gt, m},
                       {&f->m_eff, m},        {&f->pre, m},        {&f->z_rhs, m},      {&f->zd_rhs, m},
                       {&f->z_jac, m},        {&f->zd_jac, m},     {&f->z_at, m},       {&f->zd_at, m},
                       {&w->z, m},            {&w->zd, m},         {&w->gdot_plus, m},  {&w->impulse, m},
                       {&f->fp_v_jac, n * n}, {&w->minv, n * n},   {&f->dF, n * (m + n)}, {&f->fp_gaps, n},
                       {&f->fp0, n},          {&f->yv, n},         {&f->force_rhs, n},  {&f->fp_jac, n},
                       {&f->force_jac, n},    {&f->dl, n},         {&w->v_plus, n},     {&w->Y, N},
                       {&w->Ya, N},           {&w->Yc, N},         {&w->row, 2 + n}};
    w->ints = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    f->law = calloc(m, sizeof *f->law);
    w->block = pl_carve(parts, PL_NPARTS(parts));
    if (!w->work || !w->contact || !w->ints || !f->law || !w->block || !f->nz_start ||
        pl_contact_set_init(&w->cs, model, NULL) != PL_OK) {
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
    free(w->contact);
    free(w->ints);
    free(w->f.law);
    free(w->f.nz_start);
    free(w->f.nz);
    free(w->f.wnz);
    free(w->block);
    free(w);
}

/* The non-zero entries of grad's and w's rows (fast_system.nz, wnz).  Non-zero if out of memory. */
static int nonzero_entries(fast_system *f)
{
    size_t n = f->n, m = f->m, count = 0, wcount = 0;
    for (size_t e = 0; e < m * n; e++) {
        count += f->grad[e] != 0.0;
        wcount += f->w[e] != 0.0;
    }
    size_t need = count > wcount ? count : wcount;
    if (need > f->nz_cap) {
        free(f->nz);
        free(f->wnz);
        f->nz = malloc(need * sizeof *f->nz);
        f->wnz = malloc(need * sizeof *f->wnz);
        f->nz_cap = f->nz && f->wnz ? need : 0;
        if (!f->nz_cap)
            return -1;
    }
    count = wcount = 0;
    for (size_t i = 0; i < m; i++) {
        f->nz_start[i] = count;
        f->wnz_start[i] = wcount;
        for (size_t j = 0; j < n; j++) {
            if (f->grad[i * n + j] != 0.0)
                f->nz[count++] = j;
            if (f->w[i * n + j] != 0.0)
                f->wnz[wcount++] = j;
        }
    }
    f->nz_start[m] = count;
    f->wnz_start[m] = wcount;
    return 0;
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

/* z and zd of the constraints taking part, or (all) the rates zd of every constraint (z of those
 * not taking part is 0: not evolved, and not read). */
static void gaps_of(const fast_system *f, double sigma, const double *Y, double *z, double *zd, int all)
{
    (void)sigma;
    size_t n = f->n;
    double *fp = f->fp_gaps;
    velocity_of(f, Y, fp, NULL);
    for (size_t i = 0; i < f->m; i++) {
        if (!all && !f->part[i]) {
            z[i] = zd[i] = NAN;
            continue;
        }
        double b = f->relative ? f->zd0[i] : f->gt[i];
        const double *grad = f->grad + i * n;
        for (size_t e = f->nz_start[i]; e < f->nz_start[i + 1]; e++)
            b += grad[f->nz[e]] * fp[f->nz[e]];
        z[i] = Y[f->IZ + i];
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
    for (size_t i = 0; i < f->m; i++) {
        double lambda = 0.0;
        dY[f->IZ + i] = f->part[i] ? zd[i] : 0.0;
        if (f->part[i] && f->active[i]) {
            /* eq. (18) for the law (4): A z + B z' with A = -w m k, B = -2 xi sqrt(k) w m, i.e. the
             * law's force at mu = 1 on the scaled gap z and its rate z'; the same for a law homogeneous
             * in delta, whose scaled contact problem is free of mu too */
            lambda = pl_law_force(&f->law[i], 1.0, f->pre[i], f->m_eff[i], z[i], zd[i], NULL, NULL);
            for (size_t e = f->wnz_start[i]; e < f->wnz_start[i + 1]; e++)
                force[f->wnz[e]] += f->w[i * n + f->wnz[e]] * lambda;
        }
        dY[f->II + i] = lambda;
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
    size_t n = f->n, N = f->N, m = f->m;
    double *fp = f->fp_jac, *fp_v = f->fp_v_jac, *z = f->z_jac, *zd = f->zd_jac;
    double *force = f->force_jac, *dF = f->dF, *dl = f->dl; /* dF: n x (m + n), the columns z, dv */
    memset(force, 0, n * sizeof *force);
    memset(dF, 0, n * (m + n) * sizeof *dF);
    memset(J, 0, N * N * sizeof *J);
    memset(dfdt, 0, N * sizeof *dfdt);
    velocity_of(f, Y, fp, fp_v);
    gaps(f, sigma, Y, z, zd);
    for (size_t i = 0; i < m; i++) {
        if (!f->part[i])
            continue;
        const double *grad = f->grad + i * n, *w = f->w + i * n;
        for (size_t j = 0; j < n; j++) {
            double gfv = 0.0;
            for (size_t e = f->nz_start[i]; e < f->nz_start[i + 1]; e++)
                gfv += grad[f->nz[e]] * fp_v[f->nz[e] * n + j];
            dl[j] = gfv; /* dz_i'/d dv_j */
            J[(f->IZ + i) * N + f->IV + j] = gfv;
        }
        if (!f->active[i])
            continue;
        const pl_contact_law *law = &f->law[i];
        double mk = f->m_eff[i] * law->k, ci = 2.0 * law->xi / sqrt(law->k);
        double lambda = -mk * (z[i] + ci * zd[i]), l_z = -mk, l_zd = -mk * ci;
        if (!pl_law_is_linear(law)) /* the law's partials (the effective mass is fixed here) */
            lambda = pl_law_force(law, 1.0, f->pre[i], f->m_eff[i], z[i], zd[i], &l_z, &l_zd);
        J[(f->II + i) * N + f->IZ + i] = l_z;
        for (size_t j = 0; j < n; j++)
            J[(f->II + i) * N + f->IV + j] = pl_law_is_linear(law) ? -mk * ci * dl[j] : l_zd * dl[j];
        for (size_t e = f->wnz_start[i]; e < f->wnz_start[i + 1]; e++) {
            size_t j = f->wnz[e];
            force[j] += w[j] * lambda;
            dF[j * (m + n) + i] += w[j] * l_z;
            for (size_t col = 0; col < n; col++)
                dF[j * (m + n) + m + col] += pl_law_is_linear(law) ? w[j] * -mk * ci * dl[col] : w[j] * l_zd * dl[col];
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
 * pl_model_contact_coupling). */
static int project_settled(pl_impact_work *iw, pl_impact *impact, double *zd)
{
    const fast_system *f = &iw->f;
    pl_contact_set *cs = &iw->cs;
    size_t k = pl_model_contact_coupling(f->model, iw->work, f->t, f->q, impact->v_plus, impact->settled, cs, 0);
    size_t *idx = cs->idx;
    const pl_contact *c = cs->c;
    double *rhs = cs->b, *a = cs->a;
    for (size_t r = 0; r < k; r++)
        rhs[r] = zd[idx[r]];
    int bad = pl_solve_small(k, cs->W, rhs, a);
    if (bad > 0)
        return 0; /* singular: nothing to remove along dependent directions */
    for (size_t r = 0; !bad && r < k; r++) {
        for (size_t j = 0; j < f->n; j++)
            impact->v_plus[j] -= c[r].w[j] * a[r];
        zd[idx[r]] = 0.0;
    }
    return bad;
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
static void exit_from_restitution_map(const fast_system *fs, const int *part, pl_impact *impact)
{
    size_t n = fs->n, m = fs->m, i = m, count = 0;
    for (size_t k = 0; k < m; k++)
        if (part[k])
            i = k, count++;
    if (count != 1 || impact->settled[i] || !fs->identity || !fs->law[i].type->restitution)
        return;
    double V = -fs->zd0[i], e = fs->law[i].type->restitution(fs->law[i].p, V);
    const double *w = fs->w + i * n, *grad = fs->grad + i * n;
    double a = 0.0, norm = 0.0;
    for (size_t j = 0; j < n; j++)
        a += grad[j] * w[j], norm += w[j] * w[j];
    if (!(V > 0.0) || !(e >= 0.0 && e <= 1.0) || !(a > 0.0) || !(impact->gdot_plus[i] > 0.0))
        return;
    double dP = (e * V - impact->gdot_plus[i]) / a;
    for (size_t j = 0; j < n; j++)
        impact->v_plus[j] += w[j] * dP;
    for (size_t k = 0; k < m; k++) {
        const double *gk = fs->grad + k * n;
        for (size_t e = fs->nz_start[k]; e < fs->nz_start[k + 1]; e++)
            impact->gdot_plus[k] += gk[fs->nz[e]] * w[fs->nz[e]] * dP;
    }
    impact->gdot_plus[i] = e * V;
    impact->impulse[i] += dP;
    impact->delta_gamma += sqrt(norm) * dP;
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
    fs->model = model, fs->n = n, fs->m = m, fs->N = n + 1 + 2 * m, fs->t = t, fs->q = q, fs->v0 = v_minus;
    fs->IZ = 0, fs->IV = m, fs->IG = m + n, fs->II = m + n + 1;
    fs->identity = model->type->velocity_map == NULL;
    memset(fs->active, 0, m * sizeof *fs->active);
    double *fp = fs->fp0, kmax = 0.0;
    const double *minv = model->mass_constant ? model->minv : iw->minv; /* read in place where constant */
    pl_model_velocity_map(model, t, q, v_minus, fp, NULL, NULL, NULL);
    if (!model->mass_constant && pl_model_mass(model, q, NULL, iw->minv))
        return pl_fail(err, PL_ERR_SOLVER, "the mass matrix is not positive definite at t = %.17g", t);
    pl_contact *contact = iw->contact;
    for (size_t i = 0; i < m; i++) {
        fs->part[i] = part[i];
        pl_model_contact(model, i, t, q, fp, minv, contact);
        memcpy(fs->grad + i * n, contact->gap.grad, n * sizeof(double));
        memcpy(fs->w + i * n, contact->w, n * sizeof(double));
        fs->zd0[i] = contact->gdot; /* G_t + grad G . F_p(q, v-) */
        fs->gt[i] = contact->gap.g_t;
        fs->m_eff[i] = contact->m_eff;
        pl_contact_law varying;
        fs->law[i] = *pl_model_law_at(model, i, t, q, &varying);
        fs->pre[i] = pl_law_prepare(&fs->law[i], 1.0);
    }
    if (nonzero_entries(fs))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the fast system of %zu constraints", m);
    double *Y = iw->Y, *Ya = iw->Ya;
    double *z = iw->z, *zd = iw->zd, sigma = 0.0, scale = 0.0, speed = 0.0;
    for (size_t i = 0; i < m; i++)
        if (part[i])
            scale = fmax(scale, fabs(fs->zd0[i]));
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
    for (size_t i = 0; i < m; i++)
        if (part[i])
            fs->active[i] = zd[i] <= tol_rate;
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
    for (size_t i = 0; i < m; i++)
        if (part[i])
            kmax = fmax(kmax, pl_law_is_linear(&fs->law[i]) ? fs->law[i].k
                                                            : pow(pl_law_frequency(&fs->law[i], 1.0, scale), 2.0));
    double omega = sqrt(kmax > 0 ? kmax : 1.0), slowest = 1.0 / omega, xi_max = 0.0;
    for (size_t i = 0; i < m; i++)
        if (part[i]) {
            const pl_contact_law *law = &fs->law[i];
            double xi = law->xi, wi = pl_law_is_linear(law) ? sqrt(law->k) : pl_law_frequency(law, 1.0, scale);
            xi_max = fmax(xi_max, xi);
            slowest = fmax(slowest, 1.0 / (xi <= 1.0 ? wi : wi * (xi - sqrt(xi * xi - 1.0))));
        }
    double sigma_max = 1e4 * slowest;
    double eps_v = 1e-10 * scale, eps_z = eps_v / omega, tol_switch = 1e-12 * scale / omega;

    gsl_odeiv2_system sys = {fast_rhs, fast_jacobian, fs->N, fs};
    const gsl_odeiv2_step_type *type = xi_max > 3.0 ? gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rk8pd;
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
        /* Exit (21)-(22): every constraint out of contact and separating. */
        int out = 1, settled = 1;
        for (size_t i = 0; i < m; i++) {
            if (!part[i])
                continue;
            if (fs->active[i] || zd[i] < 0.0)
                out = 0;
            if (fs->active[i] ? (fabs(z[i]) > eps_z || fabs(zd[i]) > eps_v) : zd[i] < 0.0)
                settled = 0;
        }
        if (out || settled) {
            for (size_t i = 0; i < m; i++)
                impact->settled[i] = !out && part[i] && fs->active[i];
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
         * go) or that of an inactive one negative (it is hit again).  Go to the first one. */
        double first = INFINITY;
        size_t which = 0;
        crossing c = {.f = fs, .driver = driver, .sa = sa, .Ya = Ya, .Y = iw->Yc};
        for (size_t i = 0; i < m; i++) {
            if (!part[i] || (fs->active[i] ? !(z[i] > 0.0) : !(z[i] < 0.0)))
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
            for (size_t i = 0; i < m; i++) {
                if (!part[i])
                    continue;
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
    impact->delta_gamma = Y[fs->IG];
    memcpy(impact->impulse, Y + fs->II, m * sizeof *Y);
    memcpy(impact->gdot_plus, zd, m * sizeof *zd);
    impact->s_exit = sigma;
    exit_from_restitution_map(fs, part, impact);
done:
    if (driver)
        gsl_odeiv2_driver_free(driver);
    if (stepper)
        gsl_odeiv2_driver_free(stepper);
    return status;
}
