/* Reading back a solution that pl_write_solution wrote: what a resumed sweep needs to reuse a run
 * without solving it again.  The files are untrusted input: every field is checked.  Each file is
 * opened once, relative to the run's directory (no link followed, a regular file), and hashed as it
 * is read: what is checked against the content hash the manifest recorded is what was read. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/report.h"
#include "solvers/solver.h"

typedef struct {
    const char *path; /* for messages */
    pl_error *err;
    int bad;
    pl_status status; /* of the first problem: PL_ERR_INPUT content that is not a run to reuse,
                         PL_ERR_IO a read error, PL_ERR_NOMEM out of memory */
} reader;

static pl_status fail(reader *r, pl_status status, const char *file, const char *what)
{
    if (!r->bad) {
        r->bad = 1;
        r->status = status;
        pl_fail(r->err, status, "%s: %s", file, what);
    }
    return r->status;
}

static pl_status bad(reader *r, const char *what)
{
    char text[128];
    snprintf(text, sizeof text, "cannot read back %s", what);
    return fail(r, PL_ERR_INPUT, r->path, text);
}

/* A read that failed (not the content): an error of its own, never taken for a run to recompute. */
static pl_status read_error(reader *r, const char *file, int e)
{
    char text[128];
    snprintf(text, sizeof text, "cannot read: %s", e ? strerror(e) : "read error");
    return fail(r, e == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, file, text);
}

/* A file of the run, read once: its bytes hashed as they are read. */
typedef struct {
    int fd;
    char path[PATH_MAX]; /* DIR/NAME, for messages */
    pl_hash hash;
    int error;           /* the errno of a read that failed, or 0 */
} run_file;

/* Open DIR/name relative to the directory dir_fd: absent, a link or not a regular file (a FIFO
 * would block) is not a run to reuse; another failure is a read error. */
static pl_status open_run_file(reader *r, int dir_fd, const char *dir, const char *name, run_file *f)
{
    f->fd = -1;
    f->error = 0;
    pl_hash_begin(&f->hash);
    if (snprintf(f->path, sizeof f->path, "%s/%s", dir, name) >= (int)sizeof f->path)
        return bad(r, name);
    f->fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (f->fd < 0)
        return errno == ENOENT || errno == ELOOP ? bad(r, name) : read_error(r, f->path, errno);
    int stat_failed = fstat(f->fd, &st) != 0;
    if (stat_failed || !S_ISREG(st.st_mode)) {
        int e = stat_failed ? errno : 0;
        close(f->fd);
        f->fd = -1;
        return e ? read_error(r, f->path, e) : fail(r, PL_ERR_INPUT, f->path, "not a regular file");
    }
    return PL_OK;
}

/* read(2) into buf, hashed; (size_t)-1 on a read error (recorded), 0 at the end. */
static size_t read_hashed(void *buf, size_t len, void *data)
{
    run_file *f = data;
    for (;;) {
        ssize_t got = read(f->fd, buf, len);
        if (got >= 0) {
            pl_hash_add(&f->hash, buf, (size_t)got);
            return (size_t)got;
        }
        if (errno != EINTR) {
            f->error = errno;
            return (size_t)-1;
        }
    }
}

/* The file read whole has the content hash recorded (want; NULL: none to check): else the run is
 * not the one penlim wrote (changed, or swapped with another's since). */
static pl_status check_hash(reader *r, const run_file *f, const char *want)
{
    char got[PL_HASH_LEN], what[128];
    pl_hash_text(&f->hash, got);
    if (r->bad || !want || strcmp(got, want) == 0)
        return r->bad ? r->status : PL_OK;
    snprintf(what, sizeof what, "has changed since penlim wrote it (content hash %s, recorded %.16s)", got, want);
    return fail(r, PL_ERR_INPUT, f->path, what);
}

/* A number, or null (NAN): what pl_json_number writes. */
static double number(reader *r, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        return json_number_value(v);
    if (!json_is_null(v))
        bad(r, key);
    return NAN;
}

/* The same for a key that older files lack: NAN if absent. */
static double optional_number(reader *r, const json_t *o, const char *key)
{
    return json_object_get(o, key) ? number(r, o, key) : NAN;
}

static long integer(reader *r, const json_t *o, const char *key, long lo, long hi)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        bad(r, key);
        return lo;
    }
    return (long)json_integer_value(v);
}

