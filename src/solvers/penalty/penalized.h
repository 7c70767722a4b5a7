/* The right-hand side of the penalized system (1)/(4) of paper 004 for given contact modes, and
 * its analytic Jacobian.  The state is y = (q, v) with n positions and n velocities. */
#ifndef PL_PENALIZED_H
#define PL_PENALIZED_H

#include "model/model.h"
#include "solvers/csc.h"

/* One entry of a contact's block of the Jacobian: d(ac)_row/dq_col and d(ac)_row/dv_col. */
typedef struct {
    size_t row, col;
    double q, v;
} pl_jac_entry;

/* The vector field of one run: its modes and the scratch of its evaluations (allocated once by
 * pl_penalized_init, for one thread at a time). */
typedef struct {
    const pl_model *model;
    double mu;
    double *damping; /* m: c_i = 2 xi_i sqrt(mu/k_i) */
    int *active;     /* m: the contact indicator I{G_i <= 0} */
    /* The active constraints in increasing order (pl_penalized_list_active), which the forces visit
       instead of every flag once `listed`: a box of 100 disks has 5350 constraints, a few dozen
       active.  The list may hold constraints a trial evaluation turned off (active[i] = 0: skipped),
       never miss one turned on.  listed 0 (the default): every flag is read. */
    size_t *list, nlist;
    int listed;
    pl_work *work;   /* the model's scratch (pl_model_accel and friends), free for the run's own calls */
    pl_contact *contact;     /* scratch (dense), free between evaluations of the field */
    pl_contact *force_contact; /* scratch of the forces, compressed (pl_contact_new_sparse) */
    pl_contact *jac_contact; /* of the Jacobian, which reads the Hessians */
    pl_contact *jac_sparse;  /* the same compressed, where the Jacobian's contact part is (sparse_jacobian) */
    int sparse_jacobian;     /* supports, M constant and diagonal, F_p = v: O(s^2) per active contact */
    int simple; /* M constant, F_p = v, no supports, laws fixed, analytic: the forces without the model's layers
                   (forces_simple in penalized.c; 0 takes the general path, which gives the same bits) */
    /* scratch of the Jacobian: n x n each, */
    double *fp_q, *fp_v, *a_q, *a_v, *minv, *ac_q, *ac_v, *dM;
    /* n each */
    double *fp, *a, *dlam_q, *dlam_v, *dMw;
    double *tmp; /* n: forces_simple's M^{-1} f */
    /* pl_penalized_jacobian_csc's, allocated at its first call: the case's dF_v/dq or dF_v/dv (n x n), a
       column (n), the contacts' entries and their column starts */
    double *smooth_jac, *column;
    size_t *start, *fill;
    pl_jac_entry *entries; /* 2 entries_cap: as written, then sorted by column */
    size_t entries_cap;
    double *block; /* the scratch, carved (pl_penalized_init) */
} pl_penalized;

/* Forces at one state (pl_forces_init). */
typedef struct {
    double *fp;     /* n: F_p (q' = F_p) */
    double *a;      /* n: smooth acceleration F_v */
    double *ac;     /* n: contact acceleration sum_i w_i lambda_i, eq. (4) */
    double *lambda; /* m: normal force of each constraint (0 if inactive) */
    size_t *nonzero, nnonzero; /* the constraints whose lambda was written (the others are 0) */
    const double *minv; /* n x n: M^{-1}, the model's own when M is constant (pl_model_accel_minv), */
    double *minv_store; /* else held here */
    double *block;  /* the arrays above, carved (pl_forces_init) */
} pl_forces;

/* All modes inactive.  PL_ERR_NOMEM if out of memory; p is freeable whatever the status. */
pl_status pl_penalized_init(pl_penalized *p, const pl_model *model, double mu, pl_error *err);
void pl_penalized_free(pl_penalized *p);

/* Storage for the forces of model; PL_ERR_NOMEM if out of memory (f is freeable either way). */
pl_status pl_forces_init(pl_forces *f, const pl_model *model, pl_error *err);
void pl_forces_free(pl_forces *f);

/* dst = src (forces of one model). */
void pl_forces_copy(pl_forces *dst, const pl_forces *src, const pl_model *model);

/* The list of active constraints from the flags (O(m)). */
void pl_penalized_list_active(pl_penalized *p);
/* Constraint i switched on (on = 1) or off in the list (O(list)). */
void pl_penalized_list_switch(pl_penalized *p, size_t i, int on);

/* Returns non-zero if M(q) is not positive definite. */
int pl_penalized_forces(const pl_penalized *p, double t, const double *q, const double *v, pl_forces *f);

/* d(q', v')/d(q, v) as a 2n x 2n row-major matrix.  Returns non-zero if M(q) is singular (or, for a
 * sparse model, which has no dense scratch and converts pl_penalized_jacobian_csc's columns, out of
 * memory: the engine asks a sparse model for its columns alone). */
int pl_penalized_jacobian(pl_penalized *p, double t, const double *q, const double *v, double *J);
/* A sparse model's (p->sparse_jacobian) Jacobian of the state of `size` components, of which (q, v) are
 * the first 2n, straight into J's compressed columns: the (q, v) block without its exact zeros but its
 * diagonal, then a zero diagonal for the other components (their rows are left out of the Newton
 * matrix), the values and layout pen_jacobian_csc gives from the dense block.  Memory: the case's
 * dF_v/dq and dF_v/dv in one n x n array in turn (its interface gives them dense), the contacts'
 * entries (s^2 per active contact).  0, or PL_CSC_NOMEM. */
int pl_penalized_jacobian_csc(pl_penalized *p, double t, const double *q, const double *v, size_t size, pl_csc *J);

#endif
