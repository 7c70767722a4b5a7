/* Models compiled apart and loaded by the program (--model FILE, PENLIM_MODEL_PATH): every way a
 * model can be invalid is refused with exit status 2 and one line naming the problem, nothing
 * written; check-model finds a wrong Jacobian; a model without derivatives runs on difference
 * quotients; the examples' models give their physics: the pendulum's impact restitution and the
 * cradle's momentum, and the cradle's penalty limit. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_util.h"

static const char *models;

/* "penlim ARGS" with the model file NAME.so of the models directory in place of %s. */
static int run_model(const char *fmt, const char *name)
{
    char path[1024], args[2048];
    snprintf(path, sizeof path, "%s/%s.so", models, name);
    snprintf(args, sizeof args, fmt, path);
    return run(args);
}

static json_t *load_json(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return json_load_file(path, 0, NULL);
}

/* run and limit pass the command's start to the solve: --max-seconds counts from it, the set-up
 * included.  The model's check of t-end takes 0.25 s, once in the set-up (0.25 s <= 0.4: the set-up is
 * within the budget) and once more in the solve's own check, before the solver's first step, which
 * finds 0.5 s spent since the command began and stops at t = 0 (exit 3).  A budget counted from the
 * solve's start instead (the start not passed) would leave the run of milliseconds within it: exit 0. */
static void test_budget_from_start(void)
{
    const char *cmds[] = {"run --mu 1e4", "limit"};
    for (int k = 0; k < 2; k++) {
        char fmt[256];
        snprintf(fmt, sizeof fmt, "%s --model %%s --max-seconds 0.4 --out slow --force --quiet", cmds[k]);
        int rc = run_model(fmt, "slow_check");
        char *err = slurp("stderr.txt");
        CHECK(rc == 3 && err && strstr(err, "stopped after the time budget of 0.4 s (max_seconds) at t = 0 ") &&
                  count_lines(err) == 1,
              "%s: the budget counts from the command's start (%d: %s)", cmds[k], rc, err ? err : "");
        free(err);
    }
}

/* A model's parameters are listed by 'penlim cases --model FILE' (and CASE on PENLIM_MODEL_PATH), where
 * the message of an unknown --set NAME points. */
static void test_cases_listing(void)
{
    CHECK(run_model("cases --model %s", "pendulum_wall") == 0, "cases --model lists a model");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "pendulum_wall: spring pendulum") && strstr(out, "theta0") && strstr(out, "[-3, 0]") &&
              strstr(out, "loaded from ") && !strstr(out, "bouncing_ball"),
          "its name, parameters and ranges, and nothing else: %s", out ? out : "");
    free(out);
    CHECK(run_model("run --model %s --set thetaa=-1 --out typo", "pendulum_wall") == 2, "a mistyped parameter");
    char *err = slurp("stderr.txt");
    CHECK(err && strstr(err, "unknown parameter 'thetaa' for the model pendulum_wall (its parameters: penlim cases --model ") &&
              count_lines(err) == 1,
          "points at cases --model: %s", err ? err : "");
    free(err);
    /* the command given works as written in a shell, whatever the file's name */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && cp %s/pendulum_wall.so \"it's a model.so\"", dir, models);
    CHECK(system(cmd) == 0, "a model file named with a space and a quote");
    CHECK(run("run --model \"./it's a model.so\" --set thetaa=-1 --out typo") == 2, "a mistyped parameter");
    err = slurp("stderr.txt");
    char *given = err ? strstr(err, "(its parameters: ") : NULL;
    if (given) {
        given += strlen("(its parameters: ");
        given[strcspn(given, "\n")] = '\0';
        given[strlen(given) - 1] = '\0'; /* the closing parenthesis */
    }
    if (given && strncmp(given, "penlim ", 7) == 0) { /* "penlim" there: the program under test */
        snprintf(cmd, sizeof cmd, "cd %s && %s%s > stdout.txt 2> stderr.txt", dir, penlim, given + strlen("penlim"));
        CHECK(system(cmd) == 0, "the command the message gives runs: %s", given);
        out = slurp("stdout.txt");
        CHECK(out && strstr(out, "theta0"), "and lists the model's parameters");
        free(out);
    } else
        CHECK(0, "the message gives a command: %s", err ? err : "");
    free(err);
    snprintf(cmd, sizeof cmd, "cd %s && PENLIM_MODEL_PATH=%s %s cases cradle > stdout.txt 2> stderr.txt", dir, models,
             penlim);
    CHECK(system(cmd) == 0, "cases CASE finds a model on PENLIM_MODEL_PATH");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "cradle: ") && strstr(out, "N "), "the cradle's parameters: %s", out ? out : "");
    free(out);
    CHECK(run_model("cases --model %s", "bad_abi") == 2, "an invalid model is refused there too");
    CHECK(run("cases wedge") == 0, "a built-in case alone");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "wedge: ") && !strstr(out, "bouncing_ball"), "the wedge alone: %s", out ? out : "");
    free(out);
    CHECK(run("cases wedge --model x.so") == 2 && run("cases no_such_case") == 2 && run("cases --bogus") == 2,
          "bad arguments of cases");
}

