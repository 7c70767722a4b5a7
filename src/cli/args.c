#include "cli/args.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { OPT_MU = 1000, OPT_MODEL, OPT_SET, OPT_T_END, OPT_RTOL, OPT_OUT, OPT_MAX_STEPS, OPT_QUIET, OPT_HELP,
       OPT_JOBS, OPT_NO_PLOTS, OPT_SAMPLES, OPT_NO_LIMIT, OPT_SCHEME, OPT_H, OPT_THETA, OPT_GAMMA,
       OPT_MAX_SECONDS, OPT_FORCE, OPT_RESUME, OPT_MAX_OUTPUT, OPT_EXTERNAL, OPT_WORK_PRECISION, OPT_ISOLATE,
       OPT_NO_ISOLATE, OPT_LAW, OPT_CONTACTS, OPT_GRID, OPT_ZIP, OPT_MAP, OPT_MAP_AXES, OPT_SHARD };

/* The options of the commands that solve a case, and which commands take each. */
static const struct {
    const char *name;
    int has_value;
    int id;
    unsigned commands;
} option_table[] = {
    {"mu", 1, OPT_MU, CMD_RUN | CMD_SWEEP | CMD_COMPARE | CMD_STUDY},
    {"scheme", 1, OPT_SCHEME, CMD_RUN | CMD_SWEEP | CMD_COMPARE | CMD_STUDY},
    {"h", 1, OPT_H, CMD_RUN | CMD_SWEEP | CMD_COMPARE | CMD_STUDY},
    {"external", 1, OPT_EXTERNAL, CMD_COMPARE},
    {"work-precision", 0, OPT_WORK_PRECISION, CMD_COMPARE},
    {"theta", 1, OPT_THETA, CMD_RUN | CMD_SWEEP | CMD_STUDY},
    {"gamma", 1, OPT_GAMMA, CMD_RUN | CMD_SWEEP | CMD_STUDY},
    {"model", 1, OPT_MODEL, CMD_ALL | CMD_CHECK | CMD_STUDY},
    {"set", 1, OPT_SET, CMD_ALL | CMD_CHECK | CMD_STUDY},
    {"law", 1, OPT_LAW, CMD_ALL | CMD_CHECK | CMD_STUDY},
    {"t-end", 1, OPT_T_END, CMD_ALL | CMD_STUDY},
    {"rtol", 1, OPT_RTOL, CMD_ALL | CMD_STUDY},
    {"out", 1, OPT_OUT, CMD_ALL | CMD_STUDY},
    {"max-steps", 1, OPT_MAX_STEPS, CMD_ALL | CMD_STUDY},
    {"max-seconds", 1, OPT_MAX_SECONDS, CMD_ALL | CMD_CHECK | CMD_STUDY},
    {"max-output", 1, OPT_MAX_OUTPUT, CMD_ALL | CMD_STUDY},
    {"samples", 1, OPT_SAMPLES, CMD_ALL | CMD_STUDY},
    {"contacts", 1, OPT_CONTACTS, CMD_ALL | CMD_STUDY},
    {"jobs", 1, OPT_JOBS, CMD_SWEEP | CMD_STUDY},
    {"no-plots", 0, OPT_NO_PLOTS, CMD_SWEEP | CMD_COMPARE | CMD_STUDY},
    {"no-limit", 0, OPT_NO_LIMIT, CMD_SWEEP},
    {"force", 0, OPT_FORCE, CMD_ALL | CMD_STUDY},
    {"resume", 0, OPT_RESUME, CMD_SWEEP | CMD_STUDY},
    {"isolate", 0, OPT_ISOLATE, CMD_SWEEP | CMD_COMPARE},
    {"no-isolate", 0, OPT_NO_ISOLATE, CMD_SWEEP | CMD_COMPARE},
    {"quiet", 0, OPT_QUIET, CMD_ALL | CMD_STUDY},
    {"grid", 1, OPT_GRID, CMD_STUDY},
    {"zip", 0, OPT_ZIP, CMD_STUDY},
    {"map", 1, OPT_MAP, CMD_STUDY},
    {"map-axes", 1, OPT_MAP_AXES, CMD_STUDY},
    {"shard", 1, OPT_SHARD, CMD_STUDY},
    {"help", 0, OPT_HELP, CMD_ALL | CMD_CHECK | CMD_STUDY},
};
#define NOPTIONS (sizeof option_table / sizeof option_table[0])

