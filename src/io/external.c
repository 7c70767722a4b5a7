/* Reading an external trajectory (external.h).  The file is untrusted input: every field is
 * checked, and any content gives either a solution or one message naming the line and column. */
#include "io/external.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "solvers/solver.h"

const pl_solver_type pl_solver_external = {
    .name = "external",
    .summary = "a trajectory read from a CSV file",
    .family = PL_FAMILY_EXTERNAL,
    .capabilities = PL_SOLVER_EPISODES | PL_SOLVER_EVENTS,
};

/* The columns the reader uses: their positions in a line (0-based), -1 when absent. */
typedef struct {
    int t, gamma, *q, *v; /* q, v: n each */
    int last; /* the largest position used */
} columns;

typedef struct {
    const char *path;
    pl_error *err;
    char **field;
    size_t nfield, cap;
} reader;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
        s[--len] = '\0';
    return s;
}

/* Split line in place at commas into r->field (trimmed). */
static pl_status split(reader *r, char *line)
{
    size_t count = 1;
    for (const char *p = line; *p; p++)
        count += *p == ',';
    if (count > r->cap) {
        char **f = realloc(r->field, count * sizeof *f);
        if (!f)
            return pl_fail(r->err, PL_ERR_NOMEM, "%s: out of memory", r->path);
        r->field = f;
        r->cap = count;
    }
    r->nfield = 0;
    for (char *tok = line, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        r->field[r->nfield++] = trim(tok);
    }
    return PL_OK;
}

/* The columns a case with n degrees of freedom needs: "t, q1, v1" or "t, q1..q3, v1..v3". */
static const char *needed(size_t n, char *buf, size_t len)
{
    if (n == 1)
        snprintf(buf, len, "t, q1, v1");
    else
        snprintf(buf, len, "t, q1..q%zu, v1..v%zu", n, n);
    return buf;
}

/* A line as getline read it (len bytes): its line ending removed ("\n" or "\r\n"); a NUL byte or a
 * carriage return inside it is bad input, reported at its column. */
static pl_status check_line(reader *r, size_t line_no, char *line, size_t len)
{
    if (len > 0 && line[len - 1] == '\n')
        line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    size_t nul = strlen(line);
    if (nul < len)
        return pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%zu: a NUL byte (not a text file?)", r->path, line_no, nul + 1);
    const char *cr = strchr(line, '\r');
    if (cr)
        return pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%zu: a carriage return inside the line (line endings are \\n or \\r\\n)",
                       r->path, line_no, (size_t)(cr - line) + 1);
    return PL_OK;
}

/* getline returned -1 at line line_no: the end of the file, or a read error, which is never taken
 * for one (getline's out of memory sets no error flag on the stream: only feof tells them apart). */
static pl_status read_failure(reader *r, FILE *f, size_t line_no, int saved_errno)
{
    if (feof(f) && !ferror(f))
        return PL_OK;
    if (saved_errno == ENOMEM)
        return pl_fail(r->err, PL_ERR_NOMEM, "%s:%zu: out of memory reading the line", r->path, line_no);
    if (saved_errno == EISDIR)
        return pl_fail(r->err, PL_ERR_INPUT, "%s: is a directory, not a file", r->path);
    return pl_fail(r->err, PL_ERR_IO, "%s:%zu: cannot read: %s", r->path, line_no,
                   saved_errno ? strerror(saved_errno) : "read error");
}

/* "q12" -> 12 for prefix 'q' (no sign, no leading zero), else 0. */
static long indexed_name(const char *name, char prefix)
{
    if (name[0] != prefix || name[1] < '1' || name[1] > '9' || strlen(name) > 6)
        return 0;
    long k = 0;
    for (const char *p = name + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        k = 10 * k + (*p - '0');
    }
    return k;
}

