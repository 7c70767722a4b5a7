#include "core/clock.h"

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