static void vector(reader *r, const json_t *o, const char *key, double *x, size_t n)
{
    const json_t *a = json_object_get(o, key);
    if (!json_is_array(a) || json_array_size(a) != n) {
        bad(r, key);
        return;
    }
    for (size_t j = 0; j < n; j++) {
        const json_t *v = json_array_get(a, j);
        x[j] = json_is_number(v) ? json_number_value(v) : NAN;
        if (!json_is_number(v) && !json_is_null(v))
            bad(r, key);
    }
}

static pl_status read_episodes(reader *r, const json_t *a, pl_solution *sol)
{
    if (!json_is_array(a))
        return bad(r, "episodes");
    for (size_t k = 0; k < json_array_size(a) && !r->bad; k++) {
        const json_t *o = json_array_get(a, k);
        if (!json_is_object(o))
            return bad(r, "episodes");
        pl_episode *ep;
        long c = integer(r, o, "constraint", 1, (long)sol->m);
        if (r->bad || pl_solution_add_episode(sol, (size_t)c - 1, number(r, o, "t_in"), &ep, r->err) != PL_OK)
            return bad(r, "episodes");
        ep->t_out = number(r, o, "t_out");
        ep->t_in_resolution = optional_number(r, o, "t_in_resolution");
        ep->t_out_resolution = optional_number(r, o, "t_out_resolution");
        ep->gdot_in = number(r, o, "gdot_in");
        ep->gdot_out = number(r, o, "gdot_out");
        ep->max_penetration = number(r, o, "max_penetration");
        ep->t_max_penetration = number(r, o, "t_max_penetration");
        ep->impulse = number(r, o, "impulse");
        ep->gamma_in = number(r, o, "gamma_in");
        ep->gamma_out = number(r, o, "gamma_out");
        ep->row_in = (size_t)integer(r, o, "row_in", 0, (long)sol->traj.nrows - 1);
        ep->row_out = (size_t)integer(r, o, "row_out", 0, (long)sol->traj.nrows - 1);
        ep->steps = (size_t)integer(r, o, "steps", 0, 1L << 62);
    }
    return r->bad ? r->status : PL_OK;
}

static pl_status read_events(reader *r, const json_t *a, pl_solution *sol)
{
    if (!json_is_array(a))
        return bad(r, "events");
    for (size_t k = 0; k < json_array_size(a) && !r->bad; k++) {
        const json_t *o = json_array_get(a, k);
        const char *name = json_string_value(json_object_get(o, "kind"));
        pl_event_kind kind = PL_EVENT_KINDS;
        for (int j = 0; name && j < PL_EVENT_KINDS; j++)
            if (strcmp(name, pl_event_kind_name((pl_event_kind)j)) == 0)
                kind = (pl_event_kind)j;
        if (kind == PL_EVENT_KINDS)
            return bad(r, "events");
        double t = number(r, o, "t");
        size_t constraint = (size_t)integer(r, o, "constraint", 1, (long)sol->m) - 1;
        pl_event *e; /* filled in place: a solution read badly is released whole */
        if (r->bad || pl_solution_new_event(sol, kind, t, constraint, &e, r->err) != PL_OK)
            return bad(r, "events");
        vector(r, o, "q", e->q, sol->n);
        vector(r, o, "v_before", e->v_before, sol->n);
        vector(r, o, "v_after", e->v_after, sol->n);
        e->gdot_before = number(r, o, "gdot_before");
        e->t_resolution = optional_number(r, o, "t_resolution");
        e->gdot_after = number(r, o, "gdot_after");
        e->gamma_before = number(r, o, "gamma_before");
        e->gamma_after = number(r, o, "gamma_after");
        if (kind == PL_EVENT_IMPACT) {
            const json_t *parts = json_object_get(o, "constraints");
            if (!json_is_array(parts))
                return bad(r, "events");
            for (size_t j = 0; j < json_array_size(parts); j++) {
                const json_t *c = json_array_get(parts, j);
                if (!json_is_integer(c) || json_integer_value(c) < 1 || json_integer_value(c) > (json_int_t)sol->m)
                    return bad(r, "events");
                e->participants[json_integer_value(c) - 1] = 1;
            }
            vector(r, o, "impulse", e->impulse, sol->m);
            if (json_object_get(o, "fast_exit_time"))
                e->s_exit = number(r, o, "fast_exit_time");
        }
        if (r->bad)
            return bad(r, "events");
    }
    return r->bad ? r->status : PL_OK;
}

