/* The wall clock, for the wall_seconds of every solver's statistics. */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

/* Seconds on a monotonic clock (differences only). */
double pl_now_seconds(void);

#endif