int cli_option_at(size_t k, const char **name, unsigned *commands)
{
    if (k >= NOPTIONS)
        return 0;
    *name = option_table[k].name;
    *commands = option_table[k].commands;
    return 1;
}

/* Only whole names are options (no abbreviations: "--h" is the time step, not "--help"), so the
 * table is searched here rather than by getopt_long. */
static int find_option(const char *name, size_t len, unsigned command)
{
    for (size_t j = 0; j < NOPTIONS; j++)
        if ((option_table[j].commands & command) && strlen(option_table[j].name) == len &&
            strncmp(option_table[j].name, name, len) == 0)
            return (int)j;
    return -1;
}

pl_status cli_parse_case_options(int argc, char **argv, unsigned command, case_options *o, pl_error *err)
{
    int seen[NOPTIONS] = {0};
    const char *case_name = NULL, *extra = NULL;
    int positional_only = 0;
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (positional_only || arg[0] != '-' || arg[1] == '\0') {
            if (!case_name)
                case_name = arg;
            else if (!extra)
                extra = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            positional_only = 1;
            continue;
        }
        const char *name = arg + 2;
        size_t len = strcspn(name, "=");
        int j = strcmp(arg, "-h") == 0 ? find_option("help", 4, command)
                : arg[1] == '-'        ? find_option(name, len, command)
                                       : -1;
        if (j < 0)
            return pl_fail(err, PL_ERR_INPUT, "unknown option '%.*s' (see --help)",
                           (int)(arg[1] == '-' ? len + 2 : strlen(arg)), arg);
        const char *value = NULL;
        if (arg[1] == '-' && name[len] == '=') {
            if (!option_table[j].has_value)
                return pl_fail(err, PL_ERR_INPUT, "option --%s takes no value (got '%s')", option_table[j].name, arg);
            value = name + len + 1;
        } else if (option_table[j].has_value) {
            if (k + 1 >= argc)
                return pl_fail(err, PL_ERR_INPUT, "option --%s needs a value", option_table[j].name);
            value = argv[++k];
            /* "--mu --t-end 5" would otherwise end in "unexpected argument '5'". */
            if (strncmp(value, "--", 2) == 0 && find_option(value + 2, strcspn(value + 2, "="), command) >= 0)
                return pl_fail(err, PL_ERR_INPUT, "option --%s needs a value (got the option '%s')",
                               option_table[j].name, value);
        }
        int id = option_table[j].id;
        if (command == CMD_COMPARE && (id == OPT_MU || id == OPT_SCHEME || id == OPT_H || id == OPT_EXTERNAL)) {
            /* compare's solutions repeat: kept in order, an --h belonging to the --scheme before it */
            if (o->nspec == MAX_SOLUTIONS)
                return pl_fail(err, PL_ERR_INPUT, "too many solutions (limit %d)", MAX_SOLUTIONS);
            if (id == OPT_H && (o->nspec == 0 || (o->spec[o->nspec - 1].kind != SPEC_SCHEME &&
                                                  o->spec[o->nspec - 1].kind != SPEC_H)))
                return pl_fail(err, PL_ERR_INPUT, "--h %s must follow a --scheme NAME (its h values)", value);
            if (id == OPT_EXTERNAL && !*value)
                return pl_fail(err, PL_ERR_INPUT, "--external needs a file name");
            o->spec[o->nspec].kind = id == OPT_MU ? SPEC_MU : id == OPT_SCHEME ? SPEC_SCHEME : id == OPT_H ? SPEC_H : SPEC_EXTERNAL;
            o->spec[o->nspec++].text = value;
            continue;
        }
        /* A second value would silently replace the first; a repeated flag changes nothing. */
        if (option_table[j].has_value && option_table[j].id != OPT_SET && option_table[j].id != OPT_GRID && seen[j])
            return pl_fail(err, PL_ERR_INPUT, "option --%s given twice", option_table[j].name);
        seen[j]++;
        pl_status s = PL_OK;
        switch (option_table[j].id) {
        case OPT_MU:
        case OPT_H:
        case OPT_THETA:
        case OPT_GAMMA:
        case OPT_RTOL:
            if (o->ngiven == MAX_GIVEN)
                return pl_fail(err, PL_ERR_INPUT, "too many solver options (limit %d)", MAX_GIVEN);
            o->given_name[o->ngiven] = option_table[j].name;
            o->given_text[o->ngiven++] = value;
            break;
        case OPT_SCHEME: o->scheme = value; break;
        case OPT_LAW:
            if (!(o->law = pl_law_type_find(value)))
                return pl_fail(err, PL_ERR_INPUT, "unknown contact law '%s' (penlim laws lists them)", value);
            break;
        case OPT_MODEL:
            if (!*value)
                return pl_fail(err, PL_ERR_INPUT, "--model needs a file name");
            o->model_file = value;
            break;
        case OPT_JOBS:
            s = pl_parse_long(value, &o->jobs, err, "--jobs");
            if (s == PL_OK && (o->jobs < 1 || o->jobs > 1024))
                return pl_fail(err, PL_ERR_INPUT, "--jobs must be in [1, 1024] (got %s)", value);
            break;
        case OPT_NO_PLOTS: o->no_plots = 1; break;
        case OPT_WORK_PRECISION: o->work_precision = 1; break;
        case OPT_EXTERNAL: break; /* compare only, above */
        case OPT_NO_LIMIT: o->no_limit = 1; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_RESUME: o->resume = 1; break;
        case OPT_ISOLATE: o->isolate = 1; break;
        case OPT_NO_ISOLATE: o->no_isolate = 1; break;
        case OPT_SAMPLES:
            o->samples_given = 1;
            s = pl_parse_long(value, &o->samples, err, "--samples");
            if (s == PL_OK && (o->samples < 0 || o->samples > 10000000))
                return pl_fail(err, PL_ERR_INPUT, "--samples must be in [0, 1e7] (got %s)", value);
            break;
        case OPT_T_END: s = pl_parse_double(value, &o->t_end, err, "--t-end"); break;
        case OPT_MAX_STEPS:
            /* 0 would read as "not given" (the default cap) in pl_solve_opts: refused, as the other caps' 0 */
            s = pl_parse_long(value, &o->max_steps, err, "--max-steps");
            if (s == PL_OK && o->max_steps < 1)
                s = pl_fail(err, PL_ERR_INPUT, "--max-steps must be >= 1 (got %s)", value);
            break;
        case OPT_MAX_OUTPUT:
            s = pl_parse_double(value, &o->max_output, err, "--max-output");
            if (s == PL_OK && !(o->max_output >= 1))
                s = pl_fail(err, PL_ERR_INPUT, "--max-output must be >= 1 (got %s)", value);
            break;
        case OPT_CONTACTS:
            if (strcmp(value, "dense") == 0)
                o->contacts = PL_CONTACTS_DENSE;
            else if (strcmp(value, "sparse") == 0)
                o->contacts = PL_CONTACTS_SPARSE;
            else
                s = pl_fail(err, PL_ERR_INPUT, "--contacts must be dense or sparse (got %.64s)", value);
            break;
        case OPT_MAX_SECONDS:
            s = pl_parse_double(value, &o->max_seconds, err, "--max-seconds");
            if (s == PL_OK && !(o->max_seconds > 0))
                s = pl_fail(err, PL_ERR_INPUT, "--max-seconds must be > 0 (got %s)", value);
            break;
        case OPT_OUT:
            if (!*value)
                return pl_fail(err, PL_ERR_INPUT, "--out needs a directory name");
            o->out = value;
            break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_GRID:
            if (o->ngrids == MAX_GRIDS)
                return pl_fail(err, PL_ERR_INPUT, "too many --grid axes (limit %d)", MAX_GRIDS);
            o->grid[o->ngrids++] = value;
            break;
        case OPT_ZIP: o->zip = 1; break;
        case OPT_MAP: o->map = value; break;
        case OPT_MAP_AXES: o->map_axes = value; break;
        case OPT_SHARD: {
            char *slash = strchr(value, '/'), first[32];
            if (!slash || (size_t)(slash - value) >= sizeof first)
                return pl_fail(err, PL_ERR_INPUT, "--shard must be I/N (got '%.64s')", value);
            snprintf(first, sizeof first, "%.*s", (int)(slash - value), value);
            s = pl_parse_long(first, &o->shard, err, "--shard I");
            if (s == PL_OK)
                s = pl_parse_long(slash + 1, &o->nshards, err, "--shard N");
            if (s == PL_OK && (o->nshards < 1 || o->nshards > 100000 || o->shard < 1 || o->shard > o->nshards))
                return pl_fail(err, PL_ERR_INPUT, "--shard %.64s: I must be in 1..N, N in 1..100000", value);
            break;
        }
        case OPT_SET:
            if (o->nsettings == MAX_SETTINGS)
                return pl_fail(err, PL_ERR_INPUT, "too many --set options (limit %d)", MAX_SETTINGS);
            s = pl_setting_parse(value, &o->settings[o->nsettings], err);
            for (size_t i = 0; s == PL_OK && i < o->nsettings; i++)
                if (strcmp(o->settings[i].name, o->settings[o->nsettings].name) == 0)
                    return pl_fail(err, PL_ERR_INPUT, "--set %s given twice", o->settings[i].name);
            o->nsettings++;
            break;
        case OPT_HELP:
            if (argc != 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no other arguments", arg);
            o->help = 1;
            return PL_OK;
        }
        if (s != PL_OK)
            return s;
    }
    if (o->isolate && o->no_isolate)
        return pl_fail(err, PL_ERR_INPUT, "give --isolate or --no-isolate, not both");
    if (case_name && o->model_file)
        return pl_fail(err, PL_ERR_INPUT, "give a CASE or --model FILE, not both");
    if (!case_name && !o->model_file)
        return pl_fail(err, PL_ERR_INPUT, "missing CASE (see 'penlim cases') or --model FILE");
    if (extra)
        return pl_fail(err, PL_ERR_INPUT, "unexpected argument '%s'", extra);
    o->command = command;
    o->case_name = case_name;
    if (case_name) {
        o->c = pl_case_find(case_name);
        if (!o->c && !o->model_search)
            return pl_fail(err, PL_ERR_INPUT, "unknown case '%s' (see 'penlim cases')", case_name);
    }
    if (o->c)
        cli_default_out(o);
    return PL_OK;
}

