/* The commands about models and laws: penlim cases, laws, check-model and new-model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common.h"
#include "laws/law.h"
#include "model/check.h"

static const char cases_usage[] =
    "usage: penlim cases [CASE | --model FILE]\n"
    "List the built-in cases with their parameters (default, valid range, meaning); with CASE, that case\n"
    "alone (built in, or CASE.so on PENLIM_MODEL_PATH); with --model FILE, the model compiled apart in FILE.\n";

/* One case: its summary, sizes at its defaults, t-end and parameters. */
static void print_case(const pl_case *c)
{
    /* A case that computes its sizes from its parameters: those of its defaults. */
    size_t n = c->ndof, m = c->ncon;
    pl_model model;
    pl_error err;
    if (c->sizes && pl_model_init(&model, c, NULL, 0, &err) == PL_OK)
        n = model.n, m = model.m;
    if (c->sizes)
        pl_model_free(&model);
    printf("%s: %s\n  %zu degrees of freedom, %zu constraints%s, default t-end %g\n", c->name, c->summary, n, m,
           c->sizes ? " (at the defaults: sizes from the parameters)" : "", c->t_end);
    int width = 14; /* the range column: as wide as its widest entry */
    for (size_t p = 0; p < c->nparams; p++) {
        char range[80];
        pl_param_range_text(&c->params[p], range, sizeof range);
        if ((int)strlen(range) > width)
            width = (int)strlen(range);
    }
    for (size_t p = 0; p < c->nparams; p++) {
        const pl_param_spec *s = &c->params[p];
        char range[80], def[32];
        pl_param_range_text(s, range, sizeof range);
        if (s->flags & PL_PARAM_DERIVED)
            snprintf(def, sizeof def, "derived");
        else
            snprintf(def, sizeof def, "%g", s->value);
        printf("    %-8s %-10s %-*s %s\n", s->name, def, width, range, s->description ? s->description : "");
    }
}

int cmd_cases(int argc, char **argv)
{
    pl_error err;
    cases_options co;
    if (cli_parse_cases(argc, argv, &co, &err) != PL_OK)
        return failure("cases", &err);
    if (co.help) {
        fputs(cases_usage, stdout);
        return 0;
    }
    if (!co.case_name && !co.model_file) {
        for (size_t k = 0; k < pl_case_count(); k++)
            print_case(pl_case_at(k));
        return 0;
    }
    const pl_case *c = co.case_name ? pl_case_find(co.case_name) : NULL;
    if (c) {
        print_case(c);
        return 0;
    }
    /* A model compiled apart, validated at its defaults as every command would before using it. */
    case_options o = {.cmd = "cases", .case_name = co.case_name, .model_file = co.model_file};
    const char *model_path = getenv("PENLIM_MODEL_PATH");
    o.model_search = model_path && *model_path;
    int rc = load_model(&o, model_path);
    if (rc >= 0)
        return rc;
    pl_model model;
    if (pl_model_init(&model, o.c, NULL, 0, &err) != PL_OK)
        return failure("cases", &err);
    pl_model_free(&model);
    print_case(o.c);
    printf("  (loaded from %s)\n", o.loaded_from);
    return 0;
}

static const char laws_usage[] =
    "usage: penlim laws [LAW]\n"
    "List the contact laws (--law NAME of run, sweep, limit, compare and check-model) with their formula and\n"
    "parameters (default, valid range, meaning), set with --set NAME=VALUE; with LAW, that law alone.\n"
    "delta = -G is the penetration; lambda the normal force (positive pushing); m_eff the constraint's\n"
    "effective mass.  A case's defaults for k, e, xi apply to the law that has them (penlim cases).\n";

static void print_law(const pl_law_type *t)
{
    unsigned f = t->flags;
    printf("%s: %s%s\n  %s\n  %s; %s; %s\n", t->name, t->summary, t == pl_law_type_default() ? " (default)" : "",
           t->formula,
           f & PL_LAW_PER_UNIT_MASS ? "parameters per unit effective mass" : "physical units (k: force/length^n)",
           f & PL_LAW_LINEAR ? "linear in (G, Gdot)" : "nonlinear",
           f & PL_LAW_NEVER_PULLS ? "never pulls" : "pulls near the exit");
    for (size_t p = 0; p < t->nparams; p++) {
        const pl_param_spec *s = &t->params[p];
        char range[80], def[32];
        pl_param_range_text(s, range, sizeof range);
        if (s->flags & PL_PARAM_DERIVED)
            snprintf(def, sizeof def, "derived");
        else
            snprintf(def, sizeof def, "%g", s->value);
        printf("    %-8s %-10s %-14s %s\n", s->name, def, range, s->description ? s->description : "");
    }
}

int cmd_laws(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(laws_usage, stdout);
        return 0;
    }
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return input_error("laws", "%s", argc > 2 ? "one LAW at most" : "unknown option (see --help)");
    if (argc == 2) {
        const pl_law_type *t = pl_law_type_find(argv[1]);
        if (!t)
            return input_error("laws", "unknown contact law '%s' (penlim laws lists them)", argv[1]);
        print_law(t);
        return 0;
    }
    for (size_t k = 0; k < pl_law_type_count(); k++)
        print_law(pl_law_type_at(k));
    return 0;
}