static pl_status parse_header(reader *r, size_t n, columns *c)
{
    c->t = c->gamma = -1;
    c->last = 0;
    for (size_t j = 0; j < n; j++)
        c->q[j] = c->v[j] = -1;
    double x;
    char need[64];
    if (r->nfield > 0 && pl_parse_double(r->field[0], &x, NULL, "") == PL_OK)
        return pl_fail(r->err, PL_ERR_INPUT, "%s:1:1: no header line (the first line must name the columns: %s)", r->path,
                       needed(n, need, sizeof need));
    for (size_t f = 0; f < r->nfield; f++) {
        const char *name = r->field[f];
        if (!*name)
            return pl_fail(r->err, PL_ERR_INPUT, "%s:1:%zu: empty column name in the header", r->path, f + 1);
        int *slot = NULL;
        long kq = indexed_name(name, 'q'), kv = indexed_name(name, 'v'), k = kq ? kq : kv;
        if (strcmp(name, "t") == 0)
            slot = &c->t;
        else if (strcmp(name, "gamma") == 0)
            slot = &c->gamma;
        else if (k > 0 && (size_t)k > n)
            return pl_fail(r->err, PL_ERR_INPUT, "%s:1:%zu: column '%s', but the case has %zu degree%s of freedom", r->path,
                           f + 1, name, n, n == 1 ? "" : "s");
        else if (k > 0)
            slot = kq ? &c->q[k - 1] : &c->v[k - 1];
        if (!slot)
            continue; /* another column: ignored */
        if (*slot >= 0)
            return pl_fail(r->err, PL_ERR_INPUT, "%s:1:%zu: column '%s' given twice (also column %d)", r->path, f + 1,
                           name, *slot + 1);
        *slot = (int)f;
        if ((int)f > c->last)
            c->last = (int)f;
    }
    const char *missing = c->t < 0 ? "t" : NULL;
    char name[32];
    for (size_t j = 0; !missing && j < n; j++)
        if (c->q[j] < 0 || c->v[j] < 0) {
            snprintf(name, sizeof name, "%c%zu", c->q[j] < 0 ? 'q' : 'v', j + 1);
            missing = name;
        }
    if (missing)
        return pl_fail(r->err, PL_ERR_INPUT, "%s:1: the header has no column '%s' (needed: %s)", r->path, missing,
                       needed(n, need, sizeof need));
    return PL_OK;
}

/* The value of column position `col` (named `name`) on line `line`. */
static pl_status field_value(reader *r, size_t line, int col, const char *name, double *x)
{
    if ((size_t)col >= r->nfield)
        return pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%d: no value for column '%s' (the line has %zu field%s)", r->path,
                       line, col + 1, name, r->nfield, r->nfield == 1 ? "" : "s");
    pl_error e;
    if (pl_parse_double(r->field[col], x, &e, name) != PL_OK)
        return pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%d: %s", r->path, line, col + 1, e.message);
    return PL_OK;
}

static int compare_events(const void *pa, const void *pb)
{
    const pl_event *a = pa, *b = pb;
    if (a->t != b->t)
        return (a->t > b->t) - (a->t < b->t);
    return (a->kind > b->kind) - (a->kind < b->kind); /* an impact before the contact it starts */
}

/* The scratch of derive_events. */
typedef struct {
    double *fp; /* n */
    pl_gap *gap;
    const char *path;
} event_work;

/* The gap rates of constraint i with the state of row r0 and the velocities of rows r0 and r1. */
static void gap_rates(const pl_model *model, const pl_solution *sol, event_work *w, size_t i, size_t r0, size_t r1,
                      double *before, double *after)
{
    size_t n = sol->n, m = sol->m;
    const double *a = pl_table_row(&sol->traj, r0), *b = pl_table_row(&sol->traj, r1);
    pl_model_velocity_map(model, a[0], a + pl_col_q(n, m), a + pl_col_v(n, m), w->fp, NULL, NULL, NULL);
    *before = pl_model_gap_rate(model, i, a[0], a + pl_col_q(n, m), w->fp, w->gap);
    pl_model_velocity_map(model, a[0], a + pl_col_q(n, m), b + pl_col_v(n, m), w->fp, NULL, NULL, NULL);
    *after = pl_model_gap_rate(model, i, a[0], a + pl_col_q(n, m), w->fp, w->gap);
}