void cli_default_out(case_options *o)
{
    if (o->out)
        return;
    if (o->command == CMD_RUN) /* the program adds the solver and its parameter's value */
        snprintf(o->out_default, sizeof o->out_default, "out/%s/%s", o->cmd, o->c->name);
    else if (o->scheme && o->command != CMD_COMPARE)
        snprintf(o->out_default, sizeof o->out_default, "out/%s/%s-%s", o->cmd, o->c->name, o->scheme);
    else
        snprintf(o->out_default, sizeof o->out_default, "out/%s/%s", o->cmd, o->c->name);
    o->out = o->out_default;
}

pl_status cli_parse_merge(int argc, char **argv, merge_options *m, pl_error *err)
{
    memset(m, 0, sizeof *m);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    m->jobs = cores > 0 ? cores : 1;
    int jobs_seen = 0;
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            if (argc != 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no other arguments", arg);
            m->help = 1;
            return PL_OK;
        }
        if (strcmp(arg, "--out") == 0 || strcmp(arg, "--jobs") == 0 || strcmp(arg, "--model") == 0) {
            if (k + 1 >= argc || !*argv[k + 1])
                return pl_fail(err, PL_ERR_INPUT, "option %s needs a value", arg);
            if (arg[2] == 'o') {
                if (m->out)
                    return pl_fail(err, PL_ERR_INPUT, "option --out given twice");
                m->out = argv[++k];
            } else if (arg[2] == 'm') {
                if (m->model)
                    return pl_fail(err, PL_ERR_INPUT, "option --model given twice");
                m->model = argv[++k];
            } else {
                if (jobs_seen++)
                    return pl_fail(err, PL_ERR_INPUT, "option --jobs given twice");
                pl_status s = pl_parse_long(argv[++k], &m->jobs, err, "--jobs");
                if (s != PL_OK)
                    return s;
                if (m->jobs < 1 || m->jobs > 1024)
                    return pl_fail(err, PL_ERR_INPUT, "--jobs must be in [1, 1024] (got %s)", argv[k]);
            }
        } else if (strcmp(arg, "--no-plots") == 0)
            m->no_plots = 1;
        else if (strcmp(arg, "--force") == 0)
            m->force = 1;
        else if (strcmp(arg, "--quiet") == 0)
            m->quiet = 1;
        else if (arg[0] == '-' && arg[1] != '\0')
            return pl_fail(err, PL_ERR_INPUT, "unknown option '%.64s' (see --help)", arg);
        else {
            if (m->ndirs == MAX_MERGE)
                return pl_fail(err, PL_ERR_INPUT, "too many directories (limit %d)", MAX_MERGE);
            m->dirs[m->ndirs++] = arg;
        }
    }
    if (m->ndirs == 0)
        return pl_fail(err, PL_ERR_INPUT, "missing the shards' directories DIR...");
    if (!m->out)
        return pl_fail(err, PL_ERR_INPUT, "missing --out DIR (where the merged study is written)");
    return PL_OK;
}

