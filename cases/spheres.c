/* Bernicot and Lefebvre-Lepot, section 4 ("Application to the modelling of inelastic collisions"):
 * rigid particles that must not overlap, here N disks in the plane inside a rectangular box
 * [0, W] x [0, H] (the paper's spheres live in R^3; the projection and the constraints are the same
 * in R^2).  q = (x_1, y_1, ..., x_N, y_N), M = diag(m_1, m_1, ..., m_N, m_N) (their Remark 4.1),
 * gravity g along -y, radii r_i(t) = r_i + rdot t (their time-dependent radii at the end of section
 * 4).  Constraints, pairs first, then each disk's four walls:
 *
 *   k < N(N-1)/2, pair (a, b), a < b in lexicographic order:
 *       G = |q_a - q_b| - r_a(t) - r_b(t)       (the paper's D_ij; grad G = (.., -e, .., e, ..),
 *                                                 e = (q_b - q_a)/|q_b - q_a|, their G_ij)
 *   N(N-1)/2 + 4a + w, disk a against wall w = 0 left, 1 right, 2 floor, 3 ceiling:
 *       x_a - r_a(t),  W - x_a - r_a(t),  y_a - r_a(t),  H - y_a - r_a(t)
 *
 * so a box of 12 disks has 66 + 48 = 114 constraints.  Every G is convex in q (a distance minus a
 * function of t, or affine), so Maury's scheme keeps every iterate admissible (their Prop. 2.1), and
 * G_t = -(rdot_a + rdot_b) (or -rdot) enters the admissible velocities of their (1.7); the printed
 * C_{t,q} of section 4 omits it.
 *
 * Per-disk data come from one of three layouts (`config`) and a few scalars:
 *   1  head-on pair: two disks of radius r on y = H/2 at x = W/2 -/+ 1.5 (centres 3 apart), the
 *      second raised by b, moving toward each other at v each (b = 0, v = 1, r = 0.5: contact at
 *      t = 1, both at rest after it when e = 0);
 *   2  growing pair: two disks of radius r = 0.25 at rest at x = W/2 -/+ 0.5, growing at rdot = 0.1:
 *      contact at t = 2.5, then pushed apart at 0.1 each;
 *   3  box: N disks (12) of radii r (1 + dr s_i), s_i = 2 frac(0.618034 i) - 1 (i = 0..N-1, a fixed
 *      spread in [-1, 1), so that no two disks are alike), on ceil(N/c) rows of c = cols disks
 *      (default N: one row), column j of row k at x = (j + 1/2) W/c + (-1)^k 0.1 r,
 *      y = (1.5 + 3k) r (1 + dr), moving at v (0.5) along the direction 2.4 i + 0.5 (radians), in a
 *      box of 0.25 c by 0.3 rows + 0.2.
 * The decision: presets plus scalar overrides rather than per-disk parameters, since a case has at
 * most 32 parameters; the presets reproduce the test problems of the notes on the paper (T3, T5) and
 * a box that settles under gravity (--set g=9.81).  The box is one row by default: with stacked rows
 * the limit solution meets cascades of impacts it does not follow to the end (docs/cases.md).  The
 * walls of the pairs' 8 x 4 box take no part up to t = 4 at the defaults only (docs/cases.md, Walls:
 * m1 = 2, e = 0.5 sends disk 2 to the right wall at t = 4).  Disks that grow until they no longer fit
 * make a t-end beyond that time bad input (valid_until). */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "core/number.h"

enum { CONFIG, NDISK, COLS, RADIUS, RDOT, SPREAD, MASS, MASS1, VEL, OFFSET, G_ACC, WIDTH, HEIGHT, E, XI, K, NPAR };

enum { HEAD_ON = 1, GROWING = 2, BOX = 3 };