/* Append the event of kind of constraint i from row r0 (time, state) to row r1 (velocity after). */
static pl_status add_event(const pl_model *model, pl_solution *sol, event_work *w, pl_event_kind kind, size_t i,
                           size_t r0, size_t r1, pl_error *err)
{
    size_t n = sol->n, m = sol->m;
    const double *a = pl_table_row(&sol->traj, r0), *b = pl_table_row(&sol->traj, r1);
    pl_event *ev;
    pl_status s = pl_solution_new_event(sol, kind, a[0], i, &ev, err);
    if (s != PL_OK)
        return s;
    ev->participants[i] = 1;
    memcpy(ev->q, a + pl_col_q(n, m), n * sizeof *a);
    memcpy(ev->v_before, a + pl_col_v(n, m), n * sizeof *a);
    memcpy(ev->v_after, b + pl_col_v(n, m), n * sizeof *b);
    ev->gamma_before = a[1];
    ev->gamma_after = b[1];
    gap_rates(model, sol, w, i, r0, r1, &ev->gdot_before, &ev->gdot_after);
    if (!isfinite(ev->gdot_before) || !isfinite(ev->gdot_after))
        return pl_fail(err, PL_ERR_INPUT, "%s: the gap rate of constraint %zu at t = %.17g is not a finite number",
                       w->path, i + 1, a[0]);
    return PL_OK;
}

/* Impacts (blocks of rows at one t with a velocity jump) and sustained contacts, in time order. */
static pl_status derive_events_with(const pl_model *model, pl_solution *sol, event_work *w, pl_error *err)
{
    size_t n = sol->n, m = sol->m, rows = sol->traj.nrows;
    pl_status s = PL_OK;
    for (size_t r = 0; s == PL_OK && r < rows;) {
        size_t e = r;
        while (e + 1 < rows && pl_table_row(&sol->traj, e + 1)[0] == pl_table_row(&sol->traj, r)[0])
            e++;
        const double *a = pl_table_row(&sol->traj, r), *b = pl_table_row(&sol->traj, e);
        if (e > r && memcmp(a + pl_col_v(n, m), b + pl_col_v(n, m), n * sizeof *a) != 0) {
            /* the constraint whose gap rate the jump changes most */
            size_t best = 0;
            double most = -1.0;
            for (size_t i = 0; i < m; i++) {
                double before, after;
                gap_rates(model, sol, w, i, r, e, &before, &after);
                double change = fabs(after - before);
                if (change > most) {
                    most = change;
                    best = i;
                }
            }
            s = add_event(model, sol, w, PL_EVENT_IMPACT, best, r, e, err);
        }
        r = e + 1;
    }
    double V = model->v_scale, A = model->a_scale, tol_g = 1e-6 * V * V / A, tol_v = 1e-6 * V;
    for (size_t i = 0; s == PL_OK && i < m; i++) {
        size_t start = 0;
        int in_run = 0;
        for (size_t r = 0; s == PL_OK && r <= rows; r++) {
            int in = 0;
            if (r < rows) {
                const double *row = pl_table_row(&sol->traj, r);
                pl_model_velocity_map(model, row[0], row + pl_col_q(n, m), row + pl_col_v(n, m), w->fp, NULL, NULL,
                                      NULL);
                double gdot = pl_model_gap_rate(model, i, row[0], row + pl_col_q(n, m), w->fp, w->gap);
                in = fabs(w->gap->g) <= tol_g && fabs(gdot) <= tol_v;
            }
            if (in && !in_run)
                start = r;
            else if (!in && in_run && pl_table_row(&sol->traj, r - 1)[0] > pl_table_row(&sol->traj, start)[0]) {
                s = add_event(model, sol, w, PL_EVENT_SLIDE_START, i, start, start, err);
                if (s == PL_OK && r < rows)
                    s = add_event(model, sol, w, PL_EVENT_LIFT_OFF, i, r - 1, r - 1, err);
            }
            in_run = in;
        }
    }
    if (s == PL_OK && sol->nevents > 1)
        qsort(sol->events, sol->nevents, sizeof *sol->events, compare_events);
    return s;
}

static pl_status derive_events(const pl_model *model, pl_solution *sol, const char *path, pl_error *err)
{
    event_work w = {malloc(model->n * sizeof *w.fp), pl_gap_new(1, model->n, 0), path};
    pl_status s = w.fp && w.gap ? derive_events_with(model, sol, &w, err)
                                : pl_fail(err, PL_ERR_NOMEM, "out of memory deriving the events of a trajectory");
    free(w.fp);
    free(w.gap);
    return s;
}

