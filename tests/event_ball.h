/* The bouncing ball (paper 004 eq. (51), restitution e, from height h0 at rest) as an event-driven
 * code writes it, in the external-trajectory format (docs/formats.md): exact parabolas sampled every
 * dt, each impact as two rows at its time (the velocity before, then after), and at rest once the
 * code stops resolving rebounds.  Impact k (0-based) comes at speed v1 e^k, at
 * t1 + 2 v1 e (1 - e^k)/(g (1 - e)) (t1 = sqrt(2 h0/g), v1 = g t1); they accumulate at
 * t_acc = t1 + 2 e v1/(g (1 - e)). */
#ifndef PL_TEST_EVENT_BALL_H
#define PL_TEST_EVENT_BALL_H

#include <math.h>
#include <stdio.h>

typedef struct {
    double g, h0, e;
    double dt;     /* the sampling interval of the rows between impacts */
    double t_end;  /* the last sample, at most */
    double v_stop; /* impacts are resolved (written as jumps) while their speed is >= v_stop */
    /* 1: the first impact slower than v_stop stops the ball (jump to 0, at rest from it on);
     * 0: the slower rebounds are sampled as exact flights without jump rows, at rest from t_acc on */
    int plastic;
} event_ball;

typedef struct {
    double t_acc;   /* the accumulation point, closed form */
    double t_last;  /* the last impact written as a jump (NAN if none) */
    double v_last;  /* its speed */
    size_t impacts; /* impacts written as jumps */
    double t_final; /* the last row */
} event_ball_info;

/* Impact k's time and speed, summed flight by flight as the event-driven code does. */
static inline void event_ball_impact(const event_ball *b, size_t k, double *t, double *v)
{
    *t = sqrt(2.0 * b->h0 / b->g);
    *v = b->g * *t;
    for (size_t j = 0; j < k; j++) {
        *t += 2.0 * b->e * *v / b->g;
        *v *= b->e;
    }
}

/* The exact state at t (after an impact at t): flights after every impact, resolved or not. */
static inline void event_ball_state(const event_ball *b, double t, double *q, double *v)
{
    double ti = sqrt(2.0 * b->h0 / b->g), vi = b->g * ti;
    if (t < ti) {
        *q = b->h0 - 0.5 * b->g * t * t;
        *v = -b->g * t;
        return;
    }
    for (;;) {
        double u = b->e * vi, flight = 2.0 * u / b->g;
        if (!(flight > 0.0) || ti + flight == ti) { /* the accumulation point, to round-off */
            *q = *v = 0.0;
            return;
        }
        if (t < ti + flight) {
            double s = t - ti;
            *q = u * s - 0.5 * b->g * s * s;
            *v = u - b->g * s;
            return;
        }
        ti += flight;
        vi = u;
    }
}

/* Write the trajectory to path; non-zero if the file cannot be written. */
static inline int write_event_ball(const char *path, const event_ball *b, event_ball_info *info)
{
    double t1 = sqrt(2.0 * b->h0 / b->g), v1 = b->g * t1;
    info->t_acc = t1 + 2.0 * b->e * v1 / (b->g * (1.0 - b->e));
    info->t_last = info->v_last = info->t_final = NAN;
    info->impacts = 0;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int at_rest = 0; /* from the last impact written on (plastic) */
    double t_rest = INFINITY;
    double t_imp, v_imp;
    event_ball_impact(b, 0, &t_imp, &v_imp);
    fprintf(f, "t,q1,v1\n");
    long samples = (long)floor(b->t_end / b->dt + 1e-9);
    for (long k = 0; k <= samples; k++) {
        double t = (double)k * b->dt;
        while (!at_rest && t_imp <= t && (v_imp >= b->v_stop || b->plastic)) {
            int last = v_imp < b->v_stop; /* plastic: the ball stops */
            fprintf(f, "%.17g,0,%.17g\n%.17g,0,%.17g\n", t_imp, -v_imp, t_imp, last ? 0.0 : b->e * v_imp);
            info->t_last = t_imp;
            info->v_last = v_imp;
            info->impacts++;
            if (last) {
                at_rest = 1;
                t_rest = t_imp;
            }
            event_ball_impact(b, info->impacts, &t_imp, &v_imp);
        }
        if (t == info->t_last)
            continue; /* the jump's rows hold this time */
        double q = 0.0, v = 0.0;
        if (!(t >= t_rest) && !(t >= info->t_acc))
            event_ball_state(b, t, &q, &v);
        fprintf(f, "%.17g,%.17g,%.17g\n", t, q, v);
        info->t_final = t;
    }
    return fclose(f) != 0 ? -1 : 0;
}

#endif
