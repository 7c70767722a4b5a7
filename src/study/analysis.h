/* What one solution says about the limit objects of paper 004, whatever solver produced it: its
 * impacts (velocity jumps, restitution), its sustained contacts (for a penalized run, the force
 * mu G against the sliding-mode force F^sm of Theorem 6, and lift-off), and the Zeno sequence of
 * impacts with its capture (section 7, eq. (52)).
 *
 * Where the impacts come from: a penalized run's contact episodes classified by duration
 * (pl_classify_episode); the events of the limit solution and of the time-stepping schemes (an
 * impact step there is one whose velocity jump exceeds the smooth part).  Sustained contacts:
 * the penalized run's and the scheme's long episodes; the limit solution's slide starts.  The
 * capture: a penalized run's final sustained episode, the limit's accumulation point (or final
 * slide start), and for a scheme or an external trajectory, which have neither, the last impact
 * before a rest that lasts to the end within the rows' velocity resolution A dt (docs/methods.md,
 * Capture). */
#ifndef PL_ANALYSIS_H
#define PL_ANALYSIS_H

#include "core/clock.h"
#include "core/table.h"
#include "model/model.h"
#include "solvers/solution.h"

/* UNRESOLVED: still in contact when the run ends, after less than the duration that separates
 * the two kinds; not counted as either. */
typedef enum { PL_IMPACT = 0, PL_SUSTAINED = 1, PL_UNRESOLVED = 2 } pl_episode_kind;

/* "impact", "sustained" or "unresolved" */
const char *pl_episode_kind_name(pl_episode_kind kind);

typedef struct {
    pl_episode_kind kind;
    double duration;           /* t_out - t_in, or to the end of the run */
    /* v(t_out) - v(t_in), the velocity jump of an impact (owned by the analysis): over every dof
     * (dv_dofs NULL, ndv = n), or for a model of many bodies with supports (pl_analysis_sparse_jumps)
     * over the dofs of the episode's constraint's support, dv_dofs (0-based, ndv of them): the others
     * change by the free motion and other contacts only, which are not this contact's jump. */
    double *dv;
    const size_t *dv_dofs;
    size_t ndv;
    double dv_normal;          /* gdot_out - gdot_in: its normal part */
    double scaled_penetration; /* sqrt(mu) * max penetration (mu^(1/(n+1)) under a law of degree n)
                                  (penalized runs: O(1) for impacts, Remark 7) */
    double restitution;        /* -gdot_out/gdot_in, NAN unless the entry rate exceeds the impact-rate
                                  floor (penalized runs, pl_classify_episode; the raw ratio otherwise) */
    /* sustained contact of a penalized run */
    double force_error;        /* sup |mu G - F^sm| after the entry transient and away from the
                                  first and last 10% of the contact; NAN if that is empty */
    double force_scale;        /* sup |F^sm| there */
    double window_start, window_end; /* that window: from the later of 10% of the contact and the end of
                                        its entry transient (pl_law_settling_rate) to 90%; NAN if empty */
    int load_varies;           /* F^sm varies over the window beyond round-off (a lag to measure) */
    double lift_off_predicted; /* first time F^sm reaches 0 (D/A-tilde changes sign), or NAN */
} pl_episode_info;

/* An impact as the analysis sees it: the event (time t = the start of the contact, velocities
 * before and after, normal rates of the triggering constraint; its arrays owned by the analysis,
 * which does not depend on the solution once made) and its end, where the velocities after hold.
 * A penalized impact is the fast motion of every contact it takes along (a corner's other wall, the
 * contacts of a chain of balls a compression wave runs through): its episode and the episodes that
 * overlap it, transitively, on constraints coupled with it (study/coupling.h) and that end within 3
 * contact times of the latest exit before them; it ends at the last of their exits, and its
 * velocities after, and the gap rate after of its constraint, are taken there (docs/methods.md, "An
 * impact of several constraints"); those constraints are its participants.  A scheme's impact ends
 * with its last impulse step, whose end holds its velocities after. */
typedef struct {
    pl_event event;
    double t_out;   /* the end of the contact (penalized: of the fast motion; a scheme: of its last
                       impulse step); t for the limit solution and external trajectories */
    size_t row_out; /* the row at t_out (penalized runs and schemes; 0 for the others) */
} pl_impact_record;