static const pl_param_spec params[NPAR] = {
    {"config", 1.0, 1.0, 3.0, 0, "layout: 1 head-on pair (T3), 2 growing pair (T5), 3 box of N disks"},
    {"N", NAN, 1.0, 10000.0, PL_PARAM_DERIVED, "number of disks (config 3, at most 10000: N(N - 1)/2 + 4N constraints, "
     "a constraint for every pair; default 12; the pairs have 2); memory limits it: a penalized run holds some 1000 "
     "bytes per constraint and one n x n array of the case's mass matrix or Jacobians (8 n^2 bytes, n = 2N), "
     "2.1 GB at N = 2000, 8.5 GB at 4000 (5.1 GB measured for the whole run), 53 GB at 10000, and a model "
     "that would not fit in the machine's memory is refused naming the bytes; the analysis keeps an impact's "
     "participants as a list and a contact episode's velocity jump over its two disks (above 50 disks)"},
    {"cols", NAN, 1.0, 1000.0, PL_PARAM_DERIVED, "config 3: disks per row (default N: one row)"},
    {"r", NAN, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_DERIVED,
     "radius at t = 0 (default 0.5, 0.25, 0.08 for config 1, 2, 3)"},
    {"rdot", NAN, 0.0, INFINITY, PL_PARAM_DERIVED, "growth rate of every radius (default 0.1 for config 2, else 0)"},
    {"dr", NAN, 0.0, 1.0, PL_PARAM_MAX_OPEN | PL_PARAM_DERIVED,
     "relative spread of the radii in config 3: r (1 + dr (2 frac(0.618034 i) - 1)), i = 0..N-1 (default 0.25)"},
    {"m", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "mass of every disk"},
    {"m1", NAN, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_DERIVED, "mass of disk 1 (default m)"},
    {"v", NAN, 0.0, INFINITY, PL_PARAM_DERIVED,
     "initial speed: of each disk toward the other (config 1, default 1), of every disk (config 3, default 0.5)"},
    {"b", 0.0, -INFINITY, INFINITY, 0, "config 1: disk 2 raised by b (an oblique impact for 0 < |b| < 2r)"},
    {"g", 0.0, 0.0, INFINITY, 0, "gravity, along -y"},
    {"W", NAN, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_DERIVED,
     "width of the box (default 8 for the pairs, 0.25 cols for config 3)"},
    {"H", NAN, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_DERIVED,
     "height of the box (default 4 for the pairs, 0.3 rows + 0.2 for config 3)"},
    PL_LAW_PARAMS(0.0),
};

/* The value of a derived parameter: its setting, else the configuration's default. */
static double or_default(const double *p, int k, double pair_head_on, double pair_growing, double box)
{
    if (!isnan(p[k]))
        return p[k];
    int c = (int)p[CONFIG];
    return c == HEAD_ON ? pair_head_on : c == GROWING ? pair_growing : box;
}

static size_t disks(const double *p)
{
    return (size_t)or_default(p, NDISK, 2.0, 2.0, 12.0);
}

/* The box layout: rows of `cols` disks (one row of N by default). */
static size_t columns(const double *p)
{
    return isnan(p[COLS]) ? disks(p) : (size_t)p[COLS];
}

static size_t rows(const double *p)
{
    return (disks(p) + columns(p) - 1) / columns(p);
}

static double width(const double *p)
{
    return or_default(p, WIDTH, 8.0, 8.0, 0.25 * (double)columns(p));
}

static double height(const double *p)
{
    return or_default(p, HEIGHT, 4.0, 4.0, 0.3 * (double)rows(p) + 0.2);
}

static double rdot(const double *p)
{
    return or_default(p, RDOT, 0.0, 0.1, 0.0);
}

static double speed(const double *p)
{
    return or_default(p, VEL, 1.0, 0.0, 0.5);
}

/* Radius of disk a at t = 0. */
static double radius0(const double *p, size_t a)
{
    double r = or_default(p, RADIUS, 0.5, 0.25, 0.08);
    if ((int)p[CONFIG] != BOX)
        return r;
    double golden = 0.6180339887498949 * (double)a; /* a fixed spread in [-1, 1), cheaper than a sine */
    return r * (1.0 + or_default(p, SPREAD, 0.0, 0.0, 0.25) * (2.0 * (golden - floor(golden)) - 1.0));
}

