#include "solvers/solution.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

double pl_episode_restitution(const pl_episode *ep)
{
    if (isnan(ep->gdot_out) || ep->gdot_in == 0.0)
        return NAN;
    return -ep->gdot_out / ep->gdot_in;
}

double pl_time_resolution(double terms, double t, double gdot)
{
    return gdot != 0.0 ? PL_RESOLUTION_ULPS * DBL_EPSILON * terms / fabs(gdot) + DBL_EPSILON * fabs(t) : INFINITY;
}

double pl_gap_resolution(double terms, double floor)
{
    return fmax(PL_GAP_NOISE_ULPS * DBL_EPSILON * terms, floor);
}

const char *pl_event_kind_name(pl_event_kind kind)
{
    static const char *names[PL_EVENT_KINDS] = {"impact", "slide_start", "lift_off", "zeno"};
    return kind < PL_EVENT_KINDS ? names[kind] : "?";
}

int pl_event_alloc(pl_event *e, size_t n, size_t m, pl_event_kind kind, double t, size_t constraint)
{
    memset(e, 0, sizeof *e);
    double *block = calloc(1, (3 * n + m) * sizeof *block + m + 1);
    if (!block)
        return -1;
    e->q = block;
    e->v_before = e->q + n;
    e->v_after = e->v_before + n;
    e->impulse = e->v_after + n;
    e->participants = (unsigned char *)(e->impulse + m);
    e->kind = kind;
    e->t = t;
    e->constraint = constraint;
    e->s_exit = e->t_resolution = NAN;
    return 0;
}

void pl_event_free(pl_event *e)
{
    free(e->q);
    free(e->part);
    free(e->part_impulse);
    memset(e, 0, sizeof *e);
}

