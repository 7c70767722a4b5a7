#include "solvers/limit/impact.h"

#include "core/rootfind.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_odeiv2.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* Everything the fast system needs, frozen at (q, t). */
typedef struct {
    const pl_model *model;
    size_t n, m, N;
    double t;
    const double *q;
    int part[PL_MAX_CON];
    int active[PL_MAX_CON]; /* I{z_i <= 0}, switched at the roots of z_i */
    double grad[PL_MAX_CON][PL_MAX_DOF], gt[PL_MAX_CON], w[PL_MAX_CON][PL_MAX_DOF], m_eff[PL_MAX_CON];
} fast_system;

/* Y = (d[n], y_v[n], Delta Gamma, impulse[m]) */
static void gaps(const fast_system *f, double sigma, const double *Y, double *z, double *zd)
{
    size_t n = f->n;
    double fp[PL_MAX_DOF];
    pl_model_velocity_map(f->model, f->t, f->q, Y + n, fp, NULL, NULL, NULL);
    for (size_t i = 0; i < f->m; i++) {
        double a = f->gt[i] * sigma, b = f->gt[i];
        for (size_t j = 0; j < n; j++) {
            a += f->grad[i][j] * Y[j];
            b += f->grad[i][j] * fp[j];
        }
        z[i] = a;
        zd[i] = b;
    }
}

static int fast_rhs(double sigma, const double *Y, double *dY, void *params)
{
    const fast_system *f = params;
    size_t n = f->n;
    double z[PL_MAX_CON], zd[PL_MAX_CON], force[PL_MAX_DOF] = {0};
    pl_model_velocity_map(f->model, f->t, f->q, Y + n, dY, NULL, NULL, NULL);
    gaps(f, sigma, Y, z, zd);
    for (size_t i = 0; i < f->m; i++) {
        double lambda = 0.0;
        if (f->part[i] && f->active[i]) {
            const pl_law *law = &f->model->law[i];
            /* eq. (18) for the law (4): A z + B z' with A = -w m k, B = -2 xi sqrt(k) w m, i.e. the
             * law's force at mu = 1 on the scaled gap z and its rate z' */
            lambda = pl_law_force(law, 1.0, pl_law_damping(law, 1.0), f->m_eff[i], z[i], zd[i]);
            for (size_t j = 0; j < n; j++)
                force[j] += f->w[i][j] * lambda;
        }
        dY[2 * n + 1 + i] = lambda;
    }
    double norm = 0.0;
    for (size_t j = 0; j < n; j++) {
        dY[n + j] = force[j];
        norm += force[j] * force[j];
    }
    dY[2 * n] = sqrt(norm);
    return GSL_SUCCESS;
}

/* Jacobian of fast_rhs (for the stiff stepper): with c_i = 2 xi_i/sqrt(k_i),
 * dlambda_i/dd = -m_i k_i grad_i, dlambda_i/dy_v = -m_i k_i c_i (dF_p/dv)' grad_i,
 * dlambda_i/dsigma = -m_i k_i G_t,i; d|F|/dY = (F/|F|)' dF/dY. */