static void test_refusals(void)
{
    static const struct {
        const char *model, *why;
    } bad[] = {
        {"bad_abi", "ABI version 6, this penlim has 5"},
        {"horizon", "horizon: the floor is out of reach after t = 0.5; t-end = 1 lies beyond: lower it to 0.5"},
        {"missing_gap", "the required callback gap is missing"},
        {"nan_force", "force value at the initial state is not finite"},
        {"indefinite_mass", "mass matrix is not positive definite"},
        {"bad_sizes", "give 0 degrees of freedom"},
        {"no_symbol", "does not export penlim_model"},
        {"not_there", "does not exist"},
        {"data_symbol", "exports penlim_model as data, not as a function"},
        {"long_nparams", "is nparams larger than the params array?"},
        {"nan_horizon", "its valid_until returned NaN instead of a time"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = run_model("run --model %s --out refused", bad[k].model);
        char *err = slurp("stderr.txt");
        CHECK(rc == 2, "%s: exit status 2 (got %d)", bad[k].model, rc);
        CHECK(err && strstr(err, bad[k].why) && count_lines(err) == 1, "%s: one line naming '%s': %s",
              bad[k].model, bad[k].why, err ? err : "(none)");
        CHECK(!exists("refused"), "%s: nothing written", bad[k].model);
        free(err);
    }
    CHECK(run("run --model ./ --out refused") == 2, "a directory as the model file");
    char *derr = slurp("stderr.txt");
    CHECK(derr && strstr(derr, "model file ./ is a directory, not a shared object") && count_lines(derr) == 1,
          "named as a directory: %s", derr ? derr : "");
    free(derr);
    CHECK(run_model("run bouncing_ball --model %s", "ok") == 2, "a CASE and --model together refused");
    CHECK(run_model("limit --model %s --t-end 0.5 --out horizon --quiet", "horizon") == 0,
          "valid_until: a t-end up to it is accepted");
    /* a gap that turns NaN in the middle of a run: a failed run (exit 3) naming it, whatever the solver */
    const char *solvers[] = {"run --mu 1e6", "run --scheme moreau_jean", "limit"};
    for (int k = 0; k < 3; k++) {
        char fmt[256];
        snprintf(fmt, sizeof fmt, "%s --model %%s --out nan --force --quiet", solvers[k]);
        int rc = run_model(fmt, "nan_later");
        char *err = slurp("stderr.txt");
        CHECK(rc == 3 && err && (strstr(err, "not finite") || strstr(err, "G = nan")), "%s: a NaN gap fails the run (%d): %s", solvers[k], rc,
              err ? err : "");
        free(err);
    }
    CHECK(run("run no_such_case") == 2, "an unknown case refused");
    /* check-model: a wrong Jacobian found (exit 2) and named; a right model passes */
    int rc = run_model("check-model --model %s", "wrong_jacobian");
    char *out = slurp("stdout.txt");
    CHECK(rc == 2 && out && strstr(out, "df/dq") && strstr(out, "disagrees"), "check-model finds df/dq wrong (%d)",
          rc);
    free(out);
    CHECK(run_model("check-model --model %s", "ok") == 0, "check-model passes a right model");
    CHECK(run_model("check-model --model %s", "pendulum_wall") == 0, "check-model passes the pendulum");
    CHECK(run_model("check-model --model %s --set N=5", "cradle") == 0, "check-model passes the cradle, N = 5");
    CHECK(run("check-model double_pendulum") == 0, "check-model passes a built-in case");
}

/* The ball of tests/models/variant.c: first impact at sqrt(2 h0/g), restitution e = 0.5 in the limit;
 * the same with its derivatives differenced, and found on PENLIM_MODEL_PATH by its name. */
static void test_ball(void)
{
    const char *names[] = {"ok", "no_derivatives"};
    double t1 = sqrt(2.0 / 9.81);
    for (int k = 0; k < 2; k++) {
        CHECK(run_model("limit --model %s --out lim --samples 0 --quiet", names[k]) == 0, "%s: limit runs", names[k]);
        json_t *j = load_json("lim/summary.json");
        json_t *a = json_object_get(j, "analysis");
        CHECK_NEAR(json_real_value(json_object_get(a, "first_impact_time")), t1, 1e-10, "limit: first impact time");
        CHECK_NEAR(json_real_value(json_object_get(a, "restitution_first")), 0.5, 1e-9, "limit: restitution e");
        json_decref(j);
        CHECK(run_model("run --model %s --mu 1e8 --out pen --samples 0", names[k]) == 0, "%s: penalty runs",
              names[k]);
        char *out = slurp("stdout.txt");
        CHECK(out && (strstr(out, "difference quotients") != NULL) == (k == 1),
              "%s: the summary says whether derivatives are differenced", names[k]);
        free(out);
        j = load_json("pen/summary.json");
        a = json_object_get(j, "analysis");
        /* penalty at mu = 1e8: the contact lasts ~pi/sqrt(mu), errors O(mu^-1/2) */
        CHECK_NEAR(json_real_value(json_object_get(a, "first_impact_time")), t1, 1e-4, "penalty: first impact");
        CHECK_NEAR(json_real_value(json_object_get(a, "restitution_first")), 0.5, 2e-3, "penalty: restitution");
        json_decref(j);
    }
    /* a model built for ABI version 2 (its law callback doubles k) loads, and runs as the same ball of this
     * version with k doubled, to the byte */
    CHECK(run_model("run --model %s --mu 1e6 --out abi2 --quiet", "abi2") == 0, "an ABI 2 model runs");
    CHECK(run_model("run --model %s --mu 1e6 --set k=2 --out abi3 --quiet", "ok") == 0, "its ABI 3 twin runs");
    char *t2 = slurp("abi2/trajectory.csv"), *t3 = slurp("abi3/trajectory.csv");
    CHECK(t2 && t3 && strcmp(t2, t3) == 0, "the ABI 2 model's trajectory is its twin's");
    free(t2), free(t3);
    CHECK(run_model("check-model --model %s", "abi2") == 0, "check-model passes the ABI 2 model");
    /* one built for ABI version 3 (no supports) loads and runs as its twin of this version, to the byte */
    CHECK(run_model("run --model %s --mu 1e6 --out v3 --quiet", "abi3") == 0, "an ABI 3 model runs");
    CHECK(run_model("run --model %s --mu 1e6 --out v4 --quiet", "ok") == 0, "its ABI 5 twin runs");
    t2 = slurp("v3/trajectory.csv"), t3 = slurp("v4/trajectory.csv");
    CHECK(t2 && t3 && strcmp(t2, t3) == 0, "the ABI 3 model's trajectory is its twin's");
    free(t2), free(t3);
    /* one built for ABI version 4 (no error channel) likewise */
    CHECK(run_model("run --model %s --mu 1e6 --out v4b --quiet", "abi4") == 0, "an ABI 4 model runs");
    CHECK(run_model("run --model %s --mu 1e6 --out v5 --quiet", "ok") == 0, "its ABI 5 twin runs");
    t2 = slurp("v4b/trajectory.csv"), t3 = slurp("v5/trajectory.csv");
    CHECK(t2 && t3 && strcmp(t2, t3) == 0, "the ABI 4 model's trajectory is its twin's");
    free(t2), free(t3);
    /* supports penlim refuses: bad input, one line naming the constraint, nothing written */
    const char *bad_support[] = {"support_order", "support_range", "support_long"};
    const char *why[] = {"is not strictly ascending", "names coordinate 1, beyond the 1", "has 17 coordinates"};
    for (int k = 0; k < 3; k++) {
        int rc = run_model("run --model %s --mu 1e6 --out badsup --quiet", bad_support[k]);
        char *e = slurp("stderr.txt");
        CHECK(rc == 2 && e && strstr(e, "the support of constraint 1") && strstr(e, why[k]) &&
                  strchr(e, '\n') == e + strlen(e) - 1 && !exists("badsup"),
              "%s: refused on one line (%d): %s", bad_support[k], rc, e ? e : "");
        free(e);
    }
    /* candidates that leave out a constraint below the margin at t = 0: refused on one line naming it */
    int rc_miss = run_model("run --model %s --mu 1e6 --out miss --quiet", "candidates_miss");
    char *err_miss = slurp("stderr.txt");
    CHECK(rc_miss == 2 && err_miss && strstr(err_miss, "its candidates at the initial state leave out constraint 1") &&
              strstr(err_miss, "G = 1 is below the margin 2") && strchr(err_miss, '\n') == err_miss + strlen(err_miss) - 1 &&
              !exists("miss"),
          "candidates_miss refused on one line (%d): %s", rc_miss, err_miss ? err_miss : "");
    free(err_miss);
    /* an ABI 2 model could not know the laws' parameter names: its own parameter c is its own under a
     * law without one, and refused, with the reason, under Hunt-Crossley, whose damping is c */
    CHECK(run_model("run --model %s --mu 1e6 --set c=0.7 --out abi2_c --quiet", "abi2_own_c") == 0,
          "an ABI 2 model with a parameter named c runs, c set as its own");
    int rc_c = run_model("run --model %s --mu 1e6 --law hunt_crossley --out abi2_hc --quiet", "abi2_own_c");
    char *err_c = slurp("stderr.txt");
    CHECK(rc_c == 2 && err_c && strstr(err_c, "its parameter 'c' has the name of a parameter of the contact law "
                                              "hunt_crossley") && !exists("abi2_hc"),
          "and refused under hunt_crossley (%d): %s", rc_c, err_c ? err_c : "");
    free(err_c);
    /* run()'s shell inherits the environment; a directory that does not exist is skipped */
    char search[4200];
    snprintf(search, sizeof search, "/nonexistent:%s", models);
    setenv("PENLIM_MODEL_PATH", search, 1);
    CHECK(run("limit ok --out path --quiet") == 0, "a model found on PENLIM_MODEL_PATH by its name");
    unsetenv("PENLIM_MODEL_PATH");
    CHECK(run("limit ok --out path2 --quiet") == 2, "not without PENLIM_MODEL_PATH");
}

/* sweep --resume reuses the runs of the same model file only: a rebuilt model (here: its file
 * changed by one byte) is solved again. */
static void test_resume(void)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "cp %s/ok.so %s/mine.so", models, dir);
    CHECK(system(cmd) == 0, "copy a model");
    CHECK(run("sweep --model ./mine.so --mu 1e4,1e6 --out sw --no-plots --quiet") == 0, "sweep of a model");
    CHECK(run("sweep --model ./mine.so --mu 1e4,1e6 --out sw --no-plots --resume") == 0, "resumed");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 2 runs"), "the same file: its runs reused");
    free(out);
    snprintf(cmd, sizeof cmd, "printf x >> %s/mine.so", dir);
    CHECK(system(cmd) == 0, "change the model file");
    CHECK(run("sweep --model ./mine.so --mu 1e4,1e6 --out sw --no-plots --resume") == 0, "resumed after a rebuild");
    out = slurp("stdout.txt");
    CHECK(out && !strstr(out, "reused"), "a changed model file: nothing reused");
    free(out);
}