/* The index of constraint i in e's sparse participants, or SIZE_MAX. */
static size_t event_part_index(const pl_event *e, size_t i)
{
    size_t lo = 0, hi = e->nparts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->part[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < e->nparts && e->part[lo] == i ? lo : SIZE_MAX;
}

int pl_event_participant(const pl_event *e, size_t i)
{
    if (e->participants)
        return e->participants[i] != 0;
    return e->part && event_part_index(e, i) != SIZE_MAX;
}

double pl_event_impulse(const pl_event *e, size_t i)
{
    if (e->impulse)
        return e->impulse[i];
    size_t k = e->part ? event_part_index(e, i) : SIZE_MAX;
    return k == SIZE_MAX ? 0.0 : e->part_impulse[k];
}

void pl_event_copy(pl_event *dst, const pl_event *src, size_t n, size_t m)
{
    pl_event keep = *dst;
    *dst = *src;
    dst->q = keep.q, dst->v_before = keep.v_before, dst->v_after = keep.v_after;
    dst->impulse = keep.impulse, dst->participants = keep.participants;
    dst->part = keep.part, dst->part_impulse = keep.part_impulse, dst->nparts = keep.nparts;
    memcpy(dst->q, src->q, n * sizeof *dst->q);
    memcpy(dst->v_before, src->v_before, n * sizeof *dst->v_before);
    memcpy(dst->v_after, src->v_after, n * sizeof *dst->v_after);
    if (src->participants) {
        memcpy(dst->impulse, src->impulse, m * sizeof *dst->impulse);
        memcpy(dst->participants, src->participants, m * sizeof *dst->participants);
        return;
    }
    memset(dst->impulse, 0, m * sizeof *dst->impulse);
    memset(dst->participants, 0, m * sizeof *dst->participants);
    for (size_t p = 0; p < src->nparts; p++) {
        dst->impulse[src->part[p]] = src->part_impulse[p];
        dst->participants[src->part[p]] = 1;
    }
}

pl_status pl_solution_init(pl_solution *sol, const struct pl_solver_type *solver, const pl_model *model, double t_end,
                           pl_error *err)
{
    memset(sol, 0, sizeof *sol);
    sol->solver = solver;
    sol->n = model->n;
    sol->m = model->m;
    sol->t_end = t_end;
    sol->samples = SIZE_MAX;
    sol->zeno.t_accumulation = sol->zeno.ratio = NAN;
    sol->t_final = sol->gamma_final = sol->step_size = NAN;
    pl_table_init(&sol->traj, pl_ncols(model->n, model->m));
    sol->contacts = PL_CONTACTS_DENSE;
    if (model->n == 0)
        return PL_OK;
    double *x = calloc(4 * model->n, sizeof *x);
    if (!x)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a solution of %zu degrees of freedom", model->n);
    sol->q_final = x; /* one block: q_final, v_final, zeno.q, zeno.v */
    sol->v_final = x + model->n;
    sol->zeno.q = x + 2 * model->n;
    sol->zeno.v = x + 3 * model->n;
    return PL_OK;
}

double pl_solution_numbers(const pl_solution *sol)
{
    double n = (double)sol->n, m = (double)sol->m;
    return (double)sol->traj.nrows * ((double)sol->traj.ncol + 2.0 + 2.0 * n) + 5.0 * (double)sol->nentries +
           (double)sol->nepisodes * (16.0 + n) +
           (double)sol->nevents * (12.0 + 3.0 * n + m) + 4.0 * m; /* the contact law of each constraint */
}

void pl_solution_free_rows(pl_solution *sol)
{
    pl_table_free(&sol->traj);
    free(sol->entries);
    free(sol->row_first);
    sol->entries = NULL;
    sol->row_first = NULL;
    sol->nentries = sol->entries_cap = sol->row_first_cap = 0;
}

void pl_solution_free(pl_solution *sol)
{
    pl_solution_free_rows(sol);
    for (size_t k = 0; k < sol->nevents; k++)
        pl_event_free(&sol->events[k]);
    free(sol->episodes);
    free(sol->events);
    free(sol->q_final);
    sol->episodes = NULL;
    sol->events = NULL;
    sol->q_final = sol->v_final = sol->zeno.q = sol->zeno.v = NULL;
    sol->nepisodes = sol->episodes_cap = sol->nevents = sol->events_cap = 0;
}

static int reserve(void **items, size_t count, size_t *cap, size_t size)
{
    if (count < *cap)
        return 0;
    size_t next = *cap ? 2 * *cap : 64;
    void *p = realloc(*items, next * size);
    if (!p)
        return -1;
    *items = p;
    *cap = next;
    return 0;
}

const char *pl_contacts_name(pl_contacts_mode mode)
{
    return mode == PL_CONTACTS_DENSE ? "dense" : mode == PL_CONTACTS_SPARSE ? "sparse" : "auto";
}

pl_contacts_mode pl_contacts_resolve(pl_contacts_mode requested, size_t m)
{
    if (requested != PL_CONTACTS_AUTO)
        return requested;
    return m <= PL_CONTACTS_DENSE_MAX_M ? PL_CONTACTS_DENSE : PL_CONTACTS_SPARSE;
}

pl_status pl_contacts_check(pl_contacts_mode requested, size_t m, pl_error *err)
{
    double bytes = 2.0 * (double)m * sizeof(double);
    if (requested == PL_CONTACTS_DENSE && bytes > PL_CONTACTS_DENSE_MAX_ROW_BYTES)
        return pl_fail(err, PL_ERR_INPUT,
                       "--contacts dense: %zu constraints take %.3g MB of G and force columns in every trajectory row "
                       "(%.3g GB for 1000 rows), beyond the %.3g MB a dense row may take: use --contacts sparse",
                       m, bytes / 1e6, 1000.0 * bytes / 1e9, PL_CONTACTS_DENSE_MAX_ROW_BYTES / 1e6);
    return PL_OK;
}

void pl_solution_set_contacts(pl_solution *sol, pl_contacts_mode mode)
{
    sol->contacts = pl_contacts_resolve(mode, sol->m);
    sol->traj.ncol = sol->contacts == PL_CONTACTS_SPARSE ? 2 + 2 * sol->n : pl_ncols(sol->n, sol->m);
}

/* Grow an array of `size`-byte items to hold `count` + 1 of them. */
static int reserve(void **items, size_t count, size_t *cap, size_t size);

pl_status pl_solution_append_state(pl_solution *sol, const double *row, pl_error *err)
{
    size_t n = sol->n, m = sol->m, rows = sol->traj.nrows;
    if (sol->contacts == PL_CONTACTS_SPARSE) {
        if (reserve((void **)&sol->row_first, rows + 1, &sol->row_first_cap, sizeof *sol->row_first))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu rows", rows);
        pl_status s = pl_table_append_part(&sol->traj, row, 2 + 2 * n, err);
        if (s != PL_OK)
            return s;
        sol->row_first[rows] = sol->row_first[rows + 1] = sol->nentries; /* row_first[0] = 0 from the start */
        return PL_OK;
    }
    pl_status s = pl_table_append_part(&sol->traj, row, 2 + 2 * n, err);
    if (s != PL_OK)
        return s;
    double *last = pl_table_row(&sol->traj, rows);
    for (size_t i = 0; i < m; i++) /* the forces are 0 already */
        last[pl_col_g(n, m) + i] = NAN;
    return PL_OK;
}

pl_status pl_solution_record_contact(pl_solution *sol, size_t i, double g, double force, pl_error *err)
{
    size_t n = sol->n, m = sol->m, rows = sol->traj.nrows;
    if (rows == 0 || i >= m)
        return pl_fail(err, PL_ERR_SOLVER, "constraint %zu recorded without a row or beyond the %zu constraints",
                       i + 1, m);
    if (sol->contacts == PL_CONTACTS_DENSE) {
        double *last = pl_table_row(&sol->traj, rows - 1);
        last[pl_col_g(n, m) + i] = g;
        last[pl_col_force(n, m) + i] = force;
        return PL_OK;
    }
    if (!pl_contact_in(g, force))
        return PL_OK;
    if (sol->nentries > sol->row_first[rows - 1] && sol->entries[sol->nentries - 1].constraint >= i)
        return pl_fail(err, PL_ERR_SOLVER, "constraint %zu recorded after constraint %zu in the same row", i + 1,
                       sol->entries[sol->nentries - 1].constraint + 1);
    /* the cap on the output counts an entry as the 3 numbers it holds besides its row */
    double values = (double)rows * (double)sol->traj.ncol + 3.0 * (double)(sol->nentries + 1);
    if (sol->traj.max_values > 0 && values > sol->traj.max_values)
        return pl_fail(err, PL_ERR_SOLVER,
                       "the output reached %zu rows and %zu contacts (%.3g values), the cap (--max-output %g)", rows - 1,
                       sol->row_first[rows - 1], values, sol->traj.max_values); /* the rows before this one */
    if (reserve((void **)&sol->entries, sol->nentries, &sol->entries_cap, sizeof *sol->entries))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu contacts", sol->nentries);
    sol->entries[sol->nentries++] = (pl_contact_entry){i, g, force};
    sol->row_first[rows] = sol->nentries;
    return PL_OK;
}

pl_status pl_solution_append_row(pl_solution *sol, const double *row, pl_error *err)
{
    return pl_solution_append_row_of(sol, row, NULL, sol->m, err);
}

pl_status pl_solution_append_row_of(pl_solution *sol, const double *row, const size_t *list, size_t count,
                                    pl_error *err)
{
    if (sol->contacts == PL_CONTACTS_DENSE) /* the whole row as it is */
        return pl_table_append(&sol->traj, row, err);
    size_t n = sol->n, m = sol->m, rows = sol->traj.nrows;
    pl_status s = pl_solution_append_state(sol, row, err);
    for (size_t k = 0; s == PL_OK && k < count; k++) {
        size_t i = list ? list[k] : k;
        s = pl_solution_record_contact(sol, i, row[pl_col_g(n, m) + i], row[pl_col_force(n, m) + i], err);
    }
    if (s != PL_OK && sol->traj.nrows > rows) { /* the row goes whole, as a dense one */
        sol->traj.nrows = rows;
        sol->nentries = sol->row_first[rows];
    }
    return s;
}

pl_status pl_solution_set_contact_list(pl_solution *sol, const size_t *row, const pl_contact_entry *e, size_t count,
                                       pl_error *err)
{
    size_t rows = sol->traj.nrows;
    for (size_t k = 0; k < count; k++)
        if (row[k] >= rows || e[k].constraint >= sol->m ||
            (k > 0 && (row[k] < row[k - 1] || (row[k] == row[k - 1] && e[k].constraint <= e[k - 1].constraint))))
            return pl_fail(err, PL_ERR_INPUT, "contact %zu (row %zu, constraint %zu) out of order or range", k + 1,
                           row[k] + 1, e[k].constraint + 1);
    pl_contact_entry *entries = malloc((count ? count : 1) * sizeof *entries);
    size_t *first = malloc((rows + 1) * sizeof *first);
    if (!entries || !first) {
        free(entries);
        free(first);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu contacts", count);
    }
    memcpy(entries, e, count * sizeof *e);
    for (size_t r = 0, k = 0; r <= rows; r++) {
        while (k < count && row[k] < r)
            k++;
        first[r] = k;
    }
    free(sol->entries);
    free(sol->row_first);
    sol->entries = entries;
    sol->entries_cap = count ? count : 1;
    sol->nentries = count;
    sol->row_first = first;
    sol->row_first_cap = rows + 1;
    return PL_OK;
}

pl_status pl_solution_keep_rows(pl_solution *sol, const unsigned char *keep, pl_error *err)
{
    size_t rows = sol->traj.nrows, ncol = sol->traj.ncol;
    for (size_t k = 0; k < sol->nepisodes; k++) {
        const pl_episode *ep = &sol->episodes[k];
        if (ep->row_in >= rows || ep->row_out >= rows || !keep[ep->row_in] || !keep[ep->row_out])
            return pl_fail(err, PL_ERR_SOLVER, "episode %zu (constraint %zu): its rows %zu and %zu are not kept", k + 1,
                           ep->constraint + 1, ep->row_in + 1, ep->row_out + 1);
    }
    size_t *index = malloc((rows + 1) * sizeof *index); /* the new index of each row kept */
    if (!index)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory thinning %zu rows", rows);
    size_t kept = 0, entries = 0;
    int sparse = sol->contacts == PL_CONTACTS_SPARSE;
    for (size_t r = 0; r < rows; r++) {
        index[r] = kept;
        if (!keep[r])
            continue;
        if (kept != r)
            memmove(pl_table_row(&sol->traj, kept), pl_table_row(&sol->traj, r), ncol * sizeof *sol->traj.data);
        if (sparse) { /* row r's contacts move down to follow the kept ones */
            size_t first = sol->row_first[r], count = sol->row_first[r + 1] - first;
            if (count && entries != first)
                memmove(sol->entries + entries, sol->entries + first, count * sizeof *sol->entries);
            sol->row_first[kept] = entries;
            entries += count;
        }
        kept++;
    }
    if (sparse) {
        sol->row_first[kept] = entries;
        sol->nentries = entries;
    }
    sol->traj.nrows = kept;
    for (size_t k = 0; k < sol->nepisodes; k++) {
        sol->episodes[k].row_in = index[sol->episodes[k].row_in];
        sol->episodes[k].row_out = index[sol->episodes[k].row_out];
    }
    free(index);
    return PL_OK;
}

/* Mark the rows at time t (rows sorted by time). */
static void keep_rows_at(const pl_table *traj, double t, unsigned char *keep)
{
    size_t lo = 0, hi = traj->nrows; /* the first row at or after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl_table_row(traj, mid)[0] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < traj->nrows && pl_table_row(traj, lo)[0] == t; lo++)
        keep[lo] = 1;
}

pl_status pl_solution_sample_rows(pl_solution *sol, unsigned char *keep, size_t samples, pl_error *err)
{
    size_t rows = sol->traj.nrows;
    if (samples == 0 || rows == 0)
        return PL_OK;
    unsigned char *own = NULL;
    if (!keep && !(keep = own = calloc(rows, 1)))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory sampling %zu rows", rows);
    keep[0] = keep[rows - 1] = 1;
    for (size_t k = 0; k < sol->nepisodes; k++) {
        const size_t mark[] = {sol->episodes[k].row_in, sol->episodes[k].row_out};
        for (size_t j = 0; j < 2; j++)
            for (size_t r = mark[j]; r <= mark[j] + 1 && r < rows; r++)
                keep[r] = 1;
    }
    for (size_t r = 1; r < rows; r++) /* both one-sided values of a jump or a switch */
        if (pl_table_row(&sol->traj, r)[0] == pl_table_row(&sol->traj, r - 1)[0])
            keep[r] = keep[r - 1] = 1;
    for (size_t k = 0; k < sol->nevents; k++)
        keep_rows_at(&sol->traj, sol->events[k].t, keep);
    for (size_t a = 0, b; a + 1 < rows; a = b) {
        for (b = a + 1; !keep[b]; b++)
            ;
        size_t gap = b - a; /* the rows strictly between a and b: gap - 1 */
        for (size_t j = 1; j < gap; j++)
            keep[a + j] = gap - 1 <= samples;
        for (size_t j = 1; gap - 1 > samples && j <= samples; j++)
            keep[a + j * gap / (samples + 1)] = 1;
    }
    pl_status s = pl_solution_keep_rows(sol, keep, err);
    free(own);
    return s;
}

size_t pl_solution_row_contacts(const pl_solution *sol, size_t r, const pl_contact_entry **first)
{
    if (sol->contacts != PL_CONTACTS_SPARSE || r >= sol->traj.nrows) {
        *first = NULL;
        return 0;
    }
    size_t count = sol->row_first[r + 1] - sol->row_first[r];
    *first = count ? sol->entries + sol->row_first[r] : NULL; /* entries NULL until a first contact */
    return count;
}

int pl_solution_contact_at(const pl_solution *sol, size_t r, size_t i, double *g, double *force)
{
    double gi = NAN, fi = 0.0;
    int found = 0;
    if (sol->contacts == PL_CONTACTS_DENSE) {
        const double *row = pl_table_row(&sol->traj, r);
        gi = row[pl_col_g(sol->n, sol->m) + i];
        fi = row[pl_col_force(sol->n, sol->m) + i];
        found = 1;
    } else {
        const pl_contact_entry *e;
        size_t lo = 0, hi = pl_solution_row_contacts(sol, r, &e);
        while (lo < hi) { /* a row's constraints are in increasing order */
            size_t mid = lo + (hi - lo) / 2;
            if (e[mid].constraint < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (e && lo < sol->row_first[r + 1] - sol->row_first[r] && e[lo].constraint == i) {
            gi = e[lo].g;
            fi = e[lo].force;
            found = 1;
        }
    }
    if (g)
        *g = gi;
    if (force)
        *force = fi;
    return found;
}

double pl_solution_force_at(const pl_solution *sol, size_t r, size_t i)
{
    double f;
    pl_solution_contact_at(sol, r, i, NULL, &f);
    return f;
}

double pl_solution_gap_at(const pl_solution *sol, const pl_model *model, size_t r, size_t i, pl_gap *scratch)
{
    double g;
    if (pl_solution_contact_at(sol, r, i, &g, NULL))
        return g;
    const double *row = pl_table_row(&sol->traj, r);
    pl_model_gap_sparse(model, i, row[0], row + pl_col_q(sol->n, sol->m), scratch); /* G alone: the support will do */
    return scratch->g;
}

pl_status pl_solution_add_episode(pl_solution *sol, size_t constraint, double t_in, pl_episode **ep, pl_error *err)
{
    if (reserve((void **)&sol->episodes, sol->nepisodes, &sol->episodes_cap, sizeof *sol->episodes))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu episodes", sol->nepisodes);
    pl_episode *e = &sol->episodes[sol->nepisodes++];
    memset(e, 0, sizeof *e);
    e->constraint = constraint;
    e->t_in = e->t_max_penetration = t_in;
    e->t_out = e->gdot_out = e->gamma_out = NAN;
    e->t_in_resolution = e->t_out_resolution = NAN;
    *ep = e;
    return PL_OK;
}

pl_status pl_solution_new_event(pl_solution *sol, pl_event_kind kind, double t, size_t constraint, pl_event **e,
                                pl_error *err)
{
    if (reserve((void **)&sol->events, sol->nevents, &sol->events_cap, sizeof *sol->events) ||
        pl_event_alloc(&sol->events[sol->nevents], sol->n, sol->m, kind, t, constraint))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu events", sol->nevents);
    *e = &sol->events[sol->nevents++];
    return PL_OK;
}

pl_status pl_solution_add_event(pl_solution *sol, const pl_event *e, pl_error *err)
{
    pl_event *copy = NULL;
    pl_status s = pl_solution_new_event(sol, e->kind, e->t, e->constraint, &copy, err);
    if (s == PL_OK)
        pl_event_copy(copy, e, sol->n, sol->m);
    return s;
}

void pl_solution_finish(pl_solution *sol, pl_status status, const pl_error *err, double t0)
{
    if (sol->traj.nrows > 0) {
        const double *last = pl_table_row(&sol->traj, sol->traj.nrows - 1);
        sol->t_final = last[0];
        sol->gamma_final = last[1];
        memcpy(sol->q_final, last + pl_col_q(sol->n, sol->m), sol->n * sizeof *last);
        memcpy(sol->v_final, last + pl_col_v(sol->n, sol->m), sol->n * sizeof *last);
    }
    sol->status = status;
    if (status != PL_OK && err)
        sol->error = *err;
    else
        pl_error_clear(&sol->error);
    sol->stats.wall_seconds = pl_now_seconds() - t0;
}
