/* Contact switches: the loop's event hook (switch_at) at a root or a missed crossing, which of them
 * change a contact mode (those whose motion the integration resolves: resolvable_switch,
 * resolved_crossing), and the bookkeeping of a change (switch_mode, modes_changed). */
#include <math.h>
#include <string.h>

#include "solvers/penalty/engine.h"

/* After a change of the contact modes. */
void pen_modes_changed(run_ctx *c)
{
    c->modes++;
    if (!c->field.listed)
        pl_penalized_list_active(&c->field);
    c->single_active = c->field.nlist == 1 ? c->field.list[0] : c->m;
    pen_live_roots_update(c);
}

/* Gddot_i with constraint i's force off, and with it the force of every other active constraint j
 * whose contact is within the resolution of G_j (hypot(G_j, Gdot_j/omega_j) <= gap_resolution): the
 * acceleration of G_i by what the integration resolves.  (In the wedge's corner, once the mass has
 * settled, each wall's force is that of a penetration at 1e-20, and the other wall's gap moves with
 * it.) */
static double resolved_gap_accel(run_ctx *c, size_t i, double t, const double *y)
{
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    int *active = c->field.active, *off = c->saved_active; /* the constraints turned off */
    size_t count = 0;
    for (size_t k = 0; k < c->field.nlist; k++) { /* the active list holds every active constraint */
        size_t j = c->field.list[k];
        if (active[j] && (j == i || hypot(gaps[j].g, c->geometry_gdot[j] / c->omega[j]) <=
                                        pen_gap_resolution(c, j, t, Q(y)))) {
            off[count++] = (int)j;
            active[j] = 0;
        }
    }
    pen_trial_begin(c);
    double D = pen_gap_accel(c, i, t, y);
    pen_trial_end(c);
    for (size_t e = 0; e < count; e++)
        active[off[e]] = 1;
    return D;
}

/* Whether constraint i at (t, y), at or past 0 on the side `side` (+1 for an exit, -1 for an entry),
 * has crossed as far as the integration resolves: its contact amplitude hypot(G_i, Gdot_i/omega_i),
 * which error_weights controls, beyond the resolution of G_i, or a resolved acceleration
 * (resolved_gap_accel) carrying G_i further to that side.  Within the resolution the sign of G_i
 * and of its rate are not known. */
int pen_resolved_crossing(run_ctx *c, size_t i, double t, const double *y, double side)
{
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    if (hypot(gaps[i].g, c->geometry_gdot[i] / c->omega[i]) > pen_gap_resolution(c, i, t, Q(y)))
        return 1;
    double D = resolved_gap_accel(c, i, t, y);
    return isnan(D) || side * D > 0.0;
}

/* Whether a switch of constraint i at (t, y), G_i at its root and moving at the rate gdot (< 0 for
 * an entry, > 0 for an exit), begins a motion the integration resolves, with constraint i's force
 * off (the mode an entry leaves, the mode an exit enters) and Gddot_i = D:
 *   - where D turns G_i back, its excursion past 0, gdot^2 / (2 |D|), must exceed the resolution of
 *     G_i (gap_resolution).  At a tangency the integrated G dips to -1e-16 where the exact one
 *     touches 0, and the graze exerts no force; near a tangential lift-off (a table whose
 *     acceleration just exceeds g) G_i crosses 0 at round-off level before the limit's lift-off, and
 *     the contact would end and begin again;
 *   - from a state within that resolution, hypot(G_i, gdot/omega_i) (the contact amplitude that
 *     error_weights controls), the rate's sign is not known, and only a resolved acceleration
 *     (resolved_gap_accel) carries G_i across: a contact that has returned to 0 as far as the
 *     integration sees, with nothing pulling it apart (an overdamped contact, whose exact gap never
 *     returns to 0, with no force on the mass), stays; a mass at rest on a constraint within the
 *     resolution with nothing pressing it on stays off.  The disk's lift-off at mu = 1e10 leaves
 *     G = 0 at the rate 4e-10 (gdot/omega_i = 4e-15, below the resolution 2e-14), carried by the
 *     normal force's sign change, which is resolved.  In the wedge's corner (e = 0, m < 0) gaps at
 *     1e-20 would switch the walls on and off, each pushed by the other's unresolved force (15
 *     episodes at m = -0.7, mu = 1e8; 11456 in 5 s at m = -0.999, mu = 1e6). */
static int resolvable_switch(run_ctx *c, size_t i, double t, const double *y, double gdot)
{
    int active = c->field.active[i];
    c->field.active[i] = 0;
    pen_trial_begin(c);
    double D = pen_gap_accel(c, i, t, y);
    pen_trial_end(c);
    c->field.active[i] = active;
    double resolution = pen_gap_resolution(c, i, t, Q(y));
    if (gdot * D < 0.0)
        return gdot * gdot / (2.0 * fabs(D)) > resolution;
    return pen_resolved_crossing(c, i, t, y, gdot > 0.0 ? 1.0 : -1.0);
}