static double mass_of(const double *p, size_t a)
{
    return a == 0 && !isnan(p[MASS1]) ? p[MASS1] : p[MASS];
}

static size_t pairs(size_t N)
{
    return N * (N - 1) / 2;
}

/* The pair (a, b), a < b, of pair constraint k (k = a (2N - a - 1)/2 + b - a - 1). */
static void pair_of(size_t N, size_t k, size_t *a, size_t *b)
{
    double c = 2.0 * (double)N - 1.0;
    size_t i = (size_t)fmax(0.0, floor(0.5 * (c - sqrt(fmax(0.0, c * c - 8.0 * (double)k)))));
    while (i > 0 && i * (2 * N - i - 1) / 2 > k) /* round-off of the square root */
        i--;
    while ((i + 1) * (2 * N - i - 2) / 2 <= k)
        i++;
    *a = i;
    *b = k - i * (2 * N - i - 1) / 2 + i + 1;
}

static void sizes(const double *p, size_t *ndof, size_t *ncon, void *user)
{
    (void)user;
    size_t N = disks(p);
    *ndof = 2 * N;
    *ncon = pairs(N) + 4 * N;
}

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    size_t N = disks(p);
    double W = width(p), H = height(p), s = speed(p);
    switch ((int)p[CONFIG]) {
    case HEAD_ON:
    case GROWING: {
        double half = (int)p[CONFIG] == HEAD_ON ? 1.5 : 0.5;
        q[0] = 0.5 * W - half, q[1] = 0.5 * H;
        q[2] = 0.5 * W + half, q[3] = 0.5 * H + p[OFFSET];
        v[0] = s, v[1] = 0.0;
        v[2] = -s, v[3] = 0.0;
        break;
    }
    default: {
        size_t c = columns(p);
        double r = or_default(p, RADIUS, 0.5, 0.25, 0.08), rmax = r * (1.0 + or_default(p, SPREAD, 0.0, 0.0, 0.25));
        for (size_t a = 0; a < N; a++) {
            size_t row = a / c, col = a % c;
            double dir = 2.4 * (double)a + 0.5;
            q[2 * a] = ((double)col + 0.5) * W / (double)c + (row % 2 ? 0.1 : -0.1) * r;
            q[2 * a + 1] = (1.5 + 3.0 * (double)row) * rmax;
            v[2 * a] = s * cos(dir);
            v[2 * a + 1] = s * sin(dir);
        }
        break;
    }
    }
}

/* The generalized force of M q'' = f: gravity on every disk. */
static void force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                  double *f_q, double *f_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    size_t N = disks(p), n = 2 * N;
    for (size_t a = 0; a < N; a++) {
        f[2 * a] = 0.0;
        f[2 * a + 1] = -mass_of(p, a) * p[G_ACC];
    }
    if (f_q) /* asked for one at a time by the Jacobian of many disks */
        memset(f_q, 0, n * n * sizeof *f_q);
    if (f_v)
        memset(f_v, 0, n * n * sizeof *f_v);
}

static void mass(const double *p, const double *q, double *M, void *user)
{
    (void)q, (void)user;
    size_t N = disks(p), n = 2 * N;
    for (size_t a = 0; a < N; a++)
        M[2 * a * n + 2 * a] = M[(2 * a + 1) * n + 2 * a + 1] = mass_of(p, a);
}

/* The coordinates constraint i depends on: both disks' of a pair, one of a wall's disk. */
static size_t support(const double *p, size_t i, size_t *dofs, void *user)
{
    (void)user;
    size_t N = disks(p), P = pairs(N);
    if (i < P) {
        size_t a, b;
        pair_of(N, i, &a, &b);
        dofs[0] = 2 * a, dofs[1] = 2 * a + 1, dofs[2] = 2 * b, dofs[3] = 2 * b + 1;
        return 4;
    }
    size_t a = (i - P) / 4, w = (i - P) % 4;
    dofs[0] = 2 * a + w / 2;
    return 1;
}