/* The spring pendulum (examples/pendulum_wall): an isolated impact on the wall reverses the normal
 * velocity Gdot with restitution e (limit solution exactly; penalty at rate mu^-1/2). */
static void test_pendulum(void)
{
    CHECK(run_model("limit --model %s --set e=0.7 --out pl --samples 0 --quiet", "pendulum_wall") == 0,
          "pendulum: limit runs");
    json_t *j = load_json("pl/summary.json");
    json_t *a = json_object_get(j, "analysis");
    CHECK_NEAR(json_real_value(json_object_get(a, "restitution_first")), 0.7, 1e-9, "pendulum: limit restitution");
    double t_limit = json_real_value(json_object_get(a, "first_impact_time"));
    json_decref(j);
    CHECK(run_model("run --model %s --set e=0.7 --mu 1e10 --out pp --samples 0 --quiet", "pendulum_wall") == 0,
          "pendulum: penalty runs");
    j = load_json("pp/summary.json");
    a = json_object_get(j, "analysis");
    CHECK_NEAR(json_real_value(json_object_get(a, "restitution_first")), 0.7, 1e-3, "pendulum: penalty restitution");
    CHECK_NEAR(json_real_value(json_object_get(a, "first_impact_time")), t_limit, 1e-6, "pendulum: impact time");
    json_decref(j);
}