typedef struct {
    pl_episode_info *info; /* one per episode of the solution */
    size_t nepisodes;
    double *dv;            /* the storage of info[k].dv, one after the other */
    size_t *dv_dofs;       /* the storage of info[k].dv_dofs (NULL: every jump is over all n) */
    pl_impact_record *impact; /* the impacts in time order */
    size_t impacts;
    size_t touches_unresolved; /* penalized episodes that ended as an impact would but entered below
                                  the rate it needs (pl_classify_episode): unresolved */
    double first_impact_time, scaled_penetration_first;
    /* The restitution -Gdot_c(after)/Gdot_c(before) of the first impact, on the constraint c that it is
     * labelled with: the limit solution's and a scheme's impact event's constraint (the limit's is the
     * one approaching fastest), a penalized run's first impact episode's (the lowest index among
     * episodes entered at one time).  "After" is the end of the impact (pl_impact_record): for a
     * penalized impact of several constraints, when the fast motion of all of them is over, as in the
     * limit's jump. */
    double restitution_first;
    size_t restitution_first_constraint; /* c (SIZE_MAX: no impact) */
    double lift_off_first;      /* end of the first sustained contact that ends */
    /* How far round-off moves first_impact_time, capture_time and lift_off_first: the resolution of
     * the episode time or event they are (pl_time_resolution; NAN where unknown) */
    double first_impact_time_resolution, capture_time_resolution, lift_off_first_resolution;
    double lift_off_predicted_first;
    double sliding_force_error; /* max of force_error over sustained contacts (NAN if none) */
    double sliding_force_scale;
    int sliding_load_varies; /* some sustained contact's F^sm varies over its window (pl_episode_info) */
    /* Zeno */
    /* Capture: a penalized run's start of the final sustained contact, lasting to the end (T*_mu);
     * the limit solution's accumulation time (or final slide start); an external trajectory's or a
     * scheme's last impact before a rest at its resolution that lasts to the end (or the rest's start
     * when no impact begins it).  NAN without one. */
    double capture_time;
    const char *capture_note; /* why there is none when the solution may be captured but its rest is
                                 too short to tell (static text), else NULL */
    size_t impacts_before_capture;
    double contraction_ratio, contraction_ratio_se; /* of successive flight times */
    double accumulation_time;                       /* extrapolated from the flight times */
    size_t fit_flights;                             /* flights used for the fit */
    pl_table sliding; /* rows: t, constraint, mu G, F^sm, episode (1-based) on sustained contacts */
    /* The analysis' work, counted (what a test pins, docs/verification.md "The analysis of many
     * contacts"): the products of the coupling tests of the impacts' contacts (pl_coupling_terms), and
     * the entries W_ab formed for the sliding forces of the sustained sets, summed over their rows (k^2
     * per row where every pair is formed; the pairs sharing a dof where F_p = v and M is diagonal). */
    size_t coupling_terms, couplings_formed;
} pl_analysis;

/* Above this many dofs, a model whose constraints have supports records an episode's velocity jump
 * over its constraint's support only (pl_episode_info.dv_dofs): n values an episode would make the
 * analysis and summary.json quadratic in the bodies (1.3 GB of summary for a cradle of 10000
 * balls).  At and below it (every built-in case at its defaults) the jump is the whole vector. */
#define PL_JUMP_DENSE_MAX_DOFS 100

/* Does the analysis of this model record velocity jumps over the supports (above)? */
static inline int pl_analysis_sparse_jumps(const pl_model *model)
{
    return model->support && model->n > PL_JUMP_DENSE_MAX_DOFS;
}

/* A penalized episode is an impact when it ends, the gap rate changes sign through it, and it
 * lasts at most 3 half-periods pi/(omega sqrt(1 - xi^2)) of the contact oscillation
 * (omega = sqrt(k mu)), or for xi >= 1 at most 50 decay times 1/(omega (xi - sqrt(xi^2 - 1))): a
 * time that shrinks like mu^(-1/2).  Otherwise it is sustained, unless the run ended (at t_final,
 * the end reached: t_end, or where a failure stopped it) before it lasted that long, or it is an
 * impact's but for an entry rate abs(gdot_in) <= min_rate, below what the run resolves as an impact
 * (the analysis takes the free gap acceleration over the contact time, or the gap's rate resolution:
 * docs/methods.md): then it is unresolved. */
pl_episode_kind pl_classify_episode(const pl_episode *ep, double t_final, double omega, double xi, double min_rate);

/* Flights f_j (j = 0..n-1) between impacts: least-squares fit of log f_j = a + j log r,
 * giving the contraction ratio r with its standard error, and the accumulation time
 * t_last_impact + f_{n-1} r/(1 - r) (NAN unless r + 3 se < 1).  NAN unless pl_fit_meaningful
 * (at least 4 flights, se < r); returns 0 on success, -1 if not fitted, PL_FIT_FLIGHTS_NO_MEMORY
 * if out of memory. */
#define PL_FIT_FLIGHTS_NO_MEMORY (-2)
int pl_fit_flights(const double *flights, size_t n, double t_last_impact, double *ratio, double *ratio_se,
                   double *t_accumulation);

/* The restitution of constraint c in the first impact of `a` in which c takes part (an impact event
 * of the limit solution or a scheme: -Gdot_c(q, v_after)/Gdot_c(q, v_before) at its time), or NAN.
 * What a sweep compares a run's restitution_first with, on the run's own constraint. */
double pl_analysis_restitution_of(const pl_model *model, const pl_analysis *a, size_t c);

/* Analyse a solution (of any solver).  out must be freed with pl_analysis_free whatever the
 * status.  Not bounded in time: a solution can be analysed whenever it is asked for. */
pl_status pl_analyze(const pl_model *model, const pl_solution *sol, pl_analysis *out, pl_error *err);

/* The same within the budget of the work it is part of (a command's, or a sweep's run: its solve and
 * its analysis; NULL: none): PL_ERR_SOLVER once it has run out, checked at each row of the sliding
 * forces (the analysis's one cost that grows like the rows times an LCP). */
pl_status pl_analyze_within(const pl_model *model, const pl_solution *sol, const pl_budget *budget, pl_analysis *out,
                            pl_error *err);
void pl_analysis_free(pl_analysis *a);

#endif