/* On the support (x_a, y_a, x_b, y_b) of a pair, (q_j) of a wall. */
static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)user;
    size_t N = disks(p), P = pairs(N);
    double rd = rdot(p);
    if (i < P) {
        size_t a, b;
        pair_of(N, i, &a, &b);
        double dx = q[2 * b] - q[2 * a], dy = q[2 * b + 1] - q[2 * a + 1], d = hypot(dx, dy);
        double e[2] = {dx / d, dy / d};
        out->g = d - radius0(p, a) - radius0(p, b) - 2.0 * rd * t;
        out->g_t = -2.0 * rd;
        out->grad[0] = -e[0], out->grad[1] = -e[1];
        out->grad[2] = e[0], out->grad[3] = e[1];
        if (out->keep_hess) /* (I - e e^T)/d on the diagonal blocks, its opposite off them */
            for (int j = 0; j < 2; j++)
                for (int k = 0; k < 2; k++) {
                    double h = ((j == k) - e[j] * e[k]) / d;
                    out->hess[j * 4 + k] = out->hess[(2 + j) * 4 + 2 + k] = h;
                    out->hess[j * 4 + 2 + k] = out->hess[(2 + j) * 4 + k] = -h;
                }
        return;
    }
    size_t a = (i - P) / 4, w = (i - P) % 4, j = 2 * a + w / 2;
    double sign = w % 2 ? -1.0 : 1.0, wall = w == 1 ? width(p) : w == 3 ? height(p) : 0.0;
    out->g = wall + sign * q[j] - radius0(p, a) - rd * t;
    out->g_t = -rd;
    out->grad[0] = sign;
}

/* Neighbour search: the pairs closer than r_a(t) + r_b(t) + margin by a cell list of cells at least
 * 2 max r(t) + margin wide (a pair that near lies in neighbouring cells), and the walls closer than
 * margin: O(N) per call.  Out of memory: every constraint (correct, only slower). */
static size_t candidates(const double *p, double t, const double *q, double margin, size_t *out, void *user)
{
    (void)user;
    size_t N = disks(p), P = pairs(N), count = 0;
    double rd = rdot(p), W = width(p), H = height(p), rmax = 0.0;
    for (size_t a = 0; a < N; a++)
        rmax = fmax(rmax, radius0(p, a) + rd * t);
    double cell = 2.0 * rmax + margin;
    double cols = fmax(floor(W / cell), 1.0), rows = fmax(floor(H / cell), 1.0);
    if (cols * rows > (double)N) { /* at most N cells (a wide box of few disks): fewer, wider cells lose no pair */
        double shrink = sqrt((double)N / (cols * rows));
        cols = fmax(floor(cols * shrink), 1.0), rows = fmax(floor(rows * shrink), 1.0);
    }
    size_t nx = (size_t)cols, ny = (size_t)rows;
    size_t *head = malloc((nx * ny + 2 * N) * sizeof *head), *next = head ? head + nx * ny : NULL, *at = next ? next + N : NULL;
    if (!head) {
        for (size_t i = 0; i < P + 4 * N; i++)
            out[i] = i;
        return P + 4 * N;
    }
    for (size_t k = 0; k < nx * ny; k++)
        head[k] = SIZE_MAX;
    for (size_t a = N; a-- > 0;) { /* cells of at least `cell` (the grid clamps what lies outside the box) */
        double fx = floor(q[2 * a] / W * (double)nx), fy = floor(q[2 * a + 1] / H * (double)ny);
        size_t cx = (size_t)fmin(fmax(fx, 0.0), (double)(nx - 1)), cy = (size_t)fmin(fmax(fy, 0.0), (double)(ny - 1));
        at[a] = cy * nx + cx;
        next[a] = head[at[a]];
        head[at[a]] = a;
    }
    for (size_t a = 0; a < N; a++) {
        size_t cx = at[a] % nx, cy = at[a] / nx;
        double ra = radius0(p, a) + rd * t;
        for (size_t y = cy > 0 ? cy - 1 : 0; y <= cy + 1 && y < ny; y++)
            for (size_t x = cx > 0 ? cx - 1 : 0; x <= cx + 1 && x < nx; x++)
                for (size_t b = head[y * nx + x]; b != SIZE_MAX; b = next[b]) {
                    if (b <= a)
                        continue;
                    double d = hypot(q[2 * b] - q[2 * a], q[2 * b + 1] - q[2 * a + 1]);
                    if (d - ra - radius0(p, b) - rd * t < margin)
                        out[count++] = a * (2 * N - a - 1) / 2 + b - a - 1;
                }
        double wall[4] = {q[2 * a], W - q[2 * a], q[2 * a + 1], H - q[2 * a + 1]};
        for (size_t w = 0; w < 4; w++)
            if (wall[w] - ra < margin)
                out[count++] = P + 4 * a + w;
    }
    free(head);
    return count;
}