/* The cradle (examples/cradle): the momentum V of the first ball is kept by every solver; with e = 1 and equal stiffness the penalty's outgoing velocities for N = 3 are
 * the mu-independent (-0.1303, 0.1502, 0.9800) V of the linear-spring chain, which the limit
 * solution's multi-contact impact reproduces; Moreau-Jean's simultaneous Newton law gives
 * (-1/3, 2/3, 2/3) V. */
static void test_cradle(void)
{
    const char *runs[] = {"run --model %s --mu 1e6 --out c1 --samples 0 --quiet",
                          "run --model %s --mu 1e10 --out c2 --samples 0 --quiet",
                          "limit --model %s --out c3 --samples 0 --quiet",
                          "run --model %s --scheme moreau_jean --h 1e-3 --out c4 --quiet"};
    const char *dirs[] = {"c1", "c2", "c3", "c4"};
    const double expect[] = {-0.1303, 0.1502, 0.9800}, moreau[] = {-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0};
    for (int k = 0; k < 4; k++) {
        CHECK(run_model(runs[k], "cradle") == 0, "cradle: %s", dirs[k]);
        char name[64];
        snprintf(name, sizeof name, "%s/summary.json", dirs[k]);
        json_t *j = load_json(name);
        json_t *v = json_object_get(json_object_get(j, "final"), "v");
        double p = 0.0, vj[3] = {NAN, NAN, NAN};
        for (size_t i = 0; i < json_array_size(v) && i < 3; i++)
            p += vj[i] = json_real_value(json_array_get(v, i));
        CHECK(json_array_size(v) == 3, "cradle %s: 3 balls", dirs[k]);
        CHECK_NEAR(p, 1.0, 1e-9, "cradle: momentum kept");
        for (int i = 0; i < 3; i++)
            CHECK_NEAR(vj[i], k < 3 ? expect[i] : moreau[i], k < 3 ? 1e-4 : 1e-9, "cradle: outgoing velocity");
        json_decref(j);
    }
}