/* Parse the data lines into sol's table (s = gamma, or filled in afterwards). */
static pl_status read_rows(reader *r, FILE *f, const pl_model *model, double t_end, const columns *c,
                           size_t header_fields, pl_solution *sol, size_t *line_no)
{
    size_t n = model->n, m = model->m, ncol = pl_ncols(n, m);
    size_t max_rows = (size_t)(PL_DEFAULT_MAX_OUTPUT / (double)sol->traj.ncol);
    char *line = NULL;
    size_t cap = 0;
    double *row = malloc(ncol * sizeof *row), prev_t = 0, prev_s = 0;
    pl_gap *g = pl_gap_new(1, n, 0);
    pl_status s = row && g ? PL_OK : pl_fail(r->err, PL_ERR_NOMEM, "%s: out of memory", r->path);
    char name[32];
    while (s == PL_OK) {
        errno = 0;
        ssize_t got = getline(&line, &cap, f);
        if (got < 0) {
            s = read_failure(r, f, *line_no + 1, errno);
            break;
        }
        (*line_no)++;
        if ((s = check_line(r, *line_no, line, (size_t)got)) != PL_OK)
            break;
        char *text = trim(line);
        if (!*text)
            continue; /* blank */
        if ((s = split(r, text)) != PL_OK)
            break;
        if (r->nfield > header_fields) {
            s = pl_fail(r->err, PL_ERR_INPUT, "%s:%zu: %zu fields, more than the header's %zu", r->path, *line_no,
                        r->nfield, header_fields);
            break;
        }
        memset(row, 0, ncol * sizeof *row);
        if ((s = field_value(r, *line_no, c->t, "t", &row[0])) != PL_OK)
            break;
        if (c->gamma >= 0 && (s = field_value(r, *line_no, c->gamma, "gamma", &row[1])) != PL_OK)
            break;
        for (size_t j = 0; s == PL_OK && j < n; j++) {
            snprintf(name, sizeof name, "q%zu", j + 1);
            s = field_value(r, *line_no, c->q[j], name, &row[pl_col_q(n, m) + j]);
            snprintf(name, sizeof name, "v%zu", j + 1);
            if (s == PL_OK)
                s = field_value(r, *line_no, c->v[j], name, &row[pl_col_v(n, m) + j]);
        }
        if (s != PL_OK)
            break;
        double t = row[0];
        if (!(t >= 0.0 && t <= t_end))
            s = pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%d: t = %.17g outside [0, t-end = %.17g]", r->path, *line_no,
                        c->t + 1, t, t_end);
        else if (sol->traj.nrows > 0 && t < prev_t)
            s = pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%d: t = %.17g decreases (the previous row has t = %.17g)", r->path,
                        *line_no, c->t + 1, t, prev_t);
        else if (c->gamma >= 0 && sol->traj.nrows > 0 && row[1] < prev_s)
            s = pl_fail(r->err, PL_ERR_INPUT, "%s:%zu:%d: gamma = %.17g decreases (the previous row has %.17g)", r->path,
                        *line_no, c->gamma + 1, row[1], prev_s);
        else if (sol->traj.nrows >= max_rows)
            s = pl_fail(r->err, PL_ERR_INPUT, "%s:%zu: more than %zu rows (the output cap, %g values)", r->path,
                        *line_no, max_rows, PL_DEFAULT_MAX_OUTPUT);
        if (s != PL_OK)
            break;
        for (size_t i = 0; s == PL_OK && i < m; i++) {
            pl_model_gap(model, i, t, row + pl_col_q(n, m), g);
            row[pl_col_g(n, m) + i] = g->g;
            if (!isfinite(g->g)) /* finite q, but beyond what the case's gap can be computed at */
                s = pl_fail(r->err, PL_ERR_INPUT, "%s:%zu: the gap G%zu of this row's positions is not a finite number",
                            r->path, *line_no, i + 1);
        }
        if (s != PL_OK)
            break;
        prev_t = t;
        prev_s = row[1];
        s = pl_solution_append_row(sol, row, r->err);
        if (s != PL_OK)
            s = pl_fail(r->err, PL_ERR_NOMEM, "%s:%zu: out of memory", r->path, *line_no);
    }
    free(line);
    free(row);
    free(g);
    return s;
}

/* FILE opened for reading if it is a regular file: a directory, a FIFO (which would block until
 * a writer came) or a device is bad input.  NULL with the reason in err: a file that cannot be
 * opened is bad input, unless for want of memory. */
static FILE *open_regular(const char *path, pl_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        pl_fail(err, PL_ERR_INPUT, "%s: not a regular file", path);
        return NULL;
    }
    FILE *f = fcntl(fd, F_SETFL, 0) == 0 ? fdopen(fd, "r") : NULL; /* blocking reads from here on */
    if (!f) {
        int saved = errno;
        close(fd);
        pl_fail(err, saved == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%s: cannot open: %s", path, strerror(saved));
    }
    return f;
}

