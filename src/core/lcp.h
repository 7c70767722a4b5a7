/* The linear complementarity problem, solved by Siconos Numerics (Lemke's method):
 *
 *     z >= 0,   w = W z + d >= 0,   z . w = 0
 *
 * the problem behind the sliding-mode forces (model/sliding.h) and the per-step impulses of the
 * time-stepping schemes. */
#ifndef PL_LCP_H
#define PL_LCP_H

#include <stddef.h>

#include "core/status.h"

/* Solve the LCP of size k (W row-major).  iterations, if not NULL, receives the
 * number of pivots.  PL_ERR_SOLVER with Siconos's info if it fails. */
pl_status pl_lcp_solve(size_t k, const double *W, const double *d, double *z, long *iterations, pl_error *err);

#endif