/* |d|q_a - q_b|| <= |dq_a| + |dq_b| <= 2 sqrt(2) max_j |dq_j| (a wall's gap: 1), |G_t| <= 2 rdot. */
static void gap_bounds(const double *p, double *lipschitz, double *rate, void *user)
{
    (void)user;
    *lipschitz = 2.0 * M_SQRT2;
    *rate = 2.0 * rdot(p);
}

/* Every gap positive at the start (a disk touching another or a wall would start on the boundary,
 * allowed by the paper only with an admissible velocity; the layouts never need it). */
static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    double N = or_default(p, NDISK, 2.0, 2.0, 12.0);
    if (p[CONFIG] != floor(p[CONFIG])) {
        snprintf(msg, len, "config = %g must be 1, 2 or 3", p[CONFIG]);
        return 1;
    }
    if (!isnan(p[COLS]) && p[COLS] != floor(p[COLS])) {
        snprintf(msg, len, "cols = %g must be a whole number", p[COLS]);
        return 1;
    }
    if (N != floor(N) || ((int)p[CONFIG] != BOX && N != 2.0)) {
        snprintf(msg, len, "N = %g must be a whole number (and 2 for the pairs of config 1 and 2)", N);
        return 1;
    }
    size_t n = 2 * (size_t)N, m = pairs((size_t)N) + 4 * (size_t)N;
    double *q = calloc(2 * n, sizeof *q);
    pl_gap *g = pl_gap_new(1, 4, 0);
    size_t dofs[4];
    int bad = !q || !g;
    if (bad)
        snprintf(msg, len, "out of memory checking the layout of %g disks", N);
    else
        initial_state(p, q, q + n, user);
    for (size_t i = 0; !bad && i < m; i++) {
        g->support = dofs;
        g->nsupport = support(p, i, dofs, user);
        gap(p, i, 0.0, q, g, user);
        if (!(g->g > 0.0)) {
            bad = 1;
            size_t P = pairs((size_t)N), a, b;
            if (i < P) {
                pair_of((size_t)N, i, &a, &b);
                snprintf(msg, len, "disks %zu and %zu overlap or touch at the start (gap %g): change r, dr, b or the "
                         "box (W, H)", a + 1, b + 1, g->g);
            } else {
                snprintf(msg, len, "disk %zu is not inside the box at the start (gap %g to its %s): enlarge W or H "
                         "or reduce r", (i - P) / 4 + 1, g->g,
                         (const char *[]){"left wall", "right wall", "floor", "ceiling"}[(i - P) % 4]);
            }
        }
    }
    free(q);
    free(g);
    return bad;
}

/* Whether the N disks, of radii r_a(t), can lie in the W x H box without overlapping: necessary
 * conditions, exact for one or two disks (0 with the first that fails in why).
 *   (a) each disk fits: 2 r_a <= min(W, H);
 *   (b) the two largest fit together: their centres lie in [r_a, W - r_a] x [r_a, H - r_a], at most
 *       sqrt((W - s)^2 + (H - s)^2) apart (opposite corners), s their radii's sum;
 *   (c) the areas: sum pi r_a^2 <= W H;
 *   (d) one row: |y_a - y_b| <= H - r_a - r_b, so where 2 (r_a + r_b) > H every pair is apart in x by
 *       at least sqrt((r_a + r_b)^2 - (H - r_a - r_b)^2) = sqrt(H (2 (r_a + r_b) - H)); once that holds
 *       for the two smallest radii (sum s_min) it holds for every pair, the centres are ordered in x
 *       with gaps of at least delta = sqrt(H (2 s_min - H)), the first at x >= r_first and the last
 *       at x <= W - r_last: s_min + (N - 1) delta <= W (for equal radii the zigzag row, exact when it
 *       needs no third disk's room); the same with W and H exchanged (one column).
 * Every condition only tightens as the radii grow (rdot >= 0). */