pl_status pl_read_external(const char *path, const pl_model *model, double t_end, pl_contacts_mode contacts,
                           pl_solution *sol, int *has_gamma, pl_error *err)
{
    *has_gamma = 0;
    pl_status s = pl_solution_init(sol, &pl_solver_external, model, t_end, err);
    if (s != PL_OK)
        return s;
    pl_solution_set_contacts(sol, contacts); /* the gaps derived from the rows, stored as a run's */
    size_t n = model->n, m = model->m;
    reader r = {.path = path, .err = err};
    columns c = {.q = malloc(2 * n * sizeof *c.q)};
    if (!c.q)
        return pl_fail(err, PL_ERR_NOMEM, "%s: out of memory", path);
    c.v = c.q + n;
    FILE *f = open_regular(path, err);
    if (!f) {
        free(c.q);
        return err ? err->status : PL_ERR_INPUT;
    }
    char *line = NULL;
    size_t cap = 0, line_no = 1;
    errno = 0;
    char need[64];
    ssize_t got = getline(&line, &cap, f);
    char *head = line;
    if (got < 0 && (s = read_failure(&r, f, 1, errno)) == PL_OK)
        s = pl_fail(err, PL_ERR_INPUT, "%s:1: empty file (expected a header line: %s)", path,
                    needed(n, need, sizeof need));
    else if (got >= 0 && (s = check_line(&r, 1, line, (size_t)got)) == PL_OK) {
        if (strncmp(head, "\xEF\xBB\xBF", 3) == 0)
            head += 3; /* a UTF-8 byte order mark: not part of the first column's name */
        if ((s = split(&r, head)) == PL_OK && (s = parse_header(&r, n, &c)) == PL_OK)
            s = read_rows(&r, f, model, t_end, &c, r.nfield, sol, &line_no);
    }
    free(line);
    fclose(f);
    size_t rows = sol->traj.nrows;
    if (s == PL_OK && rows < 2)
        s = pl_fail(err, PL_ERR_INPUT, "%s:%zu: %zu data row%s: at least 2 are needed", path, line_no, rows,
                    rows == 1 ? "" : "s");
    else if (s == PL_OK && !(pl_table_row(&sol->traj, rows - 1)[0] > pl_table_row(&sol->traj, 0)[0]))
        s = pl_fail(err, PL_ERR_INPUT, "%s:%zu: every row has t = %.17g: no time span", path, line_no,
                    pl_table_row(&sol->traj, 0)[0]);
    if (s == PL_OK && c.gamma < 0) {
        /* The schemes' discrete Gamma: t plus the accumulated velocity jumps. */
        double jumps = 0.0;
        for (size_t k = 0; k < rows; k++) {
            double *row = pl_table_row(&sol->traj, k);
            const double *prev = k > 0 ? pl_table_row(&sol->traj, k - 1) : NULL;
            if (prev && row[0] == prev[0]) {
                double jump = 0.0; /* |v_after - v_before|, without overflow in the squares */
                for (size_t j = 0; j < n; j++)
                    jump = hypot(jump, row[pl_col_v(n, m) + j] - prev[pl_col_v(n, m) + j]);
                jumps += jump;
            }
            row[1] = row[0] + jumps;
            if (!isfinite(row[1])) {
                s = pl_fail(err, PL_ERR_INPUT,
                            "%s: the velocity jumps up to t = %.17g add up to more than %g: the time transform "
                            "Gamma (t plus the jumps) is not a finite number",
                            path, row[0], DBL_MAX);
                break;
            }
        }
    }
    *has_gamma = s == PL_OK && c.gamma >= 0;
    if (s == PL_OK)
        s = derive_events(model, sol, path, err);
    free(r.field);
    free(c.q);
    if (s != PL_OK)
        return s;
    const double *last = pl_table_row(&sol->traj, rows - 1);
    sol->t_final = last[0];
    sol->gamma_final = last[1];
    memcpy(sol->q_final, last + pl_col_q(n, m), n * sizeof *last);
    memcpy(sol->v_final, last + pl_col_v(n, m), n * sizeof *last);
    sol->status = PL_OK;
    sol->stats.wall_seconds = NAN; /* not computed here */
    return PL_OK;
}
