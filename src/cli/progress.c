#include "cli/progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

/* Off a terminal, the longest a log stays without a progress line (s). */
#define SILENCE 10.0

static const char *phase_unit(const progress_state *ps, const pl_study_progress *p)
{
    if (ps->unit)
        return ps->unit;
    return strcmp(p->phase, "figures") == 0 ? "" : strncmp(p->phase, "copying", 7) == 0 ? " shards" : " runs";
}

static void print_progress(progress_state *ps, const pl_study_progress *p, double now)
{
    double remaining = p->remaining - (now - ps->last_report);
    char left[64] = "";
    /* an estimate once the phase has run a second (before, it extrapolates from almost nothing) */
    if (isfinite(p->remaining) && p->elapsed >= 1.0)
        snprintf(left, sizeof left, remaining >= 1.0 ? ", about %.0f s left" : ", under 1 s left", remaining);
    char limits[64] = "";
    if (p->limits_total > 0)
        snprintf(limits, sizeof limits, ", limit solutions %zu/%zu", p->limits_done, p->limits_total);
    double elapsed = p->elapsed + (now - ps->last_report);
    const char *unit = phase_unit(ps, p);
    char failed[32] = "";
    if (strcmp(unit, " runs") == 0 || strcmp(unit, " solutions") == 0)
        snprintf(failed, sizeof failed, ", %zu failed", p->failed);
    fprintf(stderr, "%spenlim %s: %s: %zu/%zu%s done%s%s, %.1f s%s%s", ps->live ? "\r\033[K" : "", ps->cmd, p->phase,
            p->done, p->total, unit, failed, limits, elapsed, left, ps->live ? "" : "\n");
    fflush(stderr);
    ps->last_print = now;
}

static void report(progress_state *ps, const pl_study_progress *p, const char *unit)
{
    double now = pl_now_seconds();
    pthread_mutex_lock(&ps->lock);
    int new_phase = !ps->have || strcmp(ps->last.phase, p->phase) != 0;
    ps->last = *p;
    ps->unit = unit;
    ps->have = 1;
    ps->last_report = now;
    size_t all = p->total + p->limits_total, done = p->done + p->limits_done;
    int decile = all > 0 ? (int)(10 * done / all) : 10;
    if (new_phase)
        ps->last_decile = -1;
    int waiting = !ps->live && ps->patient && now - ps->started < SILENCE;
    if (!waiting && (ps->live || decile > ps->last_decile || now - ps->last_print >= SILENCE)) {
        print_progress(ps, p, now);
        ps->last_decile = decile;
    }
    pthread_mutex_unlock(&ps->lock);
}

void progress_on_study(const pl_study_progress *p, void *user)
{
    progress_state *ps = user;
    if (!ps->quiet)
        report(ps, p, NULL);
}

static void *ticker(void *arg)
{
    progress_state *ps = arg;
    while (!atomic_load(&ps->stop)) {
        nanosleep(&(struct timespec){0, 200000000}, NULL);
        double now = pl_now_seconds();
        pthread_mutex_lock(&ps->lock);
        if (ps->have && now - ps->last_print >= (ps->live ? 1.0 : SILENCE - 0.5)) /* the tick: never silent 10 s */
            print_progress(ps, &ps->last, now);
        pthread_mutex_unlock(&ps->lock);
    }
    return NULL;
}

void progress_start(progress_state *ps, const char *cmd, int quiet, int patient)
{
    memset(ps, 0, sizeof *ps);
    ps->cmd = cmd;
    ps->quiet = quiet;
    ps->patient = patient;
    ps->live = isatty(STDERR_FILENO);
    ps->started = ps->last_print = pl_now_seconds();
    pthread_mutex_init(&ps->lock, NULL);
    ps->ticking = !quiet && pthread_create(&ps->ticker, NULL, ticker, ps) == 0;
}

void progress_phase(progress_state *ps, const char *phase, const char *unit, size_t done, size_t total, size_t failed)
{
    if (ps->quiet)
        return;
    /* the phase's own clock: elapsed since it started */
    double now = pl_now_seconds(), started = now;
    pthread_mutex_lock(&ps->lock);
    if (ps->have && strcmp(ps->last.phase, phase) == 0)
        started = ps->last_report - ps->last.elapsed;
    pthread_mutex_unlock(&ps->lock);
    pl_study_progress p = {.phase = phase, .done = done, .total = total, .failed = failed, .remaining = NAN,
                           .elapsed = now - started};
    report(ps, &p, unit);
}

void progress_end(progress_state *ps)
{
    atomic_store(&ps->stop, 1);
    if (ps->ticking)
        pthread_join(ps->ticker, NULL);
    if (ps->live && ps->have && !ps->quiet)
        fputc('\n', stderr);
    pthread_mutex_destroy(&ps->lock);
}