static void read_stats(reader *r, const json_t *o, pl_solution *sol)
{
    const struct {
        const char *name;
        long *field;
    } counters[] = {{"steps", &sol->stats.steps}, {"rhs_evals", &sol->stats.rhs_evals},
                    {"jac_evals", &sol->stats.jac_evals}, {"root_evals", &sol->stats.root_evals},
                    {"error_test_fails", &sol->stats.error_test_fails},
                    {"nonlin_conv_fails", &sol->stats.nonlin_conv_fails}, {"restarts", &sol->stats.restarts},
                    {"recovered_crossings", &sol->stats.recovered_crossings}, {"fast_steps", &sol->stats.fast_steps},
                    {"lcp_solves", &sol->stats.lcp_solves}, {"lcp_iterations", &sol->stats.lcp_iterations},
                    {"gap_evals", &sol->stats.gap_evals}, {"neighbour_rebuilds", &sol->stats.neighbour_rebuilds},
                    {"state_size", &sol->stats.state_size}};
    if (!json_is_object(o)) {
        bad(r, "stats");
        return;
    }
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++)
        if (json_object_get(o, counters[k].name))
            *counters[k].field = integer(r, o, counters[k].name, 0, 1L << 62);
    sol->stats.wall_seconds = number(r, o, "wall_seconds");
}

static pl_status read_trajectory(reader *r, int dir_fd, const char *dir, const char *want, pl_solution *sol)
{
    run_file tf;
    if (open_run_file(r, dir_fd, dir, "trajectory.csv", &tf) != PL_OK)
        return r->status;
    const char *path = tf.path;
    FILE *f = fdopen(tf.fd, "r");
    if (!f) {
        int e = errno;
        close(tf.fd);
        return read_error(r, path, e);
    }
    size_t ncol = sol->traj.ncol, m_cols = sol->contacts == PL_CONTACTS_DENSE ? sol->m : 0;
    char *header = pl_trajectory_header(sol->n, m_cols, pl_solver_can(sol->solver, PL_SOLVER_STEP_IMPULSES));
    double *row = malloc(ncol * sizeof *row);
    if (!header || !row) {
        free(header);
        free(row);
        fclose(f);
        return read_error(r, path, ENOMEM);
    }
    char *line = NULL;
    size_t cap = 0;
    errno = 0;
    ssize_t len = getline(&line, &cap, f);
    if (len > 0)
        pl_hash_add(&tf.hash, line, (size_t)len);
    int ok = len > 0 && line[len - 1] == '\n' && (line[len - 1] = '\0', pl_header_matches(line, header)), no_memory = 0;
    while (ok && (errno = 0, len = getline(&line, &cap, f)) > 0) {
        pl_hash_add(&tf.hash, line, (size_t)len);
        ok = line[len - 1] == '\n';
        char *p = line;
        for (size_t c = 0; ok && c < ncol; c++) {
            char *end;
            row[c] = strtod(p, &end);
            ok = end != p && *end == (c + 1 < ncol ? ',' : '\n');
            p = end + 1;
        }
        pl_status appended = ok ? pl_solution_append_state(sol, row, r->err) : PL_OK;
        if (appended == PL_OK && ok && m_cols) /* dense: the G and force columns as read */
            memcpy(pl_table_row(&sol->traj, sol->traj.nrows - 1), row, ncol * sizeof *row);
        if (appended != PL_OK)
            ok = 0, no_memory = appended == PL_ERR_NOMEM; /* else the --max-output cap: not a run to reuse */
    }
    /* getline's -1: the end of the file, or a read error (out of memory sets no error flag) */
    int failed = len < 0 && (ferror(f) || !feof(f)), saved = errno;
    free(line);
    free(header);
    free(row);
    fclose(f);
    if (failed || no_memory)
        return read_error(r, path, no_memory ? ENOMEM : saved);
    if (!ok)
        return bad(r, "trajectory.csv");
    return check_hash(r, &tf, want);
}

/* A whole number in [lo, hi] at *p followed by `end`: into *x; 0 if there is none. */
static int index_field(char **p, size_t lo, size_t hi, char end, size_t *x)
{
    char *s = *p;
    *x = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t d = (size_t)(*s - '0');
        if (d > hi || *x > (hi - d) / 10)
            return 0; /* beyond hi (hi - d taken only where it cannot wrap) */
        *x = 10 * *x + d;
    }
    if (*s != end || *x < lo)
        return 0;
    *p = s + 1;
    return 1;
}