pl_status cli_parse_cases(int argc, char **argv, cases_options *c, pl_error *err)
{
    memset(c, 0, sizeof *c);
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            if (argc != 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no other arguments", arg);
            c->help = 1;
        } else if (strcmp(arg, "--model") == 0) {
            if (k + 1 == argc || argv[k + 1][0] == '\0')
                return pl_fail(err, PL_ERR_INPUT, "--model needs a FILE");
            if (c->model_file || c->case_name)
                return pl_fail(err, PL_ERR_INPUT, "one CASE or one --model FILE, not both or several");
            c->model_file = argv[++k];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return pl_fail(err, PL_ERR_INPUT, "unknown option '%s'", arg);
        } else {
            if (c->model_file || c->case_name)
                return pl_fail(err, PL_ERR_INPUT, "one CASE or one --model FILE, not both or several (got '%s')", arg);
            if (!pl_case_name_valid(arg))
                return pl_fail(err, PL_ERR_INPUT, "invalid case name '%s' (1 to 63 letters, digits, '_', '-')", arg);
            c->case_name = arg;
        }
    }
    return PL_OK;
}

pl_status cli_parse_plot(int argc, char **argv, plot_options *p, pl_error *err)
{
    memset(p, 0, sizeof *p);
    int positional_only = 0;
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (!positional_only && strcmp(arg, "--") == 0) {
            positional_only = 1;
        } else if (!positional_only && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            if (argc != 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no other arguments", arg);
            p->help = 1;
            return PL_OK;
        } else if (!positional_only && strcmp(arg, "--force") == 0) {
            p->force = 1;
        } else if (!positional_only && strcmp(arg, "--quiet") == 0) {
            p->quiet = 1;
        } else if (!positional_only && strcmp(arg, "--max-seconds") == 0) {
            if (k + 1 >= argc)
                return pl_fail(err, PL_ERR_INPUT, "--max-seconds needs a value");
            const char *value = argv[++k];
            if (pl_parse_double(value, &p->max_seconds, err, "--max-seconds") != PL_OK)
                return PL_ERR_INPUT;
            if (!(p->max_seconds > 0))
                return pl_fail(err, PL_ERR_INPUT, "--max-seconds must be > 0 (got %s)", value);
        } else if (!positional_only && arg[0] == '-' && arg[1] != '\0') {
            return pl_fail(err, PL_ERR_INPUT, "unknown option '%s' (see --help)", arg);
        } else if (p->dir) {
            return pl_fail(err, PL_ERR_INPUT, "unexpected argument '%s'", arg);
        } else {
            if (!*arg)
                return pl_fail(err, PL_ERR_INPUT, "DIR is empty");
            p->dir = arg;
        }
    }
    if (!p->dir)
        return pl_fail(err, PL_ERR_INPUT, "missing DIR (a directory penlim wrote)");
    return PL_OK;
}

