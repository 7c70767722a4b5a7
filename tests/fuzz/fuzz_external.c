/* Fuzz target: the reader of external trajectories (penlim compare --external).  The input is the
 * file; it is read for the ball (1 dof) and the wedge (2 dofs, 2 constraints), and a trajectory it
 * accepts is analysed, interpolated and measured against itself as compare would. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cases/cases.h"
#include "fuzz_check.h"
#include "fuzz_file.h"
#include "io/external.h"
#include "study/compare.h"

static void read_as(const char *path, const char *case_name)
{
    pl_model model;
    pl_error err;
    if (pl_model_init(&model, pl_case_find(case_name), NULL, 0, &err) != PL_OK)
        abort();
    pl_solution sol;
    int has_gamma;
    pl_status s = pl_read_external(path, &model, model.type->t_end, PL_CONTACTS_AUTO, &sol, &has_gamma, &err);
    if (s != PL_OK) {
        fuzz_check_message(&err);
        pl_solution_free(&sol);
        pl_model_free(&model);
        return;
    }
    if (sol.traj.nrows < 2 || !(sol.t_final <= model.type->t_end))
        abort(); /* accepted files have 2 rows or more within [0, t-end] */
    for (size_t r = 0; r < sol.traj.nrows; r++)
        for (size_t c = 0; c < sol.traj.ncol; c++)
            if (!isfinite(pl_table_row(&sol.traj, r)[c]))
                abort(); /* what is derived from an accepted file (the gaps, Gamma) is finite too */
    for (size_t k = 0; k < sol.nevents; k++)
        if (!isfinite(sol.events[k].gdot_before) || !isfinite(sol.events[k].gdot_after))
            abort();
    pl_analysis a;
    pl_trajectory tr = {0};
    if (pl_analyze(&model, &sol, &a, &err) == PL_OK && pl_trajectory_build(&tr, &model, &sol, &err) == PL_OK) {
        pl_analysed x = {&sol, &a, &tr};
        pl_compare_result r;
        if (pl_compare_solution(&model, &x, &x, has_gamma, &r, NULL, &err) == PL_OK && r.d.sup_q != 0.0 && isfinite(r.d.sup_q))
            abort(); /* a trajectory is at distance 0 from itself */
    }
    pl_trajectory_free(&tr);
    pl_analysis_free(&a);
    pl_solution_free(&sol);
    pl_model_free(&model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    if (!path)
        return 0;
    read_as(path, "bouncing_ball");
    read_as(path, "wedge");
    return 0;
}