static const char check_model_usage[] =
    "usage: penlim check-model (CASE | --model FILE) [--law NAME] [--set NAME=VALUE ...] [--max-seconds S]\n"
    "Validate a model (a built-in case, or one compiled apart and loaded from FILE): its parameters, sizes,\n"
    "callbacks and values at the initial state, then every derivative it gives (the Jacobians of its\n"
    "force or acceleration, dM/dq, the gradients, time derivatives and Hessians of its gaps) against\n"
    "difference quotients of its own values, at the initial state and two states near it.  Prints the\n"
    "worst entry of each; exit status 0 if all agree (relative error <= 1e-6, 1e-4 for second\n"
    "derivatives), 2 if the model is invalid or a derivative disagrees, 3 if --max-seconds S (the\n"
    "command's wall-clock time from its start; default: none) ran out first.\n";

int cmd_check_model(int argc, char **argv)
{
    case_options o = {.cmd = "check-model", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_CHECK, check_model_usage);
    if (rc >= 0)
        return rc;
    pl_error err;
    pl_model model;
    if ((rc = check_setting_names(&o)) >= 0)
        return rc;
    if (pl_model_init_law(&model, o.c, o.law, o.settings, o.nsettings, &err) != PL_OK)
        return failure(o.cmd, &err);
    printf("penlim check-model %s%s%s: %zu degrees of freedom, %zu constraints; valid at its initial state\n",
           model.type->name, o.loaded_from[0] ? " from " : "", o.loaded_from, model.n, model.m);
    if (model.type->derivatives == PL_DERIVATIVES_NONE) {
        printf("it gives no derivatives: penlim uses difference quotients (nothing to check)\n");
        pl_model_free(&model);
        return 0;
    }
    pl_derivative_error *items;
    size_t nitems;
    /* --max-seconds bounds the whole command, loading and validating the model included */
    if (pl_model_check_derivatives(&model, &(pl_budget){o.max_seconds, o.started}, &items, &nitems, &err) != PL_OK) {
        pl_model_free(&model);
        fprintf(stderr, "penlim check-model: %s\n", err.message);
        return 3;
    }
    printf("  %-14s %-9s %-22s %-22s %s\n", "derivative", "entry", "given", "difference quotient", "relative error");
    size_t bad = 0;
    for (size_t k = 0; k < nitems; k++) {
        const pl_derivative_error *it = &items[k];
        double tol = it->second ? PL_CHECK_TOL_SECOND : PL_CHECK_TOL_FIRST;
        int ok = it->error <= tol;
        bad += !ok;
        char entry[32];
        snprintf(entry, sizeof entry, "[%zu][%zu]", it->row + 1, it->col + 1);
        printf("  %-14s %-9s %-22.15g %-22.15g %.2e%s\n", it->what, entry, it->given, it->differenced, it->error,
               ok ? "" : "   <- disagrees");
    }
    free(items);
    pl_model_free(&model);
    if (bad) {
        fprintf(stderr, "penlim check-model: %zu derivative%s of %s disagree%s with difference quotients (see above)\n",
                bad, bad > 1 ? "s" : "", o.c->name, bad > 1 ? "" : "s");
        return 2;
    }
    printf("every derivative agrees with its difference quotients (tolerance 1e-6; 1e-4 for second derivatives)\n");
    return 0;
}

extern const char pl_model_template[];

static const char new_model_usage[] =
    "usage: penlim new-model NAME [--force]\n"
    "Write NAME.c: a commented model to edit (a point mass thrown into the corner of a floor and a\n"
    "wall), to be compiled against the installed headers and loaded with --model:\n"
    "    cc -shared -fPIC -O2 $(pkg-config --cflags penlim) NAME.c -o NAME.so\n"
    "    penlim sweep --model ./NAME.so\n"
    "NAME is a C identifier.  An existing NAME.c is kept unless --force.\n";

int cmd_new_model(int argc, char **argv)
{
    pl_error err;
    new_model_options n;
    if (cli_parse_new_model(argc, argv, &n, &err) != PL_OK)
        return failure("new-model", &err);
    if (n.help) {
        fputs(new_model_usage, stdout);
        return 0;
    }
    char path[128], tmp[160];
    snprintf(path, sizeof path, "%s.c", n.name);
    snprintf(tmp, sizeof tmp, ".%s.c.XXXXXX", n.name);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd), unlink(tmp);
        fprintf(stderr, "penlim new-model: cannot write in the current directory: %s\n", strerror(errno));
        return 1;
    }
    /* the template with every @NAME@ replaced */
    int bad = 0;
    for (const char *p = pl_model_template; *p && !bad;) {
        const char *at = strstr(p, "@NAME@");
        size_t len = at ? (size_t)(at - p) : strlen(p);
        bad = fwrite(p, 1, len, f) != len || (at && fputs(n.name, f) < 0);
        p += len + (at ? 6 : 0);
    }
    bad = fchmod(fd, cli_file_mode()) != 0 || bad;
    bad = fclose(f) != 0 || bad;
    /* link() refuses an existing NAME.c; with --force it is replaced (rename) */
    if (!bad && (n.force ? rename(tmp, path) : link(tmp, path)) != 0) {
        int e = errno;
        unlink(tmp);
        if (e == EEXIST)
            return input_error("new-model", "%s exists (--force replaces it)", path);
        fprintf(stderr, "penlim new-model: cannot write %s: %s\n", path, strerror(e));
        return 1;
    }
    unlink(tmp);
    if (bad) {
        fprintf(stderr, "penlim new-model: cannot write %s\n", path);
        return 1;
    }
    printf("penlim new-model: wrote %s (model %s). Build and run it:\n"
           "    cc -shared -fPIC -O2 $(pkg-config --cflags penlim) %s -o %s.so\n"
           "    penlim check-model --model ./%s.so\n"
           "    penlim sweep --model ./%s.so\n",
           path, n.name, path, n.name, n.name, n.name);
    return 0;
}
