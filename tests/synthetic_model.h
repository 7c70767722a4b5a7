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

/* N balls, N a parameter (the model's sizes come from it: n = m = N), ball i = 0..N-1 of mass 1 + i
 * dropped at rest from h_i = h0 (1 + i/N) onto its own floor G_i = q_i >= 0 under gravity g, with
 * restitution e_i = e (1 - i/(2N)) and stiffness k_i = k (1 + i/N); optionally neighbours joined by
 * springs of stiffness kappa (default 0).  With kappa = 0 each ball is the bouncing ball of paper
 * 004 (51): first impact at sqrt(2 h_i/g) with speed sqrt(2 g h_i), restitution e_i in the limit. */
extern const pl_case pl_test_case_balls;

/* Ball i's height, restitution, first impact time (kappa = 0) of a model of pl_test_case_balls. */
double pl_test_balls_height(const pl_model *model, size_t i);
double pl_test_balls_restitution(const pl_model *model, size_t i);
double pl_test_balls_impact_time(const pl_model *model, size_t i);

#endif