pl_status cli_parse_new_model(int argc, char **argv, new_model_options *n, pl_error *err)
{
    memset(n, 0, sizeof *n);
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            if (argc != 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no other arguments", arg);
            n->help = 1;
            return PL_OK;
        }
        if (strcmp(arg, "--force") == 0)
            n->force = 1;
        else if (arg[0] == '-')
            return pl_fail(err, PL_ERR_INPUT, "unknown option '%s' (see --help)", arg);
        else if (!n->name)
            n->name = arg;
        else
            return pl_fail(err, PL_ERR_INPUT, "unexpected argument '%s'", arg);
    }
    if (!n->name)
        return pl_fail(err, PL_ERR_INPUT, "missing NAME (the model's name, a C identifier)");
    size_t len = strlen(n->name);
    int ok = len > 0 && len <= 63 && (isalpha((unsigned char)n->name[0]) || n->name[0] == '_');
    for (size_t j = 0; ok && j < len; j++)
        ok = isalnum((unsigned char)n->name[j]) || n->name[j] == '_';
    if (!ok)
        return pl_fail(err, PL_ERR_INPUT, "NAME must be a C identifier of at most 63 characters (got '%s')", n->name);
    return PL_OK;
}

pl_status cli_parse_impact_law(int argc, char **argv, impact_law_options *o, pl_error *err)
{
    memset(o, 0, sizeof *o);
    static const char *const valued[] = {"--law", "--set", "--v", "--out", "--max-seconds"};
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            if (argc != 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no other arguments", arg);
            o->help = 1;
            return PL_OK;
        }
        if (strcmp(arg, "--no-plots") == 0) {
            o->no_plots = 1;
            continue;
        }
        if (strcmp(arg, "--force") == 0) {
            o->force = 1;
            continue;
        }
        if (strcmp(arg, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        size_t j = 0, nvalued = sizeof valued / sizeof valued[0];
        size_t len = strcspn(arg, "=");
        while (j < nvalued && (strlen(valued[j]) != len || strncmp(valued[j], arg, len) != 0))
            j++;
        if (j == nvalued)
            return pl_fail(err, PL_ERR_INPUT, arg[0] == '-' ? "unknown option '%s' (see --help)"
                                                             : "unexpected argument '%s' (see --help)", arg);
        const char *value;
        if (arg[len] == '=')
            value = arg + len + 1;
        else if (k + 1 < argc)
            value = argv[++k];
        else
            return pl_fail(err, PL_ERR_INPUT, "option %s needs a value", valued[j]);
        if (j == 1) {
            if (o->nsettings == MAX_SETTINGS)
                return pl_fail(err, PL_ERR_INPUT, "too many --set (limit %d)", MAX_SETTINGS);
            if (pl_setting_parse(value, &o->settings[o->nsettings], err) != PL_OK)
                return PL_ERR_INPUT;
            for (size_t i = 0; i < o->nsettings; i++)
                if (strcmp(o->settings[i].name, o->settings[o->nsettings].name) == 0)
                    return pl_fail(err, PL_ERR_INPUT, "--set %s given twice", o->settings[i].name);
            o->nsettings++;
            continue;
        }
        const char **slot = j == 0 ? &o->law : j == 2 ? &o->speeds : j == 3 ? &o->out : NULL;
        if (slot ? *slot != NULL : o->max_seconds > 0)
            return pl_fail(err, PL_ERR_INPUT, "option %s given twice", valued[j]);
        if (!*value)
            return pl_fail(err, PL_ERR_INPUT, "option %s needs a value", valued[j]);
        if (slot) {
            *slot = value;
        } else {
            if (pl_parse_double(value, &o->max_seconds, err, "--max-seconds") != PL_OK)
                return PL_ERR_INPUT;
            if (!(o->max_seconds > 0))
                return pl_fail(err, PL_ERR_INPUT, "--max-seconds must be > 0 (got %s)", value);
        }
    }
    return PL_OK;
}

pl_status cli_parse_command(int argc, char **argv, cli_command *command, pl_error *err)
{
    static const struct {
        const char *name;
        cli_command command;
    } names[] = {{"--help", CLI_HELP}, {"-h", CLI_HELP}, {"--version", CLI_VERSION}, {"run", CLI_RUN},
                 {"sweep", CLI_SWEEP}, {"limit", CLI_LIMIT}, {"cases", CLI_CASES},
                 {"plot", CLI_PLOT}, {"compare", CLI_COMPARE}, {"check-model", CLI_CHECK_MODEL},
                 {"new-model", CLI_NEW_MODEL}, {"laws", CLI_LAWS}, {"impact-law", CLI_IMPACT_LAW},
                 {"study", CLI_STUDY}, {"merge", CLI_MERGE}};
    if (argc < 2)
        return pl_fail(err, PL_ERR_INPUT, "missing COMMAND (see penlim --help)");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(argv[1], names[k].name) == 0) {
            *command = names[k].command;
            if ((*command == CLI_HELP || *command == CLI_VERSION) && argc > 2)
                return pl_fail(err, PL_ERR_INPUT, "%s takes no arguments (got '%s')", argv[1], argv[2]);
            return PL_OK;
        }
    return pl_fail(err, PL_ERR_INPUT, "unknown command '%s' (see penlim --help)", argv[1]);
}