/* Switch constraint i to active/inactive at the current row and keep the episodes in step. */
static pl_status switch_mode(run *r, size_t i, int active, double t, double *y, pl_error *err)
{
    if (r->ctx.field.active[i] == active)
        return PL_OK;
    r->ctx.field.active[i] = active;
    pl_penalized_list_switch(&r->ctx.field, i, active);
    pen_modes_changed(&r->ctx);
    r->ctx.bdf_held = 0;
    r->ctx.bdf_futile = 0;
    if (active) {
        pen_slot_take(&r->ctx, i, y);
        pen_start_force_root(&r->ctx, i, t, y);
        return pen_open_episode(r, i, t, y, err);
    }
    int e = r->open[i];
    pen_close_episode(r, i, t, y, 1);
    pen_slot_release(&r->ctx, i);
    return e >= 0 ? pen_check_energy(r, i, &r->sol->episodes[e], err) : PL_OK;
}

/* The loop's `event` hook.  At a root of G_i, decreasing through 0 starts a contact (-1) and
 * increasing ends it (+1); a sign change whose direction disagrees with the sign of Gdot_i there
 * is round-off at a tangency (after a lift-off G grows like (t - t_off)^3) and is not a switch,
 * nor is one whose motion stays within the resolution of G_i (resolvable_switch).  A root of a force
 * changes no mode.  At a missed crossing, the constraint found there switches. */
pl_status pen_switch_at(void *user, double *t, double *y, const int *found, int *changed, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    /* Only the constraints evaluated can switch (their gap roots: the stepper's live ones), only the
     * active ones have a kink or a force root; the lists are in increasing order, as the loops over
     * every constraint were. */
    int *direction = r->direction;
    size_t count = pen_near_count(c);
    for (size_t k = 0; k < count; k++)
        direction[pen_near_at(c, k)] = 0;
    for (size_t k = 0; k < c->field.nlist; k++) {
        size_t i = c->field.list[k];
        if (*t < c->kink_t[i]) { /* a kink of the last step past this event has not happened */
            c->force_side[i] = -c->force_side[i];
            c->piece = c->piece_before;
            c->kink_t[i] = NAN;
        }
    }
    if (found) {
        double *g = r->g_switch, *gdot = r->gdot_switch;
        pen_contact_state(c, *t, y, g, gdot, NULL);
        for (size_t k = 0; k < count; k++) {
            size_t i = pen_near_at(c, k);
            if (!((found[i] < 0 && gdot[i] < 0.0) || (found[i] > 0 && gdot[i] > 0.0)) ||
                c->field.active[i] == (found[i] < 0))
                continue;
            if (resolvable_switch(c, i, *t, y, gdot[i]))
                direction[i] = found[i];
            else if (found[i] > 0 && c->lifting[i] == 1)
                c->lifting[i] = 2; /* the exit at round-off: the hysteresis again (exit_level) */
        }
        for (size_t k = 0; k < c->field.nlist; k++) {
            size_t i = c->field.list[k];
            if (found[c->m + i]) {
                c->force_side[i] = -c->force_side[i];
                if (c->force_side[i] > 0.0) /* pushing again: a lift-off to come is handed over anew */
                    r->ctx.lifting[i] = 0;
            }
        }
    } else if (r->handover < c->m) { /* a lift-off handed to the Runge-Kutta pair (choose) */
        r->ctx.lifting[r->handover] = 1;
        r->handover = c->m;
    } else if (r->missed_constraint < c->m) {
        size_t i = r->missed_constraint;
        direction[i] = c->field.active[i] ? 1 : -1;
    } /* else a cut for the neighbour list, rebuilt below */
    size_t on = 0;
    for (size_t k = 0; k < count; k++) {
        size_t i = pen_near_at(c, k);
        on += direction[i] < 0 && !c->field.active[i];
    }
    pl_status grown = pen_slots_reserve(r, on, &y, err); /* y: the new stepper's if it grew */
    if (grown != PL_OK)
        return grown;
    *changed = 0;
    for (size_t k = 0; k < count; k++) {
        size_t i = pen_near_at(c, k);
        if (!direction[i])
            continue;
        *changed = 1;
        pl_status s = switch_mode(r, i, direction[i] < 0, *t, y, err);
        if (s != PL_OK)
            return s;
    }
    pen_restart_gamma(c, *t, y);
    if (pen_neighbours_due(c, *t, Q(y))) {
        pen_neighbours_rebuild(c, *t, Q(y));
        pen_neighbours_refresh(r, *t, y);
    }
    return PL_OK;
}