/* compare with a user model (the ball of tests/models/variant.c, e = 0.5, Zeno point at
 * 3 sqrt(2/g) = 1.3546, then at rest): every limit impact is paired, absorbed by a run's capture or
 * excluded (its neighbours within the window near the Zeno point, or too slow), none is missing and no
 * run impact is extra; the penalty's family converges to the limit solution, and its impact times over
 * the impacts common to every run like mu^-1/2 (each penalized contact lasts pi/omega). */
static void test_compare(void)
{
    int rc = run_model("compare --model %s --t-end 2 --mu 1e4 --mu 1e5 --mu 1e6 --mu 1e7 --mu 1e8 --out cmp "
                       "--no-plots --quiet",
                       "ok");
    CHECK(rc == 0, "compare with a user model exits 0 (got %d)", rc);
    json_t *j = load_json("cmp/compare.json"), *lim = load_json("cmp/limit/summary.json");
    json_int_t nl = json_integer_value(json_object_get(json_object_get(lim, "analysis"), "impacts"));
    CHECK(nl > 10, "the limit resolves %lld impacts before its Zeno point", (long long)nl);
    const json_t *sols = json_object_get(j, "solutions");
    CHECK(json_array_size(sols) == 5, "5 solutions");
    for (size_t k = 0; k < json_array_size(sols); k++) {
        const json_t *m = json_object_get(json_array_get(sols, k), "impact_match");
        json_int_t matched = json_integer_value(json_object_get(m, "matched")),
                   absorbed = json_integer_value(json_object_get(m, "absorbed")),
                   excluded = json_integer_value(json_object_get(m, "excluded"));
        CHECK(json_is_object(m) && json_integer_value(json_object_get(m, "missing")) == 0 &&
                  json_integer_value(json_object_get(m, "extra")) == 0 && matched + absorbed + excluded == nl &&
                  matched >= 2,
              "solution %zu: %lld matched, %lld absorbed, %lld excluded of %lld, none missing or extra", k,
              (long long)matched, (long long)absorbed, (long long)excluded, (long long)nl);
    }
    const json_t *f = json_array_get(json_object_get(j, "families"), 0);
    const char *verdict = json_string_value(json_object_get(f, "verdict"));
    CHECK(verdict && strcmp(verdict, "converges to the limit solution") == 0, "the family: %s", verdict ? verdict : "none");
    const json_t *rate = json_object_get(json_object_get(json_object_get(f, "rates"), "impact_time_error"), "rate");
    CHECK(json_is_number(rate) && fabs(json_number_value(rate) - 0.5) < 0.1, "impact times ~ mu^-%g",
          json_number_value(rate));
    json_decref(j);
    json_decref(lim);
}

