/* The contacts of a set of constraints and their couplings over supports, for models of many bodies
 * (pl_model_sparse: supports, M constant and diagonal, F_p = v): what pl_model_contact_coupling gives
 * (the contacts, W), in storage that follows the set rather than m x m, with the same numbers.  Used
 * by the analysis (sustained contacts of a penalized run) and the limit solution (its sliding forces,
 * projections and resolution of contacts). */
#ifndef PL_SPARSE_SET_H
#define PL_SPARSE_SET_H

#include <stddef.h>

#include "model/model.h"

/* The contacts of a set and their couplings W where F_p = v and M is constant and diagonal (many
 * bodies): each contact over its support (pl_model_contact_sparse), W_ab = grad G_a . M^{-1} grad G_b
 * only for the pairs whose supports share a dof (the others are 0), each summed over the shared dofs
 * in ascending order, the dense sum's order without its zero terms: the numbers of
 * pl_model_contact_coupling, at O(k s) per set instead of O(k n + k^2 s), kept by rows (W_a's
 * entries in ascending b) in storage sized by the largest set met rather than by m x m and m x n.
 * The pairs sharing a dof are found through lists of the set's own contacts on each dof, built per
 * set: no pass over the m constraints, nor over every constraint on a dof (N - 1 pairs per disk). */
typedef struct {
    size_t cap, k, nnz, nnz_cap;
    pl_contact *c;                 /* cap, compressed */
    size_t *idx, *stamp;           /* cap each */
    int *dof_head;                 /* n: the first of a dof's links, -1 for none (all -1 between sets) */
    int *link_next, *link_member;  /* link_cap each: the set's contacts on each dof, by linked lists */
    size_t link_cap;
    int *row_start, *col;          /* W by rows: cap + 1, nnz_cap (int: KLU's indices) */
    double *val;                   /* nnz_cap */
    double *W, *D, *z;             /* dense W (cap x cap, for Lemke and small sets), cap, cap */
    size_t W_cap;
} pl_sparse_set;

/* From this size on the bilateral forces of a set (W lambda = -D) are solved by KLU over W's non-zero
 * entries rather than by dense LU (k^3 per row: 9 of the 11 s of analysing 1000 balls of Newton's
 * cradle at rest, where W is tridiagonal), the size from which KLU's work in BDF's systems is below
 * dense LU's (PL_SPARSE_FROM, docs/methods.md); below it the dense solve's numbers are kept. */
#define PL_SPARSE_SET_KLU_FROM 16

/* Non-zero if out of memory; ss is freeable either way. */
int pl_sparse_set_init(pl_sparse_set *ss, const pl_model *model);
void pl_sparse_set_free(pl_sparse_set *ss);

/* The set's contacts (ss->c, ss->idx) and W by rows at (t, q, v) (F_p = v: fp is v): the constraints
 * members[0 .. k), in ascending order; *couplings += the entries of W formed.  Non-zero if out of
 * memory. */
int pl_sparse_set_fill(pl_sparse_set *ss, const pl_model *model, double t, const double *q, const double *v,
                       const size_t *members, size_t k, size_t *couplings);

/* The dense k x k W (ss->W) from its rows (Lemke's tableau and small systems are dense anyway).
 * Non-zero if out of memory. */
int pl_sparse_set_dense(pl_sparse_set *ss);

/* After pl_sparse_set_fill: the free gap accelerations D (ss->D) and the sliding forces of the set, the
 * LCP of model/sliding.h (ss->z), as pl_sliding_force; ss->W is dense after it where the set is below
 * PL_SPARSE_SET_KLU_FROM or the LCP is not trivial.  A large set's LCP with D >= 0 is solved by z = 0
 * without forming its dense W (Siconos's driver returns that too, after the k^2 copy). */
pl_status pl_sparse_set_lcp(pl_sparse_set *ss, const pl_model *model, pl_work *work, double t, const double *q,
                            const double *v, pl_error *err);

#endif
