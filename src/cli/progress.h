/* The progress of a command on stderr, phase by phase (runs, limit, analysis, files, figures): on a
 * terminal a live line; otherwise a line per 10% of a phase and one at least every 10 s (a ticker
 * thread repeats the latest state while nothing completes), so that a log is never silent 10 s.
 * A patient progress (run, limit, sweep, compare) prints off a terminal only once the command has
 * run that long: a command of a few seconds leaves its log as it was, its errors one line each. */
#ifndef PL_CLI_PROGRESS_H
#define PL_CLI_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>

#include <penlim/study.h>

typedef struct {
    const char *cmd;
    int live, quiet, patient;
    pthread_mutex_t lock;
    pl_study_progress last;
    const char *unit; /* what the phase counts (" runs"), or NULL: the study's rule */
    int have;
    double started, last_print, last_report;
    int last_decile;
    atomic_int stop;
    pthread_t ticker;
    int ticking;
} progress_state;

/* Start: "penlim CMD: ..." lines; quiet: none; patient: none off a terminal in the first 10 s. */
void progress_start(progress_state *ps, const char *cmd, int quiet, int patient);
/* A study's progress (a pl_study_options callback; user is the progress_state). */
void progress_on_study(const pl_study_progress *p, void *user);
/* A phase done/total, counting unit (" runs", " solutions", "": plain), failed of them so far. */
void progress_phase(progress_state *ps, const char *phase, const char *unit, size_t done, size_t total, size_t failed);
/* Stop the ticker and end a live line. */
void progress_end(progress_state *ps);

#endif