static int fast_jacobian(double sigma, const double *Y, double *J, double *dfdt, void *params)
{
    (void)sigma;
    const fast_system *f = params;
    size_t n = f->n, N = f->N;
    double fp[PL_MAX_DOF], fp_v[PL_MAX_DOF * PL_MAX_DOF], z[PL_MAX_CON], zd[PL_MAX_CON];
    double force[PL_MAX_DOF] = {0}, dF[PL_MAX_DOF][2 * PL_MAX_DOF] = {{0}}, dFt[PL_MAX_DOF] = {0};
    memset(J, 0, N * N * sizeof *J);
    memset(dfdt, 0, N * sizeof *dfdt);
    pl_model_velocity_map(f->model, f->t, f->q, Y + n, fp, NULL, fp_v, NULL);
    gaps(f, sigma, Y, z, zd);
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < n; l++)
            J[j * N + n + l] = fp_v[j * n + l]; /* d' = F_p(q, y_v, t) */
    for (size_t i = 0; i < f->m; i++) {
        if (!(f->part[i] && f->active[i]))
            continue;
        const pl_law *law = &f->model->law[i];
        double mk = f->m_eff[i] * law->k, ci = 2.0 * law->xi / sqrt(law->k);
        double lambda = -mk * (z[i] + ci * zd[i]), dl[2 * PL_MAX_DOF];
        for (size_t j = 0; j < n; j++) {
            double gfv = 0.0;
            for (size_t l = 0; l < n; l++)
                gfv += f->grad[i][l] * fp_v[l * n + j];
            dl[j] = -mk * f->grad[i][j];
            dl[n + j] = -mk * ci * gfv;
        }
        double dlt = -mk * f->gt[i];
        for (size_t col = 0; col < 2 * n; col++)
            J[(2 * n + 1 + i) * N + col] = dl[col];
        dfdt[2 * n + 1 + i] = dlt;
        for (size_t j = 0; j < n; j++) {
            force[j] += f->w[i][j] * lambda;
            dFt[j] += f->w[i][j] * dlt;
            for (size_t col = 0; col < 2 * n; col++)
                dF[j][col] += f->w[i][j] * dl[col];
        }
    }
    double norm = 0.0;
    for (size_t j = 0; j < n; j++) {
        norm += force[j] * force[j];
        for (size_t col = 0; col < 2 * n; col++)
            J[(n + j) * N + col] = dF[j][col];
        dfdt[n + j] = dFt[j];
    }
    norm = sqrt(norm);
    if (norm > 0.0)
        for (size_t j = 0; j < n; j++) {
            for (size_t col = 0; col < 2 * n; col++)
                J[2 * n * N + col] += force[j] / norm * dF[j][col];
            dfdt[2 * n] += force[j] / norm * dFt[j];
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
    double Y[2 * PL_MAX_DOF + 1 + PL_MAX_CON];
} crossing;

static double gap_at(double sigma, void *p)
{
    crossing *c = p;
    memcpy(c->Y, c->Ya, c->f->N * sizeof *c->Y);
    double s = c->sa;
    gsl_odeiv2_driver_reset(c->driver);
    if (sigma > s && gsl_odeiv2_driver_apply(c->driver, &s, sigma, c->Y) != GSL_SUCCESS)
        return NAN;
    double z[PL_MAX_CON], zd[PL_MAX_CON];
    gaps(c->f, sigma, c->Y, z, zd);
    return z[c->i];
}

/* The root of z_i in [sa, sb] (Brent on re-integrations from sa), returned as the upper end of
 * the final bracket: just past the root, where z_i has its new sign. */
static double locate(crossing *c, double sb)
{
    double root = pl_brent(gap_at, c, c->sa, sb, 1);
    return isnan(root) ? sb : root;
}

/* Constraints that settled (z, z' -> 0 exponentially) keep decaying after the stop: their limit
 * is reached exactly by removing the remaining normal velocity along their directions w_i, the
 * only directions their forces act in: v+ -= sum_j w_j a_j with W a = z'_settled (W of
 * pl_model_contact_coupling). */
static void project_settled(const fast_system *f, pl_impact *impact, double *zd)
{
    size_t idx[PL_MAX_CON], k;
    pl_contact c[PL_MAX_CON];
    double W[PL_MAX_CON * PL_MAX_CON], rhs[PL_MAX_CON], a[PL_MAX_CON];
    k = pl_model_contact_coupling(f->model, f->t, f->q, impact->v_plus, impact->settled, idx, c, W, NULL);
    if (k == 0)
        return;
    for (size_t r = 0; r < k; r++)
        rhs[r] = zd[idx[r]];
    gsl_matrix_view Wv = gsl_matrix_view_array(W, k, k);
    gsl_vector_view bv = gsl_vector_view_array(rhs, k), av = gsl_vector_view_array(a, k);
    gsl_permutation *perm = gsl_permutation_alloc(k);
    int sign;
    if (perm && gsl_linalg_LU_decomp(&Wv.matrix, perm, &sign) == GSL_SUCCESS &&
        gsl_linalg_LU_solve(&Wv.matrix, perm, &bv.vector, &av.vector) == GSL_SUCCESS) {
        for (size_t r = 0; r < k; r++) {
            for (size_t j = 0; j < f->n; j++)
                impact->v_plus[j] -= c[r].w[j] * a[r];
            zd[idx[r]] = 0.0;
        }
    }
    if (perm)
        gsl_permutation_free(perm);
}

