/* The one result type every solver produces (penalized runs, the limit solution, time-stepping
 * schemes) and every consumer takes (analysis, sweeps, comparison with the limit, reports, plots).
 *
 * A solution is a trajectory table with the columns
 *
 *     t, gamma, q1..qn, v1..vn, G1..Gm, force1..forcem     (dense contacts)
 *     t, gamma, q1..qn, v1..vn                             (sparse contacts)
 *
 * and, with sparse contacts, a list per row of (constraint, G, force) for the constraints in
 * contact there (pl_contact_in: G <= 0 or a non-zero force; docs/formats.md, "Contacts").  Either
 * way the solvers record a row through pl_solution_append_row (or pl_solution_append_state and
 * pl_solution_record_contact), and consumers read G and the forces through pl_solution_gap_at,
 * pl_solution_force_at and pl_solution_row_contacts, never through the columns.
 *
 * where gamma is the time transform Gamma (paper 004, eq. (5); for a scheme its discrete analogue,
 * t plus the accumulated norm of the contact impulses' velocity changes) and force_i is the normal
 * force lambda_i of constraint i (penalized runs, the limit's sliding forces) or, for a scheme, the
 * impulse of constraint i over the step that ends at t.  Besides the table: contact episodes
 * (penalized runs and schemes), events (impacts and mode changes, limit solution and schemes), the
 * first Zeno point (limit solution), counters and the final state. */
#ifndef PL_SOLUTION_H
#define PL_SOLUTION_H

#include "core/table.h"
#include "model/model.h"

/* Trajectory columns. */
static inline size_t pl_col_q(size_t n, size_t m) { (void)n, (void)m; return 2; }
static inline size_t pl_col_v(size_t n, size_t m) { (void)m; return 2 + n; }
static inline size_t pl_col_g(size_t n, size_t m) { (void)m; return 2 + 2 * n; }
static inline size_t pl_col_force(size_t n, size_t m) { return 2 + 2 * n + m; }
static inline size_t pl_ncols(size_t n, size_t m) { return 2 + 2 * n + 2 * m; }

/* How a solution stores the G and force of its constraints.  AUTO: dense up to
 * PL_CONTACTS_DENSE_MAX_M constraints, sparse above (a row of the spheres box of 12 disks carries
 * 114 constraints of which a handful touch; writing 2m numbers a row was 12% of the wall at 48
 * disks).  Dense is refused where the G and force columns of one row alone would take more than
 * PL_CONTACTS_DENSE_MAX_ROW_BYTES (pl_contacts_check). */
typedef enum { PL_CONTACTS_AUTO, PL_CONTACTS_DENSE, PL_CONTACTS_SPARSE } pl_contacts_mode;
#define PL_CONTACTS_DENSE_MAX_M 100
#define PL_CONTACTS_DENSE_MAX_ROW_BYTES (1024.0 * 1024.0)

/* "dense", "sparse" ("auto" for AUTO) */
const char *pl_contacts_name(pl_contacts_mode mode);
/* The mode a run of m constraints uses when `requested` is asked for (AUTO resolved). */
pl_contacts_mode pl_contacts_resolve(pl_contacts_mode requested, size_t m);
/* PL_ERR_INPUT (naming the memory per row) if `requested` is dense for an m beyond its cap. */
pl_status pl_contacts_check(pl_contacts_mode requested, size_t m, pl_error *err);

/* One constraint in contact at one row (sparse contacts). */
typedef struct {
    size_t constraint; /* 0-based */
    double g, force;
} pl_contact_entry;

/* Whether a constraint with gap g and force `force` is in contact, what the sparse list keeps: G <=
 * 0, or a non-zero force (the limit's sliding forces, a scheme's impulses, a damped penalty force
 * as G leaves 0), or either not a number (never taken for "no contact").  A constraint not in the
 * list has force 0 exactly and G > 0, which pl_solution_gap_at recomputes from the row's state. */
static inline int pl_contact_in(double g, double force)
{
    return !(g > 0.0 && force == 0.0);
}

