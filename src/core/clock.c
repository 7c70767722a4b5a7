#include "core/clock.h"

#include <stdio.h>
#include <time.h>

double pl_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int pl_budget_spent_writing(const pl_budget *budget, double numbers)
{
    return budget && budget->max_seconds > 0 &&
           pl_now_seconds() - budget->started + numbers * PL_WRITE_SECONDS_PER_NUMBER > budget->max_seconds;
}

int pl_budget_spent(const pl_budget *budget)
{
    return budget && budget->max_seconds > 0 && pl_now_seconds() - budget->started > budget->max_seconds;
}

const char *pl_budget_writing_note(const pl_budget *budget, double numbers, char *buf, size_t cap)
{
    double spent = budget ? pl_now_seconds() - budget->started : 0.0;
    if (cap == 0)
        return "";
    buf[0] = '\0';
    if (budget && budget->max_seconds > 0 && spent <= budget->max_seconds)
        snprintf(buf, cap, "; %.3g s spent, %.3g s kept to write the %.3g numbers found", spent,
                 numbers * PL_WRITE_SECONDS_PER_NUMBER, numbers);
    return buf;
}