/* The status of run k of the sweep in directory sw_dir (its sweep.json), or NULL. */
static char *run_status(const char *sw_dir, size_t k)
{
    char name[256];
    snprintf(name, sizeof name, "%s/sweep.json", sw_dir);
    json_t *j = load_json(name);
    json_t *r = json_array_get(json_object_get(j, "runs"), k);
    const char *st = json_string_value(json_object_get(r, "status"));
    const char *why = json_string_value(json_object_get(r, "error"));
    char *out = NULL;
    if (st) {
        size_t len = strlen(st) + (why ? strlen(why) : 0) + 4;
        out = malloc(len);
        snprintf(out, len, "%s: %s", st, why ? why : "");
    }
    json_decref(j);
    return out;
}

/* --isolate (on by default for a model file in sweep and compare): a model that crashes, never
 * returns or calls exit() in one run fails that run alone, with the signal named, and the others
 * are kept; --max-seconds is enforced from outside.  The models crash (or spin) while rising from
 * deeper than 1e-3 in the floor: penalized runs at mu = 1e4 and 1e6, not at 1e8 and 1e10, nor the
 * limit solution.  Without isolation the first crash ended the whole sweep (exit status 139, nothing
 * kept) and an endless loop hung it whatever --max-seconds said; exit(0) in a run gave exit 0. */