/* A number at *p followed by `end` (strtod's syntax): into *x; 0 if there is none. */
static int number_field(char **p, double *x, char end)
{
    char *e;
    *x = strtod(*p, &e);
    if (e == *p || *e != end)
        return 0;
    *p = e + 1;
    return 1;
}

/* One line of contacts.csv against the trajectory read: its row (0-based), constraint and values,
 * or the problem (a static text). */
static const char *contact_line(char *line, const pl_solution *sol, size_t *row, pl_contact_entry *e)
{
    char *p = line;
    double t;
    size_t r, i;
    if (sol->traj.nrows == 0 || !index_field(&p, 0, sol->traj.nrows - 1, ',', &r))
        return "a row that is not one of trajectory.csv's (0 the first)";
    if (!number_field(&p, &t, ','))
        return "no time t";
    if (t != pl_table_row(&sol->traj, r)[0])
        return "a time t that is not its row's in trajectory.csv";
    if (!index_field(&p, 1, sol->m, ',', &i))
        return "a constraint outside 1 ... m";
    if (!number_field(&p, &e->g, ',') || !number_field(&p, &e->force, '\n'))
        return "no G or no force (5 fields)";
    if (!pl_contact_in(e->g, e->force))
        return "G > 0 with force 0: not a contact";
    *row = r;
    e->constraint = i - 1;
    return NULL;
}

/* contacts.csv of a solution with sparse contacts, its trajectory read: every line checked
 * (contact_line; rows non-decreasing and constraints increasing within a row). */
static pl_status read_contacts(reader *r, int dir_fd, const char *dir, const char *want, pl_solution *sol)
{
    run_file cf;
    if (open_run_file(r, dir_fd, dir, "contacts.csv", &cf) != PL_OK)
        return r->status;
    const char *path = cf.path;
    FILE *f = fdopen(cf.fd, "r");
    if (!f) {
        int e = errno;
        close(cf.fd);
        return read_error(r, path, e);
    }
    char *header = pl_contacts_header(pl_solver_can(sol->solver, PL_SOLVER_STEP_IMPULSES)), *line = NULL;
    size_t cap = 0, count = 0, list_cap = 0, line_no = 1, *rows = NULL;
    pl_contact_entry *list = NULL;
    const char *problem = NULL;
    int no_memory = !header;
    errno = 0;
    ssize_t len = no_memory ? -1 : getline(&line, &cap, f);
    if (len > 0)
        pl_hash_add(&cf.hash, line, (size_t)len);
    if (!no_memory && !(len > 0 && line[len - 1] == '\n' && (line[len - 1] = '\0', pl_header_matches(line, header))))
        problem = "not its header (row,t,constraint,G,force or impulse)";
    while (!problem && !no_memory && (errno = 0, len = getline(&line, &cap, f)) > 0) {
        pl_hash_add(&cf.hash, line, (size_t)len);
        line_no++;
        if (count == list_cap) {
            list_cap = list_cap ? 2 * list_cap : 256;
            pl_contact_entry *l = realloc(list, list_cap * sizeof *l);
            size_t *rs = l ? realloc(rows, list_cap * sizeof *rs) : NULL;
            if (l)
                list = l;
            if (rs)
                rows = rs;
            if (!l || !rs) {
                no_memory = 1;
                break;
            }
        }
        if ((problem = contact_line(line, sol, &rows[count], &list[count])) == NULL && count > 0 &&
            (rows[count] < rows[count - 1] ||
             (rows[count] == rows[count - 1] && list[count].constraint <= list[count - 1].constraint)))
            problem = "out of order (rows increasing, and constraints within a row)";
        count++;
    }
    int failed = len < 0 && (ferror(f) || !feof(f)), saved = errno;
    free(line);
    free(header);
    fclose(f);
    pl_status s = PL_OK;
    if (failed || no_memory)
        s = read_error(r, path, no_memory ? ENOMEM : saved);
    else if (problem) {
        char what[160];
        snprintf(what, sizeof what, "line %zu: %s", line_no, problem);
        s = fail(r, PL_ERR_INPUT, path, what);
    } else if ((s = pl_solution_set_contact_list(sol, rows, list, count, r->err)) != PL_OK)
        s = s == PL_ERR_NOMEM ? read_error(r, path, ENOMEM) : fail(r, PL_ERR_INPUT, path, "contacts out of order");
    free(rows);
    free(list);
    return s != PL_OK ? s : check_hash(r, &cf, want);
}

