/* The hidden command __solve: one solve in a process of its own for a sweep or compare started with
 * --isolate (cli/isolate.h). */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/isolate.h"
#include "io/report.h"
#include "study/analysis.h"

/* --isolate: one solve in this process, for a sweep or compare that started it (cli/isolate.h):
 * the model and options as given, the solution written into dir, the exit status of a run. */
static int isolated_solve_with(const char *cmd, const pl_solver_type *solver, const char *dir, int argc, char **argv,
                               pl_model *model)
{
    case_options o = {.cmd = cmd, .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_RUN, "");
    pl_solve_opts opts;
    if (rc >= 0 || (rc = prepare(&o, solver, NULL, model, &opts)) >= 0 || (rc = setup_within_budget(&o)) >= 0)
        return rc;
    pl_solve_opts_count_from(&opts, o.started); /* its budget from its start, as a run's */
    pl_solution sol;
    pl_analysis analysis;
    pl_error err, io;
    pl_status status = pl_solve(solver, model, &opts, &sol, &err);
    if (status == PL_ERR_INPUT) {
        pl_solution_free(&sol);
        return input_error(cmd, "%s", err.message);
    }
    pl_status analysed = pl_analyze_within(model, &sol, &(pl_budget){opts.max_seconds, opts.started}, &analysis, &err);
    if (status == PL_OK && analysed != PL_OK) {
        status = sol.status = analysed;
        sol.error = err;
    }
    /* The directory the command made and opened, given as PL_ISOLATED_DIR_FD (dir: for messages). */
    pl_output out;
    pl_output_init(&out, dir, cli_file_mode(), cli_temp_hooks());
    struct stat st;
    pl_status s = fstat(PL_ISOLATED_DIR_FD, &st) == 0 && S_ISDIR(st.st_mode)
                      ? PL_OK
                      : pl_fail(&io, PL_ERR_IO, "cannot write %s: not given its directory", dir);
    if (s == PL_OK)
        out.root_fd = PL_ISOLATED_DIR_FD;
    pl_budget writing = {opts.max_seconds, pl_now_seconds()}; /* its files', from their start, as a run's */
    if (s == PL_OK)
        s = pl_write_solution(&out, NULL, model, &sol, analysed == PL_OK ? &analysis : NULL, &writing, &io);
    if (s != PL_OK)
        fprintf(stderr, "penlim %s: %s\n", cmd, io.message);
    pl_output_free(&out);
    pl_analysis_free(&analysis);
    pl_solution_free(&sol);
    return exit_code(s != PL_OK ? s : status);
}

/* argv: __solve CMD PARENT_PID SOLVER DIR (CASE | --model FILE) [options] */
int cmd_isolated_solve(int argc, char **argv)
{
    if (argc < 6)
        return 2;
    cli_isolated_child();
    /* Ended with its parent (SIGTERM: its temporaries removed), unless the parent is gone already. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if ((long)getppid() != strtol(argv[2], NULL, 10))
        return 2;
    const pl_solver_type *solver = pl_solver_find(argv[3]);
    if (!solver)
        return 2;
    pl_model model = {0};
    int rc = isolated_solve_with(argv[1], solver, argv[4], argc - 4, argv + 4, &model);
    pl_model_free(&model);
    return rc;
}
