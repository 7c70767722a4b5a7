/* The peers: what a competent user integrates the penalized ODE (peer_system.h) with instead of
 * penlim, each with the switching a user writes for it.
 *   rk8pd, rk4imp, msbdf: GSL odeiv2 (rk4imp and msbdf with the system's Jacobian), one
 *     gsl_odeiv2_evolve_apply step at a time; after each step the sign of every gap is checked
 *     against its contact mode; on a disagreement the switch is located by re-integrating from the
 *     left end of the bracket (stepper reset) to trial times, Illinois regula falsi on the crossed
 *     gap to 1e-14 t, the modes switched at the first state found past the root and the stepper
 *     restarted (after an entry with a step of at most 0.05/omega: a user who knows the contact
 *     frequency);
 *   cvode: CVODE BDF, dense direct solver (the system's Jacobian, or CVODE's difference quotients
 *     for the model-API form), rootfinding on the gaps in the direction that switches each mode
 *     (rising for an active contact, falling for an inactive one), CVodeReInit at every root;
 *   arkode: ARKODE ERKStep with its highest-order built-in table (Fehlberg 13-stage 8(7): SUNDIALS
 *     6.4.1 has no Verner 8(7)), rootfinding as CVODE's, ERKStepReset at every root.
 * A contact starts where G_i < 0 while Gdot_i < -1e-9 V (a gap drifting back at round-off speed after
 * an e = 0 contact decayed is not re-entered) and ends where G_i > 0.  Tolerances: a relative one and
 * an absolute one per component, atol times the system's scale (the penetration V/omega for
 * positions, V for velocities).  No peer steps longer than the system's hmax (the case's
 * forcing_time). */
#ifndef PEER_SOLVERS_H
#define PEER_SOLVERS_H

#include "peer_system.h"

typedef struct {
    size_t con;
    double t_in, t_out; /* t_out NAN while in contact at the end */
    double gdot_in, gdot_out;
} peer_episode;

typedef struct {
    int ok;        /* reached t_end */
    char why[640]; /* otherwise */
    long steps, rhs, jac;
    double wall;
    peer_episode *ep;
    size_t nep, cap;
    double *y_final; /* N */
} peer_run;

typedef enum { PEER_RK8PD, PEER_RK4IMP, PEER_MSBDF, PEER_CVODE, PEER_ARKODE, PEER_COUNT } peer_id;

const char *peer_name(peer_id id);
/* peer_id by name, or -1. */
int peer_find(const char *name);

/* One run of peer id from the system's initial state to t_end; wall time around the whole run
 * (allocation included).  A run still going at the monotonic time deadline (> 0) stops (ok = 0,
 * why "over budget"). */
void peer_solve(peer_id id, peer_system *s, double t_end, double rtol, double atol, double deadline, peer_run *r);

/* Episodes: open one (non-zero out of memory), close the open one of constraint con. */
int peer_run_open(peer_run *r, size_t con, double t, double gdot);
void peer_run_close(peer_run *r, size_t con, double t, double gdot);
void peer_run_free(peer_run *r);

#endif
