/* The built-in bouncing ball compiled into a model loaded at run time, for bench_loaded: the same
 * code, called through dlopen. */
#include "cases/bouncing_ball.c"

PL_EXPORT_MODEL(pl_case_bouncing_ball)
