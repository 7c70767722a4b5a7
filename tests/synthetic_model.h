/* A test-only model that exercises every part of the model interface: a position-dependent mass
 * matrix, a non-trivial F_p, an input u(t), and nonlinear, time-dependent constraints.  It has no
 * physical meaning; it is for checking derivatives. */
#ifndef PL_SYNTHETIC_MODEL_H
#define PL_SYNTHETIC_MODEL_H

#include "model/model.h"

extern const pl_case pl_test_case_synthetic;

/* The same kind of system given by its generalized force f of M(q) v' = f (the model forms F_v):
 * checks the solve with M(q) and the dM/dq term of dF_v/dq. */
extern const pl_case pl_test_case_synthetic_force;

/* A point mass above a floor G = q >= 0 pushed away from it by a constant acceleration a: from
 * (q0, v0) = (1, -2) with a = 2 the free path (1 - t)^2 grazes the floor at t = 1; with a
 * slightly below 2 it dips briefly below it. */
extern const pl_case pl_test_case_push;

#endif
