/* Fuzz target: reading back a run of a sweep (pl_read_solution, for sweep --resume).  The input,
 * split on its first two NUL bytes, is the run's summary.json, trajectory.csv and contacts.csv (a
 * run with sparse contacts; without a second NUL there is none); it is read as a run
 * of bouncing_ball (default parameters) by the penalty solver, the limit solution and Moreau-Jean,
 * and what is accepted goes on as a reused run does: analysis and trajectory.  Bad files must be
 * refused with a one-line message and an empty solution, never a crash or a leak. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "fuzz_check.h"
#include "io/report.h"
#include "solvers/solver.h"
#include "study/analysis.h"
#include "study/trajectory.h"

static char dir[256], summary[300], trajectory[300], contacts[300];

static void remove_dir(void)
{
    unlink(summary);
    unlink(trajectory);
    unlink(contacts);
    rmdir(dir);
}

/* One directory per process, its two files rewritten for each input: a new one would cost more
 * than the reader. */
static int make_dir(void)
{
    if (dir[0])
        return 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/penlim-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        dir[0] = '\0';
        return 0;
    }
    snprintf(summary, sizeof summary, "%s/summary.json", dir);
    snprintf(trajectory, sizeof trajectory, "%s/trajectory.csv", dir);
    snprintf(contacts, sizeof contacts, "%s/contacts.csv", dir);
    atexit(remove_dir);
    return 1;
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return close(fd) == 0 && done == size;
}

static void check_accepted(const pl_solution *sol)
{
    size_t rows = sol->traj.nrows;
    size_t ncol = sol->contacts == PL_CONTACTS_DENSE ? pl_ncols(sol->n, sol->m) : 2 + 2 * sol->n;
    if (sol->status != PL_OK || sol->traj.ncol != ncol)
        abort();
    for (size_t r = 0; r < rows; r++) { /* sparse: each row's contacts in range, in contact, increasing */
        const pl_contact_entry *e;
        size_t count = pl_solution_row_contacts(sol, r, &e);
        for (size_t k = 0; k < count; k++)
            if (e[k].constraint >= sol->m || !pl_contact_in(e[k].g, e[k].force) ||
                (k > 0 && e[k].constraint <= e[k - 1].constraint))
                abort();
    }
    for (size_t k = 0; k < sol->nepisodes; k++) {
        const pl_episode *ep = &sol->episodes[k];
        if (ep->constraint >= sol->m || ep->row_in >= rows || ep->row_out >= rows)
            abort();
    }
    for (size_t k = 0; k < sol->nevents; k++) {
        if (sol->events[k].constraint >= sol->m)
            abort();
        for (size_t i = 0; i < sol->m; i++)
            if (sol->events[k].participants[i] > 1)
                abort(); /* flags */
    }
    if (sol->zeno.found && sol->zeno.constraint >= sol->m)
        abort();
}

static pl_model model; /* one for every input, released at exit */

static void free_model(void)
{
    pl_model_free(&model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        pl_error err;
        if (!make_dir() || pl_model_init(&model, pl_case_find("bouncing_ball"), NULL, 0, &err) != PL_OK)
            abort();
        atexit(free_model);
        ready = 1;
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t first = nul ? (size_t)(nul - data) : size;
    const uint8_t *rest = data + first + (nul != NULL), *end = data + size;
    const uint8_t *nul2 = memchr(rest, 0, (size_t)(end - rest));
    size_t second = nul2 ? (size_t)(nul2 - rest) : (size_t)(end - rest);
    if (!write_file(summary, data, first) || !write_file(trajectory, rest, second))
        return 0;
    if (nul2 ? !write_file(contacts, nul2 + 1, (size_t)(end - nul2 - 1)) : (unlink(contacts), 0))
        return 0;
    const pl_solver_type *solvers[] = {&pl_solver_penalty, &pl_solver_limit, &pl_solver_moreau_jean};
    for (size_t j = 0; j < sizeof solvers / sizeof solvers[0]; j++) {
        pl_solution sol;
        pl_error err;
        if (pl_read_solution(dir, &model, solvers[j], &sol, &err) != PL_OK) {
            fuzz_check_message(&err);
            if (sol.traj.nrows || sol.nentries || sol.nepisodes || sol.nevents)
                abort(); /* a refused run leaves nothing behind */
            pl_solution_free(&sol);
            continue;
        }
        check_accepted(&sol);
        pl_analysis a;
        pl_trajectory tr;
        memset(&tr, 0, sizeof tr);
        if (pl_analyze(&model, &sol, &a, &err) == PL_OK) {
            if (pl_trajectory_build(&tr, &model, &sol, &err) != PL_OK)
                fuzz_check_message(&err);
        } else
            fuzz_check_message(&err);
        pl_trajectory_free(&tr);
        pl_analysis_free(&a);
        pl_solution_free(&sol);
    }
    return 0;
}