void pl_impact_free(pl_impact *impact)
{
    pl_table_free(&impact->arc);
}

static pl_status record_arc(pl_impact *impact, const fast_system *f, double sigma, const double *Y, pl_error *err)
{
    double row[2 + PL_MAX_DOF];
    row[0] = sigma;
    row[1] = Y[2 * f->n];
    memcpy(row + 2, Y + f->n, f->n * sizeof *row);
    return pl_table_append(&impact->arc, row, err);
}

pl_status pl_impact_solve(const pl_model *model, double t, const double *q, const double *v_minus,
                          const int *part, pl_impact *impact, pl_error *err)
{
    memset(impact, 0, sizeof *impact);
    size_t n = model->n, m = model->m;
    pl_table_init(&impact->arc, 2 + n);
    fast_system f = {.model = model, .n = n, .m = m, .N = 2 * n + 1 + m, .t = t, .q = q};
    double fp[PL_MAX_DOF], minv[PL_MAX_DOF * PL_MAX_DOF], kmax = 0.0;
    pl_model_velocity_map(model, t, q, v_minus, fp, NULL, NULL, NULL);
    if (pl_model_mass(model, q, NULL, minv))
        return pl_fail(err, PL_ERR_SOLVER, "the mass matrix is not positive definite at t = %.17g", t);
    for (size_t i = 0; i < m; i++) {
        f.part[i] = part[i];
        pl_contact c;
        pl_model_contact(model, i, t, q, fp, minv, &c);
        memcpy(f.grad[i], c.gap.grad, n * sizeof(double));
        memcpy(f.w[i], c.w, n * sizeof(double));
        f.gt[i] = c.gap.g_t;
        f.m_eff[i] = c.m_eff;
        if (part[i])
            kmax = fmax(kmax, model->law[i].k);
    }
    double Y[2 * PL_MAX_DOF + 1 + PL_MAX_CON] = {0}, Ya[2 * PL_MAX_DOF + 1 + PL_MAX_CON];
    memcpy(Y + n, v_minus, n * sizeof *Y);
    double z[PL_MAX_CON], zd[PL_MAX_CON], sigma = 0.0, scale = 0.0;
    gaps(&f, 0.0, Y, z, zd);
    for (size_t i = 0; i < m; i++)
        if (part[i]) {
            f.active[i] = zd[i] <= 0.0;
            scale = fmax(scale, fabs(zd[i]));
        }
    if (scale == 0.0)
        for (size_t j = 0; j < n; j++)
            scale = fmax(scale, fabs(v_minus[j]));
    if (scale == 0.0)
        scale = 1.0;
    /* Time scales in fast time: the contact oscillation 1/sqrt(k), and the slowest decay, which
     * for xi >> 1 is 1/(sqrt(k) (xi - sqrt(xi^2 - 1))) ~ 2 xi/sqrt(k).  Overdamped contacts
     * (xi > 3) are stiff, with a stiffness ratio ~4 xi^2: an implicit stepper (GSL msbdf, with
     * the analytic Jacobian) takes them; the explicit rk8pd the others. */
    double omega = sqrt(kmax > 0 ? kmax : 1.0), slowest = 1.0 / omega, xi_max = 0.0;
    for (size_t i = 0; i < m; i++)
        if (part[i]) {
            double xi = model->law[i].xi, wi = sqrt(model->law[i].k);
            xi_max = fmax(xi_max, xi);
            slowest = fmax(slowest, 1.0 / (xi <= 1.0 ? wi : wi * (xi - sqrt(xi * xi - 1.0))));
        }
    double sigma_max = 1e4 * slowest;
    double eps_v = 1e-10 * scale, eps_z = eps_v / omega, tol_switch = 1e-12 * scale / omega;

    gsl_odeiv2_system sys = {fast_rhs, fast_jacobian, f.N, &f};
    const gsl_odeiv2_step_type *type = xi_max > 3.0 ? gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rk8pd;
    /* Two drivers (the multistep msbdf needs its driver): one steps through the fast motion, the
     * other re-integrates pieces of a step to locate mode switches. */
    double h = 1e-3 / omega, eps_abs = 1e-14 * scale / omega;
    gsl_odeiv2_driver *stepper = gsl_odeiv2_driver_alloc_y_new(&sys, type, h, eps_abs, 1e-12);
    gsl_odeiv2_driver *driver = gsl_odeiv2_driver_alloc_y_new(&sys, type, h, eps_abs, 1e-12);
    pl_status status = PL_OK;
    if (!stepper || !driver) {
        status = pl_fail(err, PL_ERR_NOMEM, "cannot allocate the fast-time integrator");
        goto done;
    }
    if ((status = record_arc(impact, &f, sigma, Y, err)) != PL_OK)
        goto done;
    int stalls = 0;
    for (;;) {
        /* Exit (21)-(22): every constraint out of contact and separating. */
        int out = 1, settled = 1;
        for (size_t i = 0; i < m; i++) {
            if (!part[i])
                continue;
            if (f.active[i] || zd[i] < 0.0)
                out = 0;
            if (f.active[i] ? (fabs(z[i]) > eps_z || fabs(zd[i]) > eps_v) : zd[i] < 0.0)
                settled = 0;
        }
        if (out || settled) {
            for (size_t i = 0; i < m; i++)
                impact->settled[i] = !out && part[i] && f.active[i];
            break;
        }
        if (sigma > sigma_max || impact->fast_steps > 1000000) {
            status = pl_fail(err, PL_ERR_SOLVER,
                             "impact at t = %.17g: the fast motion did not end by sigma = %g (%zu fast steps)", t, sigma,
                             impact->fast_steps);
            goto done;
        }
        double sa = sigma;
        memcpy(Ya, Y, f.N * sizeof *Y);
        if (gsl_odeiv2_evolve_apply(stepper->e, stepper->c, stepper->s, &sys, &sigma, sigma_max * 2, &h, Y) !=
            GSL_SUCCESS) {
            status = pl_fail(err, PL_ERR_SOLVER, "impact at t = %.17g: the fast-time integration failed", t);
            goto done;
        }
        impact->fast_steps++;
        gaps(&f, sigma, Y, z, zd);
        /* A mode switch inside the step: z_i of an active constraint turns positive (it lets
         * go) or that of an inactive one negative (it is hit again).  Go to the first one. */
        double first = INFINITY;
        size_t which = 0;
        crossing c = {.f = &f, .driver = driver, .sa = sa, .Ya = Ya};
        for (size_t i = 0; i < m; i++) {
            if (!part[i] || (f.active[i] ? !(z[i] > 0.0) : !(z[i] < 0.0)))
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
            memcpy(Y, c.Y, f.N * sizeof *Y);
            sigma = first;
            gaps(&f, sigma, Y, z, zd);
            /* Switch `which` and every constraint crossing there too (a symmetric corner impact
             * releases both walls at once; round-off must not split it). */
            for (size_t i = 0; i < m; i++) {
                if (!part[i])
                    continue;
                int leaving = f.active[i] && zd[i] > 0.0 && z[i] > -tol_switch;
                int hitting = !f.active[i] && zd[i] < 0.0 && z[i] < tol_switch;
                if (i == which || leaving || hitting)
                    f.active[i] = !f.active[i];
            }
            gsl_odeiv2_driver_reset(stepper); /* restart the stepper from the switch */
        }
        if ((status = record_arc(impact, &f, sigma, Y, err)) != PL_OK)
            goto done;
    }
    memcpy(impact->v_plus, Y + n, n * sizeof *Y);
    project_settled(&f, impact, zd);
    impact->delta_gamma = Y[2 * n];
    memcpy(impact->impulse, Y + 2 * n + 1, m * sizeof *Y);
    memcpy(impact->gdot_plus, zd, m * sizeof *zd);
    impact->s_exit = sigma;
done:
    if (driver)
        gsl_odeiv2_driver_free(driver);
    if (stepper)
        gsl_odeiv2_driver_free(stepper);
    return status;
}