/* summary.json, parsed as it is read (NULL if it could not be: r says why). */
static json_t *read_summary(reader *r, int dir_fd, const char *dir, const char *want)
{
    run_file f;
    if (open_run_file(r, dir_fd, dir, "summary.json", &f) != PL_OK)
        return NULL;
    json_error_t je;
    json_t *o = json_load_callback(read_hashed, &f, JSON_REJECT_DUPLICATES, &je);
    unsigned char rest[4096]; /* what the parser left, if anything, belongs to the hash too */
    for (size_t got = 1; o && got != 0 && !f.error;)
        got = read_hashed(rest, sizeof rest, &f);
    close(f.fd);
    if (f.error)
        read_error(r, f.path, f.error);
    else if (!o && json_error_code(&je) == json_error_out_of_memory)
        read_error(r, f.path, ENOMEM);
    else if (o)
        check_hash(r, &f, want);
    if (r->bad) {
        json_decref(o);
        return NULL;
    }
    return o; /* NULL: not JSON, refused below as not a run */
}

static pl_status read_solution(int dir_fd, const char *dir, const pl_model *model, const pl_solver_type *solver,
                               int any_status, const pl_run_hashes *expect, pl_solution *sol, pl_error *err);

pl_status pl_read_solution(const char *dir, const pl_model *model, const pl_solver_type *solver, pl_solution *sol,
                           pl_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* the links of the path as given followed */
    if (fd < 0) {
        int e = errno;
        pl_status init = pl_solution_init(sol, solver, model, NAN, err);
        if (init != PL_OK)
            return init;
        return pl_fail(err, e == ENOMEM ? PL_ERR_NOMEM : e == ENOENT || e == ENOTDIR ? PL_ERR_INPUT : PL_ERR_IO,
                       "%s: cannot read back the run: %s", dir, strerror(e));
    }
    pl_status s = read_solution(fd, dir, model, solver, 0, NULL, sol, err);
    close(fd);
    return s;
}

pl_status pl_read_solution_at(int dir_fd, const char *dir, const pl_model *model, const pl_solver_type *solver,
                              const pl_run_hashes *expect, pl_solution *sol, pl_error *err)
{
    return read_solution(dir_fd, dir, model, solver, 0, expect, sol, err);
}

pl_status pl_read_solution_any_at(int dir_fd, const char *dir, const pl_model *model, const pl_solver_type *solver,
                                  pl_solution *sol, pl_error *err)
{
    return read_solution(dir_fd, dir, model, solver, 1, NULL, sol, err);
}