/* Work counters; a solver fills those that apply to it. */
typedef struct {
    long steps, rhs_evals, jac_evals, root_evals, error_test_fails, nonlin_conv_fails;
    long restarts;            /* CVodeReInit calls: one per contact switch */
    long lin_setups, sparse_analyses; /* BDF's factorizations of I - gamma J, and of them the ones
                                         that ordered a new sparsity pattern (KLU) */
    long recovered_crossings; /* contact entries/exits between two step ends that rootfinding
                                 cannot see (G dips through 0 and back) and that were recovered */
    long fast_steps;          /* steps of the fast systems of impacts (limit solution) */
    long lcp_solves, lcp_iterations; /* complementarity problems (Siconos) and their pivots */
    long gap_evals;           /* gaps a penalized run evaluated for its steps, events and weights (the
                                 trajectory's record of every gap aside), the gaps the limit solution
                                 evaluated (records too) */
    long neighbour_rebuilds;  /* rebuilds of its neighbour list (neighbours.c) */
    long root_writes;         /* root-function values a penalized run wrote (the live ones where it
                                 has a neighbour list; roots.c), and */
    long rebuild_visits;      /* the constraints its rebuilds of the list after the first (which
                                 visits every one) visited: with the two, a per-step or per-rebuild
                                 pass over all m constraints shows (not in summary.json) */
    long state_size;          /* the components of its state at the end: 2n + 1 and the impulses'
                                 slots (every constraint's below 100 constraints; slots.c); the limit
                                 solution's largest fast system of an impact (2 per constraint taking
                                 part, and n + 1) */
    double wall_seconds;
} pl_stats;

/* One contact episode of one constraint: from entry (G_i crosses 0 downward, or initial contact;
 * for a scheme the first step with a non-zero impulse) to exit (G_i crosses 0 upward; the last such
 * step). */
typedef struct {
    size_t constraint; /* 0-based */
    double t_in, t_out; /* t_out is NAN while still in contact at the end of the run */
    double gdot_in, gdot_out;
    double max_penetration;   /* max of -G_i over the episode */
    double t_max_penetration;
    double gamma_in, gamma_out; /* Gamma at entry and at exit (or at the end of the run) */
    double impulse;             /* integral of lambda_i over the episode (sum of impulses) */
    size_t row_in, row_out;     /* trajectory rows at entry and at exit (or the last row) */
    size_t steps;               /* scheme steps with a non-zero impulse (schemes only) */
    /* How far round-off in G_i and in the state moves t_in and t_out (pl_time_resolution): a
     * difference of times below it is noise.  0 for a contact that starts at t = 0; t's own ulp for
     * a scheme's episodes (their times are its steps); NAN while unknown. */
    double t_in_resolution, t_out_resolution;
} pl_episode;

/* Restitution of an episode, -gdot_out/gdot_in (NAN if it has not ended or gdot_in = 0). */
double pl_episode_restitution(const pl_episode *ep);

typedef enum { PL_EVENT_IMPACT, PL_EVENT_SLIDE_START, PL_EVENT_LIFT_OFF, PL_EVENT_ZENO, PL_EVENT_KINDS } pl_event_kind;

/* "impact", "slide_start", "lift_off" or "zeno" */
const char *pl_event_kind_name(pl_event_kind kind);

/* An event's arrays are one allocation (pl_event_alloc) beginning at q, owned by the solution (or
 * the analysis) that holds the event. */
typedef struct {
    pl_event_kind kind;
    double t;
    size_t constraint; /* the constraint that triggered it (0-based) */
    double *q;                  /* n */
    double *v_before, *v_after; /* n each */
    double gamma_before, gamma_after;
    double gdot_before, gdot_after; /* of the triggering constraint */
    /* impacts */
    double *impulse;             /* m: impulse of each constraint taking part */
    unsigned char *participants; /* m: 1 where constraint i took part */
    /* An analysis' penalized impact holds its participants sparse instead (impulse and participants
     * NULL): part[0..nparts), increasing, and their impulses part_impulse, so that its size follows
     * the contacts it takes along, not m (pl_event_participant, pl_event_impulse read either form). */
    size_t *part;
    double *part_impulse;
    size_t nparts;
    double s_exit;               /* the fast exit time s* (limit solution; NAN otherwise) */
    double t_resolution;         /* how far round-off moves t (pl_time_resolution); NAN: unknown */
} pl_event;

/* An event of kind at t triggered by constraint, with zeroed arrays for n dofs and m constraints
 * (s_exit NAN); non-zero if out of memory (e then holds nothing). */
int pl_event_alloc(pl_event *e, size_t n, size_t m, pl_event_kind kind, double t, size_t constraint);
void pl_event_free(pl_event *e);
/* Did constraint i take part in impact e; its impulse there (0 if it did not): either form. */
int pl_event_participant(const pl_event *e, size_t i);
double pl_event_impulse(const pl_event *e, size_t i);
/* Everything of src into dst, whose arrays (of the same n and m) are kept: dst in the dense form,
 * src in either. */
void pl_event_copy(pl_event *dst, const pl_event *src, size_t n, size_t m);

/* The first accumulation of impacts found by the limit solution. */
typedef struct {
    int found;
    size_t constraint, impacts_resolved;
    double t_accumulation, ratio;
    double *q, *v; /* n each */
} pl_zeno_point;

