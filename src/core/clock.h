/* The wall clock, for the wall_seconds of every solver's statistics, and the time budgets. */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

/* Seconds on a monotonic clock (differences only). */
double pl_now_seconds(void);

/* A wall-clock budget: max_seconds (0: none) counted from started (pl_now_seconds).  It belongs to a
 * piece of work (a solve and the analysis done with it), never to its result. */
typedef struct {
    double max_seconds, started;
} pl_budget;

/* Whether budget (NULL: none) has run out. */
int pl_budget_spent(const pl_budget *budget);

/* How the messages of work stopped by its budget begin (one argument: max_seconds); a library
 * message names the setting, not the program's option. */
#define PL_BUDGET_STOPPED "stopped after the time budget of %g s (max_seconds)"

#endif