pl_status cli_parse(int argc, char **argv, cli_args *a, pl_error *err)
{
    memset(a, 0, sizeof *a);
    pl_status s = cli_parse_command(argc, argv, &a->command, err);
    if (s != PL_OK || a->command == CLI_HELP || a->command == CLI_VERSION)
        return s;
    if (a->command == CLI_CASES)
        return cli_parse_cases(argc - 1, argv + 1, &a->cases, err);
    if (a->command == CLI_PLOT)
        return cli_parse_plot(argc - 1, argv + 1, &a->plot, err);
    if (a->command == CLI_NEW_MODEL)
        return cli_parse_new_model(argc - 1, argv + 1, &a->new_model, err);
    if (a->command == CLI_LAWS) /* its one LAW: the program's */
        return PL_OK;
    if (a->command == CLI_IMPACT_LAW)
        return cli_parse_impact_law(argc - 1, argv + 1, &a->impact_law, err);
    if (a->command == CLI_MERGE)
        return cli_parse_merge(argc - 1, argv + 1, &a->merge, err);
    /* The defaults the program's commands start from. */
    static const unsigned bits[] = {[CLI_RUN] = CMD_RUN, [CLI_SWEEP] = CMD_SWEEP, [CLI_LIMIT] = CMD_LIMIT,
                                    [CLI_COMPARE] = CMD_COMPARE, [CLI_CHECK_MODEL] = CMD_CHECK,
                                    [CLI_STUDY] = CMD_STUDY};
    a->options.cmd = argv[1];
    a->options.t_end = NAN;
    if (a->command == CLI_SWEEP || a->command == CLI_STUDY) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        a->options.jobs = cores > 0 ? cores : 1;
    }
    return cli_parse_case_options(argc - 1, argv + 1, bits[a->command], &a->options, err);
}
