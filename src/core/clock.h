/* The wall clock, for the wall_seconds of every solver's statistics, and the time budgets. */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

#include <stddef.h>

/* Seconds on a monotonic clock (differences only). */
double pl_now_seconds(void);

/* A wall-clock budget: max_seconds (0: none) counted from started (pl_now_seconds).  It belongs to a
 * piece of work (a solve and the analysis done with it), never to its result. */
typedef struct {
    double max_seconds, started;
} pl_budget;

/* Whether budget (NULL: none) has run out. */
int pl_budget_spent(const pl_budget *budget);

/* The time budgeted for writing one number of a solution's files, its shortest exact digits (Ryu) and
 * its share of the content hash and of the file: 0.07 to 0.11 us of wall time on an idle 2-core
 * machine (3e7 numbers of the ball's samples, 1.5e8 of a pile's fast arcs), 0.34 us with six busy
 * processes beside it; with room, so that a solve stopped by its budget leaves the time to write what
 * it found, and no more (4 us, from before the digits came from Ryu, stopped solves at 2% of their
 * budget). */
#define PL_WRITE_SECONDS_PER_NUMBER 1e-6

/* Whether budget has run out once `numbers` still to be written are counted at that cost: the work
 * that produces a solution stops with the time left to write what it found. */
int pl_budget_spent_writing(const pl_budget *budget, double numbers);

/* For the message of work that pl_budget_spent_writing stopped while its own time was within the
 * budget: "; S s spent, W s kept to write the N numbers found" into buf (cap bytes), else "" (the
 * budget spent by the work itself).  A stop at 2 s of a 120 s budget read as if 120 s had passed. */
const char *pl_budget_writing_note(const pl_budget *budget, double numbers, char *buf, size_t cap);

/* How the messages of work stopped by its budget begin (one argument: max_seconds); a library
 * message names the setting, not the program's option. */
#define PL_BUDGET_STOPPED "stopped after the time budget of %g s (max_seconds)"

#endif