static int fits(const double *p, double t, char *why, size_t len)
{
    size_t N = disks(p), big[2] = {0, 0};
    double W = width(p), H = height(p), rd = rdot(p), r1 = -1.0, r2 = -1.0, s1 = INFINITY, s2 = INFINITY;
    double area = 0.0;
    for (size_t a = 0; a < N; a++) {
        double r = radius0(p, a) + rd * t;
        area += M_PI * r * r;
        if (r > r1)
            r2 = r1, big[1] = big[0], r1 = r, big[0] = a;
        else if (r > r2)
            r2 = r, big[1] = a;
        if (r < s1)
            s2 = s1, s1 = r;
        else if (r < s2)
            s2 = r;
    }
    if (2.0 * r1 > fmin(W, H)) {
        snprintf(why, len, "disk %zu, of radius %g + %g t, is wider than the box's %s %g", big[0] + 1, radius0(p, big[0]),
                 rd, H <= W ? "height" : "width", fmin(W, H));
        return 0;
    }
    double s = r1 + r2;
    if (N >= 2 && (W - s) * (W - s) + (H - s) * (H - s) < s * s) {
        snprintf(why, len, "disks %zu and %zu, the largest, no longer fit side by side (corner to corner)", big[0] + 1,
                 big[1] + 1);
        return 0;
    }
    if (area > W * H) {
        snprintf(why, len, "their area exceeds the box's W H = %g", W * H);
        return 0;
    }
    for (int side = 0; N >= 2 && side < 2; side++) {
        double across = side ? W : H, along = side ? H : W, smin = s1 + s2;
        if (2.0 * smin <= across)
            continue;
        if (smin + (double)(N - 1) * sqrt(across * (2.0 * smin - across)) > along) {
            snprintf(why, len, "the box is too %s for two disks to pass one another, and a %s of %zu needs more than %s = %g",
                     side ? "narrow" : "low", side ? "column" : "row", N, side ? "H" : "W", along);
            return 0;
        }
    }
    return 1;
}

/* The time the box becomes too small for the growing disks (fits), found by bisection to the last
 * bit (condition (a) fails for good once 2 (r_max + rdot t) > min(W, H)): the last double at which they
 * fit, compared as it is with t-end (the double below T5's 35/6 fits).  The message quotes it rounded
 * down to 12 digits, a time at which they still fit. */
static double valid_until(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    double rd = rdot(p), rmax = 0.0, W = width(p), H = height(p);
    if (!(rd > 0.0))
        return INFINITY; /* the start is admissible (check) and nothing grows */
    for (size_t a = 0; a < disks(p); a++)
        rmax = fmax(rmax, radius0(p, a));
    char why[256];
    double lo = 0.0, hi = fmin(fmax((0.5 * fmin(W, H) - rmax) / rd, 0.0), DBL_MAX);
    while (fits(p, hi, why, sizeof why)) {
        if (hi == DBL_MAX)
            return INFINITY; /* a box so large, or a growth so slow, that no double time outgrows it */
        hi = fmin(2.0 * hi + 1e-300, DBL_MAX);
    }
    if (!fits(p, lo, why, sizeof why))
        hi = lo; /* not even at the start */
    for (;;) {
        double mid = lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi))
            break;
        if (fits(p, mid, why, sizeof why))
            lo = mid;
        else
            hi = mid;
    }
    fits(p, hi, why, sizeof why);
    char quoted[PL_NUMBER_LEN];
    snprintf(msg, len, "the growing disks no longer fit in the %g x %g box after t = %s: %s", W, H,
             pl_format_down(lo, 12, quoted, sizeof quoted), why);
    return lo;
}

