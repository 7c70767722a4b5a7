/* Minimal test assertions: count failures, report them with file and line, exit status at the end. */
#ifndef PL_CHECK_H
#define PL_CHECK_H

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* |actual - expected| <= tol, printing both on failure. */
#define CHECK_NEAR(actual, expected, tol, what)                                                    \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected), t_ = (tol);                                         \
        CHECK(fabs(a_ - e_) <= t_, "%s: got %.12g, expected %.12g (tol %.3g, off by %.3g)", what, \
              a_, e_, t_, fabs(a_ - e_));                                                          \
    } while (0)

/* CHECK_NEAR with a formatted label. */
#define NEAR(actual, expected, tol, ...)                                                           \
    do {                                                                                           \
        char what_[160];                                                                           \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                \
        CHECK_NEAR(actual, expected, tol, what_);                                                  \
    } while (0)

static inline void check_init(void)
{
    gsl_set_error_handler_off();
}

static inline int check_finish(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
        return 1;
    }
    printf("%s: all %d checks passed\n", name, check_count);
    return 0;
}

#endif
