/* The closed-form relations the literature uses to choose the Hunt-Crossley damping from a
 * restitution, one table line each.  Each paper writes its law as lambda = k delta^n (1 + chi
 * deltadot/V) with V the impact speed and chi a function of e; in this project's form
 * lambda = k delta^n (1 + (3/2) c deltadot) that is c V = (2/3) chi(e).  Each entry gives that
 * relation (c V for a wanted e) and its inverse (the e the paper predicts for a given c V), to be
 * set against the exact map pl_restitution_hunt_crossley (docs/laws.md has the table of errors). */
#ifndef PL_LAWS_APPROXIMATIONS_H
#define PL_LAWS_APPROXIMATIONS_H

#include <stddef.h>

typedef struct {
    const char *name;      /* a column name: letters, digits and '_' */
    const char *label;     /* for a figure's key: "Lankarani-Nikravesh 1990" */
    const char *citation;  /* authors, title, journal, year */
    const char *chi;       /* the published damping factor, in e: "3(1 - e^2)/4" */
    /* c V = (2/3) chi(e) for e in [0, 1] (cv_max at e = 0); NAN outside. */
    double (*cv_from_restitution)(double e);
    /* Its inverse for c V >= 0: the e the relation assigns; NAN where no e in [0, 1] maps to c V
     * (c V > cv_max) or for c V < 0. */
    double (*restitution)(double cV);
    double cv_max; /* c V of e = 0 (INFINITY if e = 0 has none) */
} pl_impact_approximation;

size_t pl_impact_approximation_count(void);
const pl_impact_approximation *pl_impact_approximation_at(size_t index);

/* The largest |e_approx(cV) - e(cV)| over [cv_lo, cv_hi] where the approximation is defined (4001
 * points evenly spaced in log cV, and cv_max if inside), and the c V where it is reached (*at, may
 * be NULL).  NAN if it is defined nowhere there. */
double pl_impact_approximation_max_error(const pl_impact_approximation *a, double cv_lo, double cv_hi, double *at);

#endif