static void test_isolation(void)
{
    /* AddressSanitizer's SEGV handler would turn the signal into exit status 1 */
    const char *asan = getenv("ASAN_OPTIONS");
    char *saved = asan ? strdup(asan) : NULL;
    char options[1024];
    snprintf(options, sizeof options, "%s%shandle_segv=0", asan ? asan : "", asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", options, 1);
    int rc = run_model("sweep --model %s --mu 1e4,1e6,1e8,1e10 --out crash --no-plots --quiet", "crash");
    char *err = slurp("stderr.txt");
    CHECK(rc == 3, "a crash in two runs: exit status 3, the sweep done (%d)", rc);
    CHECK(err && strstr(err, "mu = 1e4 failed: the model crashed (SIGSEGV, segmentation fault)") &&
              strstr(err, "mu = 1e6 failed: the model crashed (SIGSEGV"),
          "the runs that crashed are named with the signal: %s", err ? err : "");
    free(err);
    for (size_t k = 0; k < 4; k++) {
        char *st = run_status("crash", k);
        CHECK(st && (k < 2 ? strstr(st, "failed: the model crashed (SIGSEGV") != NULL : strcmp(st, "ok: ") == 0),
              "crash: run %zu in sweep.json: %s", k, st ? st : "(none)");
        free(st);
    }
    json_t *j = load_json("crash/runs/003_mu_1e8/summary.json");
    json_t *a = json_object_get(j, "analysis");
    CHECK_NEAR(json_real_value(json_object_get(a, "restitution_first")), 0.5, 2e-3,
               "the run that did not crash: its restitution, read back from its process");
    json_decref(j);
    CHECK(exists("crash/limit/summary.json") && exists("crash/manifest.json"), "the limit solution and the manifest");
    /* compare: the same crash fails one solution */
    rc = run_model("compare --model %s --mu 1e4 --mu 1e8 --out cmp --no-plots --quiet", "crash");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "penalty at mu = 1e4 failed: the model crashed (SIGSEGV") &&
              !strstr(err, "1e8 failed"),
          "compare: the crash fails its solution alone (%d): %s", rc, err ? err : "");
    free(err);
    if (saved)
        setenv("ASAN_OPTIONS", saved, 1);
    else
        unsetenv("ASAN_OPTIONS");
    free(saved);
    /* a callback that never returns: stopped at --max-seconds (plus the grace to write), the other run
     * kept; `timeout` ends the test, not the sweep, if the parent did not stop it */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 120 %s", penlim);
    const char *plain = penlim;
    penlim = cmd;
    rc = run_model("sweep --model %s --mu 1e4,1e8 --max-seconds 1 --out endless --no-plots --quiet", "endless");
    penlim = plain;
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "mu = 1e4 failed: stopped: not done within --max-seconds 1"),
          "an endless callback: the run stopped by the parent (%d): %s", rc, err ? err : "");
    free(err);
    char *st = run_status("endless", 1);
    CHECK(st && strcmp(st, "ok: ") == 0, "the other run kept: %s", st ? st : "(none)");
    free(st);
    /* exit() in a callback: a failure, in a sweep (each run) and in a run (not isolated) */
    rc = run_model("sweep --model %s --mu 1e6 --out exit --no-plots --no-limit --quiet", "exit");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "mu = 1e6 failed: the model called exit() in a callback"),
          "sweep: exit() fails the run (%d): %s", rc, err ? err : "");
    free(err);
    rc = run_model("run --model %s --mu 1e6 --out exit_run --quiet", "exit");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "penlim run: the model called exit() in a callback: the command did not finish"),
          "run: exit() in a callback is exit status 3 with the reason, not 0 (%d): %s", rc, err ? err : "");
    free(err);
    /* the set-up runs in the command's own process: a crash there ends the command with the signal
     * named (exit 3, nothing written); a callback that never returns is ended by the watchdog at
     * 2 --max-seconds + 2 s, in the set-up of a sweep and anywhere in a run or check-model */
    rc = run_model("sweep --model %s --mu 1e4,1e6 --out crash_setup --no-plots --quiet", "crash_setup");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "penlim sweep: crashed (SIGSEGV, segmentation fault) in this process") &&
              !exists("crash_setup"),
          "a crash in the sweep's set-up: exit 3 naming it, nothing written (%d): %s", rc, err ? err : "");
    free(err);
    penlim = cmd;
    rc = run_model("check-model --model %s --max-seconds 0.2", "endless_setup");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "penlim check-model: stopped: --max-seconds 0.2 ran out"),
          "check-model: an endless set-up callback stopped (%d): %s", rc, err ? err : "");
    free(err);
    rc = run_model("sweep --model %s --mu 1e4 --max-seconds 0.2 --out endless_setup --no-plots --quiet",
                   "endless_setup");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "penlim sweep: --max-seconds 0.2 ran out during the set-up") &&
              !exists("endless_setup"),
          "sweep: an endless set-up callback stopped, nothing written (%d): %s", rc, err ? err : "");
    free(err);
    rc = run_model("run --model %s --mu 1e4 --max-seconds 0.2 --out endless_run --quiet", "endless");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "penlim run: stopped: --max-seconds 0.2 ran out") &&
              !exists("endless_run/trajectory.csv") && !exists("endless_run/manifest.json"),
          "run: an endless callback in the solve stopped, nothing written but the journal (%d): %s", rc, err ? err : "");
    free(err);
    penlim = plain;
    /* a built-in case isolated on request: the same numbers as in this process */
    CHECK(run("sweep bouncing_ball --mu 1e4,1e6 --out iso --isolate --no-plots --quiet") == 0 &&
              run("sweep bouncing_ball --mu 1e4,1e6 --out here --no-plots --quiet") == 0 &&
              run("sweep bouncing_ball --isolate --no-isolate") == 2,
          "sweeps with and without --isolate");
    json_t *x = load_json("iso/sweep.json"), *y = load_json("here/sweep.json");
    json_t *qx = json_object_get(json_object_get(x, "convergence"), "restitution_first");
    json_t *qy = json_object_get(json_object_get(y, "convergence"), "restitution_first");
    CHECK(qx && json_equal(json_object_get(qx, "values"), json_object_get(qy, "values")),
          "isolated runs read back exactly: restitutions equal");
    json_decref(x);
    json_decref(y);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 3) {
        fprintf(stderr, "usage: test_user_models PATH_TO_PENLIM MODELS_DIR\n");
        return 2;
    }
    static char path[4096], mdir[4096];
    if (!realpath(argv[1], path) || !realpath(argv[2], mdir)) {
        fprintf(stderr, "test_user_models: %s or %s not found\n", argv[1], argv[2]);
        return 2;
    }
    penlim = path;
    models = mdir;
    snprintf(dir, sizeof dir, "/tmp/penlim-models-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_refusals();
    test_cases_listing();
    test_budget_from_start();
    test_ball();
    test_resume();
    test_pendulum();
    test_cradle();
    test_compare();
    test_isolation();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_user_models");
}
