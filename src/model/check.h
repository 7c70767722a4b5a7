/* A case's derivatives against difference quotients of its own values (penlim check-model): the
 * Jacobians of its dynamics, dM/dq, and its gaps' gradients, time derivatives and Hessians. */
#ifndef PL_MODEL_CHECK_H
#define PL_MODEL_CHECK_H

#include "core/clock.h"
#include "model/model.h"

typedef struct {
    char what[48];        /* "df/dq", "dF_v/dv", "dM/dq_2", "grad G_1", "hess G_1", "G_1 t", ... */
    int second;           /* a second derivative (differenced less accurately) */
    size_t row, col;      /* its worst entry */
    double given, differenced;
    double error;         /* the worst |given - differenced| / (max(|given|, |differenced|) + 0.01 S), S the
                             item's scale (check.c) */
} pl_derivative_error;

/* Every derivative item at the initial state (t = 0) and two states near it (t = 0.37 T and
 * 1.3 T, T = V/A), the worst over them, within the time budget (NULL: none; PL_ERR_SOLVER with
 * PL_BUDGET_STOPPED's message when it runs out).  *items (caller frees) has *nitems entries.  A case that gives no derivatives
 * (PL_DERIVATIVES_NONE) has nothing to check: *nitems = 0. */
pl_status pl_model_check_derivatives(const pl_model *model, const pl_budget *budget, pl_derivative_error **items,
                                     size_t *nitems, pl_error *err);

/* Tolerances of pl_derivative_error.error: first derivatives, second derivatives. */
#define PL_CHECK_TOL_FIRST 1e-6
#define PL_CHECK_TOL_SECOND 1e-4

#endif