/* V: approach speeds up to twice the largest initial speed, the growth 2 rdot, and the fall through
 * the box sqrt(2 g H).  A: gravity, and the centripetal part of a pair gap's acceleration, bounded by
 * V^2/(r_a + r_b) (the Hessian (I - e e^T)/d at d = r_a + r_b), so that V^2/A is at most the smallest
 * diameter: the length against which overlaps are measured. */
static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    size_t N = disks(p);
    double vmax = speed(p), rmin = INFINITY;
    for (size_t a = 0; a < N; a++)
        rmin = fmin(rmin, radius0(p, a));
    double V = 2.0 * vmax + 2.0 * rdot(p) + sqrt(2.0 * p[G_ACC] * height(p));
    *velocity = V;
    *acceleration = p[G_ACC] + V * V / (2.0 * rmin);
}

/* The pairs' first contact: |d0 - 2 v t, b| = R(t) = 2 r + 2 rdot t, d0 = 3 (config 1) or 1 (config
 * 2), i.e. (4 v^2 - 4 rdot^2) t^2 - 4 (d0 v + 2 r rdot) t + d0^2 + b^2 - 4 r^2 = 0, the smallest
 * positive root.  Not checked: that no disk reaches a wall first.  Before the contact the disks move
 * toward each other, away from the side walls, so a wall comes first only vertically (|b| + r + rdot t
 * >= H/2 for disk 2) or by growth (r + rdot t >= W/2 - d0/2); at the defaults the first contact is 1
 * or 2.5, with the walls 1.5 and 3 away (docs/cases.md, Walls, for the motion after it).  Its normal
 * approach speed is -Gdot = 2 v (d0 - 2 v t)/R + 2 rdot; the limit restitution of an isolated impact
 * is e. */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    int c = (int)p[CONFIG];
    if (c == BOX || p[G_ACC] != 0.0)
        return NAN;
    double d0 = c == HEAD_ON ? 3.0 : 1.0, v = speed(p), b = p[OFFSET], r = radius0(p, 0), rd = rdot(p);
    double A = 4.0 * (v * v - rd * rd), B = -4.0 * (d0 * v + 2.0 * r * rd), C = d0 * d0 + b * b - 4.0 * r * r;
    double t = NAN;
    if (A == 0.0)
        t = B < 0.0 ? -C / B : NAN;
    else {
        double disc = B * B - 4.0 * A * C;
        if (disc >= 0.0) {
            double s = sqrt(disc), t1 = (-B - s) / (2.0 * A), t2 = (-B + s) / (2.0 * A);
            t = t1 > 0.0 && (t2 <= 0.0 || t1 < t2) ? t1 : t2 > 0.0 ? t2 : NAN;
        }
    }
    if (!(t > 0.0))
        return NAN;
    double R = 2.0 * r + 2.0 * rd * t, vn = 2.0 * v * (d0 - 2.0 * v * t) / R + 2.0 * rd;
    switch (what) {
    case PL_LIMIT_FIRST_IMPACT_TIME: return t;
    case PL_LIMIT_RESTITUTION_FIRST: return p[E];
    case PL_LIMIT_SCALED_PENETRATION_FIRST: return vn / sqrt(p[K]) * pl_impact_penetration_factor(p[XI]);
    default: return NAN;
    }
}

const pl_case pl_case_spheres = {
    .abi_version = PL_ABI_VERSION,
    .name = "spheres",
    .summary = "disks in a box with non-overlap constraints |q_i - q_j| >= r_i(t) + r_j(t) (Bernicot and "
               "Lefebvre-Lepot, section 4): head-on pair, growing radii, a box of N disks",
    .params = params,
    .nparams = NPAR,
    .t_end = 4.0,
    .initial_state = initial_state,
    .force = force,
    .gap = gap,
    .scales = scales,
    .sizes = sizes,
    .check = check,
    .mass = mass,
    .limit_value = limit_value,
    .valid_until = valid_until,
    .support = support,
    .candidates = candidates,
    .gap_bounds = gap_bounds,
};