/* The tail of a bouncing sequence that never accumulates (Hunt-Crossley), summed in closed form by the limit
 * solution from t_start to t-end (docs/laws.md, "The tail of the bounces"). */
typedef struct {
    int found;
    size_t constraint;
    double t_start;      /* the impact after which it was summed */
    double x_start;      /* c u0 there: the expansion's small parameter */
    double impacts;      /* impacts summed, not resolved one by one (a whole number up to 2^53) */
    double t_last;       /* the last of them */
    double speed_last;   /* the rebound gap rate after it */
    double time_error;   /* bounds: of t_last, and of the speeds relative to themselves */
    double speed_error;
} pl_bounce_tail;

struct pl_solver_type;

typedef struct pl_solution pl_solution; /* also in include/penlim/solve.h, opaque */
struct pl_solution {
    const struct pl_solver_type *solver;
    pl_status status; /* PL_OK, or the failure (the trajectory then stops where it failed) */
    pl_error error;
    size_t n, m;
    double t_end;
    size_t samples; /* the rows stored per flight and per episode (pl_solve_opts.samples, 0: every step;
                       pl_solution_sample_rows); SIZE_MAX: not known (an external file, a summary of
                       before it was recorded) */
    double option[PL_MAX_PARAMS]; /* the solver's options, in the order of solver->options */
    pl_table traj;
    pl_contacts_mode contacts;  /* DENSE or SPARSE (pl_solution_set_contacts) */
    pl_contact_entry *entries;  /* sparse: the contacts of row r are entries[row_first[r] .. row_first[r + 1]) */
    size_t nentries, entries_cap;
    size_t *row_first;          /* sparse: nrows + 1 offsets */
    size_t row_first_cap;
    pl_episode *episodes;
    size_t nepisodes, episodes_cap;
    pl_event *events;
    size_t nevents, events_cap;
    pl_zeno_point zeno;
    pl_bounce_tail tail;
    pl_stats stats;
    double step_size; /* the step a scheme took (t_end over its number of steps); NAN otherwise */
    double t_final, gamma_final;
    double *q_final, *v_final; /* n each */
};

/* An empty solution of model by solver (its options zero: pl_solve fills them), with the arrays of
 * its final state and Zeno point (none for n = 0, a placeholder).  PL_ERR_NOMEM if they cannot be
 * had; sol is freeable whatever the status. */
pl_status pl_solution_init(pl_solution *sol, const struct pl_solver_type *solver, const pl_model *model, double t_end,
                           pl_error *err);
void pl_solution_free(pl_solution *sol);
/* Release the trajectory's rows and contacts alone (the rest is kept: a sweep's run once measured). */
void pl_solution_free_rows(pl_solution *sol);

/* The resolution of an event time t at which the gap G_i (its terms: pl_gap_terms) crosses a level
 * at the rate gdot: how far the round-off of G_i and of the state moves it,
 *
 *     PL_RESOLUTION_ULPS eps terms / |gdot| + eps |t|,
 *
 * the gap's round-off over its rate, plus t's own ulp.  (Measured: the disk's lift-off at mu = 1e8
 * ... 1e10, where G leaves 0 at 4e-8 ... 4e-10, spreads over up to 14 such ulps of G under changes of
 * the initial state by a few ulps; docs/methods.md, "Resolution of event times".)  INFINITY when
 * gdot = 0. */
#define PL_RESOLUTION_ULPS 16.0
double pl_time_resolution(double terms, double t, double gdot);

/* The resolution of a gap G whose terms (pl_gap_terms) are `terms`, in a run that holds G to the
 * absolute tolerance `floor` at best: its round-off, PL_GAP_NOISE_ULPS ulps of the terms, or the floor,
 * whichever is larger.  A penalized run's floor is rtol times the penetration scale
 * (pl_law_rest_penetration); below the resolution the sign of G is not the run's to decide
 * (docs/methods.md, "Resolution of gaps"). */
#define PL_GAP_NOISE_ULPS 100.0
double pl_gap_resolution(double terms, double floor);

/* How many numbers the files of sol will hold (pl_write_solution): its rows in trajectory.csv and
 * trajectory_s.csv, its episodes and events in summary.json; what a time budget counts to keep the
 * time to write them (PL_WRITE_SECONDS_PER_NUMBER). */
double pl_solution_numbers(const pl_solution *sol);

/* The storage of sol's contacts (an empty solution's: before its first row); pl_solution_init
 * makes it dense. */
void pl_solution_set_contacts(pl_solution *sol, pl_contacts_mode mode);

