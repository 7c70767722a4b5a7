/* The penalized ODE as a peer integrator sees it: y = (q, v), N = 2n components, a contact mode per
 * constraint (the Kelvin-Voigt force of paper 004's form (4), lambda_i = -m_i k_i (mu G_i + 2 xi_i
 * sqrt(mu/k_i) Gdot_i), acts while the mode is on, unclamped), the gaps and their rates for the
 * peers' switching, and a Jacobian for the implicit peers.
 *
 * Two forms:
 *   - hand-written: the right-hand side, gaps and analytic Jacobian a user writes for a small
 *     problem (bouncing_ball, vibrating_table, wedge, cup in Cartesian coordinates), with the
 *     parameters of the model (the same numbers as penlim's run);
 *   - model API: any case, built in or loaded, through the public callbacks of include/penlim/model.h
 *     (accel or force with M(q), gap, law, velocity_map, input): the right-hand side a user writes
 *     once for every model, with a forward-difference Jacobian.
 * Both are written here, apart from the library: the peers use nothing of penlim's engine. */
#ifndef PEER_SYSTEM_H
#define PEER_SYSTEM_H

#include <stddef.h>

#include "penlim/penlim.h"

typedef struct peer_system peer_system;
struct peer_system {
    const char *form; /* "hand-written" or "model API" */
    size_t n, m, N;   /* dofs, constraints, 2n */
    double mu;
    double omega;     /* the fastest contact frequency sqrt(k_i mu): a starting step after an entry */
    double v_scale;   /* the case's characteristic velocity V */
    double hmax;      /* the largest step: the case's forcing_time at t = 0 (INFINITY without one) */
    double *scale;    /* N: the absolute tolerance's scale per component (penetration V/omega for q, V for v) */
    double *y0;       /* N: the initial state */
    int *active;      /* m: contact modes */
    long rhs, jac;    /* evaluations since peer_system_reset */
    double deadline;  /* monotonic seconds: past it every right-hand side fails (0: none) */
    int expired;      /* the deadline passed */
    /* the form's functions */
    void (*f)(peer_system *s, double t, const double *y, double *dy);
    void (*jf)(peer_system *s, double t, const double *y, double *J); /* NULL: forward differences */
    void (*gaps)(peer_system *s, double t, const double *y, double *g, double *gdot);
    void (*release)(peer_system *s);
    void *data;
    double *work; /* 3N + 4m + 2: forward differences, initial modes, roots */
};

/* The hand-written system of model's case at stiffness mu, if there is one for it (1), else 0. */
int peer_system_hand(peer_system *s, const pl_model *model, double mu, char *why, size_t len);
/* The model-API system of any model whose law is Kelvin-Voigt without law_at; non-zero with the
 * reason otherwise. */
int peer_system_model(peer_system *s, const pl_model *model, double mu, char *why, size_t len);
void peer_system_free(peer_system *s);

/* Counts to zero, the initial modes: on where G < 0, or G = 0 and the gap closes
 * (Gdot < 0, or Gdot = 0 and the free gap acceleration <= 0). */
void peer_system_reset(peer_system *s);
/* y' = f(t, y) under the current modes: 0, or -1 past the deadline (s->expired). */
int peer_system_rhs(peer_system *s, double t, const double *y, double *dy);
/* J = df/dy (N x N, row-major): analytic, or forward differences (N right-hand sides). */
int peer_system_jac(peer_system *s, double t, const double *y, double *J);
void peer_system_gaps(peer_system *s, double t, const double *y, double *g, double *gdot);

double peer_now(void);

#endif
