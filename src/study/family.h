/* A family of solutions of one solver refined towards its own limit (penalized runs as mu grows, a
 * scheme's as h shrinks), measured against the limit solution: the fitted rate of each distance, and
 * whether the family converges to the limit solution, to another limit, or not at all
 * (docs/methods.md, "Families in compare").
 *
 * The verdict rests on the uniform distance of the positions, sup_q (the convergence of paper 004's
 * Theorem 5 and of the schemes' theorems): e_k to the limit solution, and d_k between successive
 * members.  The family's own limit is estimated at eps = d_last r/(1 - r) from its finest member (the
 * geometric tail of the successive distances, r = (x_{N-2}/x_{N-1})^p with p their fitted rate, r/(1 -
 * r) = 1 without one).  It converges to the limit solution when e_last <= 3 (eps + floor) and e_k
 * falls (pl_convergence_of: a rate of at least PL_RATE_MIN positive beyond twice its error, or a fall
 * by 10), or when every e_k is at the noise floor; to another limit when e_last is farther than that
 * while the d_k fall (or are at the noise floor); otherwise it does not converge.  Each needs PL_FIT_MIN_POINTS values: 4
 * members, and 5 (4 successive distances) to tell another limit from none. */
#ifndef PL_FAMILY_H
#define PL_FAMILY_H

#include "study/compare.h"
#include "study/fit.h"

typedef enum {
    PL_VERDICT_NONE = 0, /* too few refinements to say */
    PL_VERDICT_LIMIT,    /* converges to the limit solution */
    PL_VERDICT_OTHER,    /* converges to another limit */
    PL_VERDICT_NONCONVERGENT
} pl_family_verdict;

/* "converges to the limit solution", "converges to another limit", "does not converge" (NULL for
 * PL_VERDICT_NONE) */
const char *pl_family_verdict_name(pl_family_verdict v);

/* The distances whose rates are fitted, by their names in compare.csv. */
typedef enum {
    PL_FD_SUP_Q,
    PL_FD_SUP_Q_OUTSIDE,
    PL_FD_L1_V,
    PL_FD_S_DISTANCE_Q,
    PL_FD_IMPACT_TIME,
    PL_FD_IMPACT_VELOCITY,
    PL_FD_CAPTURE,
    PL_FD_LIFT_OFF,
    PL_FD_FINAL_Q,
    PL_FD_FINAL_V,
    PL_FD_COUNT
} pl_family_distance;

const char *pl_family_distance_name(pl_family_distance d);

/* One member: the solution analysed, what compare measured of it against the limit solution, and its
 * impacts matched with the limit's. */
typedef struct {
    const pl_analysed *sol;
    pl_compare_result *res; /* its impact errors are retaken over the family's common impact set */
    const pl_impact_match *match;
} pl_family_member;

struct pl_solver_type;

typedef struct {
    const struct pl_solver_type *solver;
    const char *refined;  /* "mu" or "h" */
    size_t n;
    size_t *order;        /* the members in order of refinement (x increasing): indices into the caller's array */
    double *x;            /* mu, or 1/h (the step taken), in that order */
    double *param;        /* mu or h */
    double *successive;   /* n - 1: sup_q between members k and k + 1 in that order */
    pl_convergence successive_conv;
    double own_limit_distance; /* eps: the estimated distance from the finest member to the family's limit */
    pl_convergence conv[PL_FD_COUNT]; /* against 0, with the sweeps' noise floors */
    double noise_floor_q;  /* the floor of the position distances */
    unsigned char *impact_common; /* per limit impact: paired in every member that pairs any */
    size_t impact_common_size, nlimit_impacts;
    pl_family_verdict verdict;
    char reason[512];
} pl_family;

/* Assess the family of members (ok and measured against the limit solution, all of one solver).
 * Retakes each member's impact errors over the family's common impact set.  out must be freed with
 * pl_family_free whatever the status. */
pl_status pl_family_assess(const pl_model *model, const struct pl_solver_type *solver, const pl_family_member *members,
                           size_t n, size_t nlimit_impacts, pl_family *out, pl_error *err);
void pl_family_free(pl_family *f);

/* The distance d of a member as compare.csv has it (NAN where undefined). */
double pl_family_distance_value(const pl_compare_result *r, pl_family_distance d);

#endif
