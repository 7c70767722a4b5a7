/* The impacts of a solution (a penalized run, a scheme's, an external trajectory) matched with the
 * limit solution's by time, one to one and in order (docs/methods.md, "Matching impacts").
 *
 * Each limit impact is given a window: centred where the last pair on a constraint coupled with its
 * own (study/coupling.h) predicts it, from the solution's state at the end of its partner's contact
 * against the limit's after its impact (the delay between them, the difference of the two states,
 * and the obstacle's motion over the delay, to first order), of half-width 2 tau plus the size of
 * that correction, tau the solution's time resolution there (a penalized run: the contact time of
 * the impact's constraints, pl_law_contact_time, or the run impact's own duration if longer; a
 * scheme: 2 h; an external trajectory: the spacing of its rows around the impact).  It is paired
 * with the nearest unpaired impact of the solution on one of its constraints within the window,
 * later than the impacts already paired on that constraint, unless it is
 *   absorbed: inside a sustained contact of the solution on one of its constraints (the Zeno tail the
 *             capture replaces: not missing),
 *   grazing:  slower than the solution resolves, 2 |D| tau (D the free gap acceleration there,
 *             paper 004 (37)),
 *   ambiguous: another limit impact (or a Zeno point) on one of its constraints is within the width
 *             of its window, where the pairing could cross,
 *   beyond:   the solution ends within its window;
 * one with no partner otherwise is missing.  A solution's impact without a partner is extra, unless it
 * is part of a paired impact of several constraints (a corner; one of its participants: a
 * companion), or lies in the window of
 * a limit impact left out above, or is slower than its own resolution (excluded).  A lift-off of the
 * limit solution paired with the end of a sustained contact of the solution is a new reference for
 * the predictions, as a pair is. */
#ifndef PL_IMPACT_MATCH_H
#define PL_IMPACT_MATCH_H

#include "model/model.h"
#include "solvers/solution.h"
#include "study/analysis.h"

/* What became of a limit impact. */
typedef enum {
    PL_MATCH_PAIRED = 0,
    PL_MATCH_MISSING,
    PL_MATCH_ABSORBED,
    PL_MATCH_GRAZING,
    PL_MATCH_AMBIGUOUS,
    PL_MATCH_BEYOND,
    PL_MATCH_KINDS
} pl_match_kind;

/* What became of an impact of the solution. */
typedef enum { PL_RUN_PAIRED = 0, PL_RUN_EXTRA, PL_RUN_COMPANION, PL_RUN_EXCLUDED, PL_RUN_KINDS } pl_run_impact_kind;

/* "paired", "missing", "absorbed", "grazing", "ambiguous", "beyond the end" */
const char *pl_match_kind_name(pl_match_kind kind);

typedef struct {
    pl_match_kind kind;
    size_t partner;        /* the solution's impact (index in its analysis), SIZE_MAX if none */
    double centre, window; /* where it was looked for: |t_partner - centre| <= window */
    double tau;            /* the solution's time resolution at this impact */
    double time_error;     /* t_partner - t_limit (NAN without a partner) */
    double velocity_error; /* max_j |v_j after the partner - v_j after the limit impact| */
} pl_impact_pair;

typedef struct {
    size_t nlimit, nrun;
    pl_impact_pair *pair;         /* per limit impact, in the order of the limit's analysis */
    pl_run_impact_kind *run_kind; /* per impact of the solution */
    size_t count[PL_MATCH_KINDS]; /* limit impacts by kind */
    size_t run_count[PL_RUN_KINDS];
} pl_impact_match;

/* Match the impacts of sol (analysed as a) with those of the limit solution (analysed as la).
 * out must be freed with pl_impact_match_free whatever the status. */
pl_status pl_impact_match_build(const pl_model *model, const pl_solution *sol, const pl_analysis *a,
                                const pl_solution *limit, const pl_analysis *la, pl_impact_match *out, pl_error *err);
void pl_impact_match_free(pl_impact_match *m);

/* Limit impacts excluded from the comparison: ambiguous, grazing or beyond the end. */
size_t pl_impact_match_excluded(const pl_impact_match *m);

/* The impact set common to several matches against one limit solution (NULL entries: failed
 * solutions): common[l] = 1 where limit impact l is paired in every match that pairs any (a solution
 * too coarse to pair a single impact does not empty the set; it has no impact errors).  nlimit is
 * the limit's number of impacts; returns the size of the set. */
size_t pl_impact_common_set(const pl_impact_match *const *m, size_t n, size_t nlimit, unsigned char *common);

/* The largest time and velocity errors of the pairs in the set (common NULL: every pair), NAN if
 * there is none; returns their number. */
size_t pl_impact_errors_over(const pl_impact_match *m, const unsigned char *common, double *time_error,
                             double *velocity_error);

#endif