/* Append a trajectory row given in the dense layout (pl_ncols values: t, gamma, q, v, G, force):
 * with dense contacts the whole row, with sparse ones its state and its constraints in contact
 * (pl_contact_in).  What every solver records a row through.  All or nothing: a row that fails
 * (the cap on the output, memory) leaves no state and no contacts behind. */
pl_status pl_solution_append_row(pl_solution *sol, const double *row, pl_error *err);
/* The same for the constraints list[0..count) alone (increasing), the others known to be out of
 * contact (G > 0, no force): with sparse contacts their columns in row are not read. */
pl_status pl_solution_append_row_of(pl_solution *sol, const double *row, const size_t *list, size_t count,
                                    pl_error *err);
/* Append the state t, gamma, q, v (the first 2 + 2n values of row) with no contact recorded yet
 * (dense: G NAN, force 0); then pl_solution_record_contact for each constraint evaluated. */
pl_status pl_solution_append_state(pl_solution *sol, const double *row, pl_error *err);
/* Record G and the force of constraint i at the last row: dense contacts store them in its columns,
 * sparse ones keep them if the constraint is in contact (pl_contact_in).  Sparse: the constraints
 * of a row are recorded in increasing order (PL_ERR_SOLVER otherwise). */
pl_status pl_solution_record_contact(pl_solution *sol, size_t i, double g, double force, pl_error *err);

/* The sparse contacts of a solution whose rows are all recorded (contacts.csv read back): count
 * entries, entry k at row row[k]; rows non-decreasing and, within a row, constraints increasing
 * (PL_ERR_INPUT otherwise). */
pl_status pl_solution_set_contact_list(pl_solution *sol, const size_t *row, const pl_contact_entry *e, size_t count,
                                       pl_error *err);

/* The contacts stored at row r (sparse: those in contact; dense: none; *first NULL where there are
 * none): their count. */
size_t pl_solution_row_contacts(const pl_solution *sol, size_t r, const pl_contact_entry **first);
/* G_i and force_i at row r if stored (dense: always; sparse: in contact there): 1; else 0 with *g
 * NAN (it is positive) and *force 0.  Either pointer may be NULL. */
int pl_solution_contact_at(const pl_solution *sol, size_t r, size_t i, double *g, double *force);
/* force_i at row r, in either storage (0 where the sparse list has no entry). */
double pl_solution_force_at(const pl_solution *sol, size_t r, size_t i);
/* G_i at row r: stored, or recomputed from the row's t and q by the model (into scratch: a gap of the
 * model's n, or one compressed to the supports, pl_gap_new_sparse), which is what the solver computed
 * it from. */
double pl_solution_gap_at(const pl_solution *sol, const pl_model *model, size_t r, size_t i, pl_gap *scratch);

/* Keep the rows r with keep[r] non-zero (and their sparse contacts), in order, and drop the others;
 * the episodes' row_in and row_out move with their rows, which must be kept (PL_ERR_SOLVER naming the
 * episode otherwise, sol unchanged).  PL_ERR_NOMEM if the map of rows cannot be had. */
pl_status pl_solution_keep_rows(pl_solution *sol, const unsigned char *keep, pl_error *err);

/* Event-adaptive sampling of the rows (docs/methods.md, "Stored rows"), done once a run ends: keep
 * the first and the last row, the rows keep[] marks (the solver's own needs; may be NULL), each
 * episode's rows row_in, row_in + 1, row_out and row_out + 1, both rows of any time recorded twice
 * (the one-sided values of a jump or a contact switch) and the rows at each event's time; between two
 * such rows (a flight, or the interior of an episode) at most `samples` rows evenly spaced in rows,
 * all of them if there are no more.  samples = 0 keeps every row.  keep (nrows entries) is
 * overwritten.  PL_ERR_NOMEM (rows unchanged) if out of memory. */
pl_status pl_solution_sample_rows(pl_solution *sol, unsigned char *keep, size_t samples, pl_error *err);

/* Append an episode (zeroed but for the constraint, t_in and the NAN end). */
pl_status pl_solution_add_episode(pl_solution *sol, size_t constraint, double t_in, pl_episode **ep, pl_error *err);
/* Append an event of kind at t triggered by constraint, its arrays zeroed (pl_event_alloc), to be
 * filled through *e, which is valid until the next event is appended. */
pl_status pl_solution_new_event(pl_solution *sol, pl_event_kind kind, double t, size_t constraint, pl_event **e,
                                pl_error *err);
/* Append a copy of e. */
pl_status pl_solution_add_event(pl_solution *sol, const pl_event *e, pl_error *err);

/* Record the end of the run: t_final, gamma_final, q_final, v_final from the last row, the status
 * and error, and the wall time since t0. */
void pl_solution_finish(pl_solution *sol, pl_status status, const pl_error *err, double t0);

#endif
