/* pl_format_double (core/shortest.c's digits) against the strfromd/strtod reference it replaced
 * (tests/number_reference.h):
 *   bench_number                 wall ratio, reference / new, of formatting the same doubles,
 *                                rounds interleaved in this process (7 rounds of 2 x 10^5 doubles)
 *   bench_number --check N       N doubles of tests/test_number's mix (another seed) compared, and
 *                                pl_format_short and pl_decimal_shift on every 63rd; the differences
 *                                counted by class (docs/formats.md)
 *   bench_number --files F...    every number of the CSV/JSON files F compared (numbers from runs)
 *   bench_number --only new|ref|none N   N doubles formatted by one of them (none: only drawn),
 *                                nothing else: for callgrind's instructions per number
 */
#include "number_reference.h"

#include <stdint.h>

#include "core/clock.h"
#include "core/number.h"

static long counts[3][REF_CLASSES];
static long wrong_shown;

static void compare(double x, int all)
{
    char why[256];
    if (!ref_compare(x, (int)(wrong_shown % 41) - 20, all, counts, why, sizeof why) && wrong_shown++ < 20)
        fprintf(stderr, "WRONG: %s\n", why);
}

static int report(void)
{
    static const char *const names[3] = {"pl_format_double", "pl_format_short", "pl_decimal_shift"};
    long wrong = 0;
    for (int f = 0; f < 3; f++) {
        long n = 0;
        for (int c = 0; c < REF_CLASSES; c++)
            n += counts[f][c];
        printf("%-17s %11ld doubles: %11ld as the reference, %8ld shorter subnormals, %6ld shorter powers of 2, "
               "%ld wrong\n",
               names[f], n, counts[f][REF_SAME], counts[f][REF_SUBNORMAL], counts[f][REF_POWER_OF_2],
               counts[f][REF_WRONG]);
        wrong += counts[f][REF_WRONG];
    }
    return wrong ? 1 : 0;
}

/* Every token of a file that strtod reads whole as a number. */
static int check_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_number: cannot read %s\n", path);
        return 0;
    }
    char token[64];
    size_t n = 0;
    int c;
    do {
        c = fgetc(f);
        int part = c != EOF && (c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9'));
        if (part && n + 1 < sizeof token) {
            token[n++] = (char)c;
            continue;
        }
        if (n > 0) {
            token[n] = '\0';
            char *end;
            double x = strtod(token, &end);
            if (*end == '\0' && end != token)
                compare(x, 1);
        }
        n = 0;
    } while (c != EOF);
    fclose(f);
    return 1;
}

static double wall_round(const double *xs, long n, int reference, size_t *sink)
{
    char buf[32];
    double start = pl_now_seconds();
    for (long k = 0; k < n; k++)
        *sink += strlen(reference ? ref_format_double(xs[k], buf, sizeof buf)
                                  : pl_format_double(xs[k], buf, sizeof buf));
    return pl_now_seconds() - start;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The ratio on two mixes: tests/test_number's (every exponent) and one like a run's output (times,
 * coordinates, velocities, forces of moderate exponents, full mantissas). */
static void wall(void)
{
    enum { N = 200000, ROUNDS = 7 };
    static double mix[N], run[N];
    uint64_t state = 2026;
    for (long k = 0; k < N; k++) {
        mix[k] = ref_sample(&state, k);
        double u = (double)(ref_next(&state) >> 11) * 0x1p-53;
        run[k] = (k % 3 == 0 ? 1e-3 : k % 3 == 1 ? -2.0 : 50.0) * u * (1 + (double)(k % 10));
    }
    const char *names[2] = {"every exponent", "like a run"};
    const double *sets[2] = {mix, run};
    size_t sink = 0;
    printf("%-15s %12s %12s %10s %10s\n", "doubles", "new ns", "ref ns", "ratio min", "ratio med");
    for (int s = 0; s < 2; s++) {
        double ratio[ROUNDS], best_new = 1e30, best_ref = 1e30;
        for (int r = 0; r < ROUNDS; r++) {
            double a = wall_round(sets[s], N, 0, &sink), b = wall_round(sets[s], N, 1, &sink);
            ratio[r] = b / a;
            best_new = a < best_new ? a : best_new;
            best_ref = b < best_ref ? b : best_ref;
        }
        qsort(ratio, ROUNDS, sizeof ratio[0], cmp_double);
        printf("%-15s %12.1f %12.1f %10.1f %10.1f\n", names[s], best_new / N * 1e9, best_ref / N * 1e9,
               ratio[0], ratio[ROUNDS / 2]);
    }
    if (sink == 0)
        printf("(nothing written)\n");
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--check") == 0) {
        long n = (long)strtod(argv[2], NULL);
        uint64_t state = 1618;
        for (long k = 0; k < n; k++)
            compare(ref_sample(&state, k), k % 63 == 0);
        return report();
    }
    if (argc >= 2 && strcmp(argv[1], "--files") == 0) {
        for (int i = 2; i < argc; i++)
            if (!check_file(argv[i]))
                return 2;
        return report();
    }
    if (argc >= 4 && strcmp(argv[1], "--only") == 0) {
        int reference = strcmp(argv[2], "ref") == 0, none = strcmp(argv[2], "none") == 0;
        long n = (long)strtod(argv[3], NULL);
        uint64_t state = 7;
        size_t sink = 0;
        char buf[32];
        for (long k = 0; k < n; k++) {
            double x = ref_sample(&state, k);
            if (none) {
                sink += x > 0;
                continue;
            }
            sink += strlen(reference ? ref_format_double(x, buf, sizeof buf) : pl_format_double(x, buf, sizeof buf));
        }
        printf("%zu characters\n", sink);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: bench_number [--check N | --files FILE... | --only new|ref|none N]\n");
        return 2;
    }
    wall();
    return 0;
}