static pl_status read_solution(int dir_fd, const char *dir, const pl_model *model, const pl_solver_type *solver,
                               int any_status, const pl_run_hashes *expect, pl_solution *sol, pl_error *err)
{
    pl_status init = pl_solution_init(sol, solver, model, NAN, err);
    if (init != PL_OK)
        return init;
    char path[PATH_MAX];
    reader r = {path, err, 0, PL_OK};
    if (snprintf(path, sizeof path, "%s/summary.json", dir) >= (int)sizeof path)
        return bad(&r, "the run");
    json_t *o = read_summary(&r, dir_fd, dir, expect ? expect->summary : NULL);
    const char *cs = json_string_value(json_object_get(o, "case"));
    const char *ss = json_string_value(json_object_get(o, "solution"));
    const char *st = json_string_value(json_object_get(o, "status"));
    const char *why = json_string_value(json_object_get(o, "error")); /* a failed run's reason */
    int failed = st && strcmp(st, "failed") == 0 && why && *why;
    if (r.bad || !json_is_object(o) || !cs || strcmp(cs, model->type->name) != 0 || !ss ||
        strcmp(ss, solver->name) != 0 || !st || (strcmp(st, "ok") != 0 && !(any_status && failed))) {
        json_decref(o);
        if (!r.bad)
            bad(&r, "a complete run of this case and solver");
        pl_solution_free(sol);
        pl_solution_init(sol, solver, model, NAN, NULL);
        return r.status;
    }
    const json_t *params = json_object_get(o, "parameters");
    for (size_t k = 0; k < model->type->nparams; k++) {
        if (!pl_model_parameter_applies(model, k))
            continue;
        double x = number(&r, params, model->type->params[k].name);
        if (x != model->par[k] && !(isnan(x) && isnan(model->par[k]))) /* a derived one left unset: null */
            bad(&r, "the parameters");
    }
    sol->t_end = number(&r, o, "t_end");
    const json_t *samples = json_object_get(o, "samples"); /* absent or null: not known (older files) */
    if (json_is_integer(samples) && json_integer_value(samples) >= 0)
        sol->samples = (size_t)json_integer_value(samples);
    else if (samples && !json_is_null(samples))
        bad(&r, "samples (a count of rows, or null)");
    for (size_t k = 0; k < solver->noptions; k++)
        sol->option[k] = number(&r, o, solver->options[k].name);
    if (pl_solver_can(solver, PL_SOLVER_FIXED_STEP))
        sol->step_size = number(&r, o, "h_used");
    read_stats(&r, json_object_get(o, "stats"), sol);
    const json_t *fin = json_object_get(o, "final");
    sol->t_final = number(&r, fin, "t");
    sol->gamma_final = number(&r, fin, "gamma");
    vector(&r, fin, "q", sol->q_final, sol->n);
    vector(&r, fin, "v", sol->v_final, sol->n);
    const char *contacts = json_string_value(json_object_get(o, "contacts")); /* absent: dense (older files) */
    if (json_object_get(o, "contacts") && (!contacts || (strcmp(contacts, "dense") && strcmp(contacts, "sparse"))))
        bad(&r, "contacts (dense or sparse)");
    pl_solution_set_contacts(sol, contacts && strcmp(contacts, "sparse") == 0 ? PL_CONTACTS_SPARSE : PL_CONTACTS_DENSE);
    if (!r.bad)
        read_trajectory(&r, dir_fd, dir, expect ? expect->trajectory : NULL, sol);
    if (!r.bad && sol->contacts == PL_CONTACTS_SPARSE && expect && !expect->contacts)
        bad(&r, "contacts.csv (no content hash recorded)");
    if (!r.bad && sol->contacts == PL_CONTACTS_SPARSE)
        read_contacts(&r, dir_fd, dir, expect ? expect->contacts : NULL, sol);
    if (!r.bad && pl_solver_can(solver, PL_SOLVER_EPISODES))
        read_episodes(&r, json_object_get(o, "episodes"), sol);
    if (!r.bad && pl_solver_can(solver, PL_SOLVER_EVENTS))
        read_events(&r, json_object_get(o, "events"), sol);
    const json_t *z = json_object_get(o, "zeno");
    if (!r.bad && pl_solver_can(solver, PL_SOLVER_ZENO) && json_is_object(z)) {
        sol->zeno.found = 1;
        sol->zeno.t_accumulation = number(&r, z, "t_accumulation");
        sol->zeno.constraint = (size_t)integer(&r, z, "constraint", 1, (long)sol->m) - 1;
        sol->zeno.impacts_resolved = (size_t)integer(&r, z, "impacts_resolved", 0, 1L << 62);
        sol->zeno.ratio = number(&r, z, "contraction_ratio");
        const json_t *state = json_object_get(z, "state");
        vector(&r, state, "q", sol->zeno.q, sol->n);
        vector(&r, state, "v", sol->zeno.v, sol->n);
    }
    const json_t *bt = json_object_get(o, "bounce_tail");
    if (!r.bad && pl_solver_can(solver, PL_SOLVER_ZENO) && json_is_object(bt)) {
        sol->tail.found = 1;
        sol->tail.constraint = (size_t)integer(&r, bt, "constraint", 1, (long)sol->m) - 1;
        sol->tail.t_start = number(&r, bt, "t_start");
        sol->tail.x_start = number(&r, bt, "x_start");
        sol->tail.impacts = number(&r, bt, "impacts");
        sol->tail.t_last = number(&r, bt, "t_last");
        sol->tail.speed_last = number(&r, bt, "speed_last");
        sol->tail.time_error = number(&r, bt, "time_error");
        sol->tail.speed_error = number(&r, bt, "speed_error");
    }
    if (!r.bad && failed) /* the message as written: one line, escaped already */
        pl_fail(&sol->error, PL_ERR_SOLVER, "%s", why);
    json_decref(o);
    if (r.bad) {
        pl_solution_free(sol);
        pl_solution_init(sol, solver, model, NAN, NULL); /* an empty solution, freeable whatever happens */
        return r.status;
    }
    sol->status = failed ? PL_ERR_SOLVER : PL_OK;
    return PL_OK;
}
