/* What several commands share: exit codes and error lines, a solving command's options, model,
 * solver and checks, the output directory's session, printing helpers (cli/common.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common.h"
#include "study/compare_run.h"
#include "core/clock.h"
#include "io/report.h"
#include "laws/law.h"

int exit_code(pl_status s)
{
    switch (s) {
    case PL_OK: return 0;
    case PL_ERR_INPUT: return 2;
    case PL_ERR_SOLVER:
    case PL_ERR_NOMEM: return 3; /* a run that failed, with its reason */
    default: return 1;
    }
}

int input_error(const char *cmd, const char *fmt, const char *arg)
{
    char text[1024];
    pl_escape(arg, text, sizeof text); /* quoted input stays on one line */
    fprintf(stderr, "penlim %s: ", cmd);
    fprintf(stderr, fmt, text);
    fputc('\n', stderr);
    return 2;
}

/* A library call's failure, err as it filled it: bad input (exit 2, one line), or another status
 * (out of memory, a read error) with its own exit code and its reason. */
int failure(const char *cmd, const pl_error *err)
{
    if (err->status == PL_ERR_INPUT || err->status == PL_OK)
        return input_error(cmd, "%s", err->message);
    fprintf(stderr, "penlim %s: %s\n", cmd, err->message);
    return exit_code(err->status);
}

/* The content hash of a file's bytes (pl_hash_fd): what identifies a model compiled apart in a
 * manifest, so that `sweep --resume` does not reuse the runs of a model rebuilt since.  0, or the
 * errno of the failure to open or read the file. */
static int hash_file(const char *path, char *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno ? errno : EIO;
    pl_status s = pl_hash_fd(fd, out, NULL);
    int e = s == PL_OK ? 0 : s == PL_ERR_NOMEM ? ENOMEM : errno ? errno : EIO;
    close(fd);
    return e;
}

/* The model's identity in a manifest: the file it was loaded from and its hash (null for a
 * built-in case), and whether its derivatives are differenced.  Returns the manifest, or NULL (it
 * released) if out of memory, as PL_JSON_SET. */
json_t *with_model_identity(json_t *manifest, const case_options *o, const pl_model *model)
{
    return pl_manifest_model_identity(manifest, model, o->loaded_from[0] ? o->loaded_from : NULL, o->model_hash);
}

/* Parse argv for the commands that solve a case; returns -1 to continue, or an exit status. */
int parse_case_options(int argc, char **argv, case_options *o, unsigned command, const char *usage)
{
    o->started = pl_now_seconds(); /* --max-seconds counts from here: loading the model is set-up too */
    pl_error err;
    const char *model_path = getenv("PENLIM_MODEL_PATH");
    o->model_search = model_path && *model_path;
    if (cli_parse_case_options(argc, argv, command, o, &err) != PL_OK)
        return failure(o->cmd, &err);
    if (o->help) {
        fputs(usage, stdout);
        return 0;
    }
    int rc = load_model(o, model_path);
    if (rc < 0)
        watch_loaded_model(o);
    return rc;
}

/* A model compiled apart: --model FILE, or a CASE that is not built in found on PENLIM_MODEL_PATH.
 * The shared object stays loaded until the program ends.  Returns -1 to continue, or 2. */
int load_model(case_options *o, const char *model_path)
{
    pl_error err;
    pl_model_library *lib = &o->library;
    if (o->model_file) {
        if (pl_model_library_open(lib, o->model_file, model_path, &err) != PL_OK)
            return failure(o->cmd, &err);
    } else if (!o->c) {
        int found = pl_model_library_find(lib, o->case_name, model_path, &err);
        if (found < 0)
            return failure(o->cmd, &err);
        if (found == 0)
            return input_error(o->cmd, "unknown case '%s' (see 'penlim cases'; not on PENLIM_MODEL_PATH either)",
                               o->case_name);
    } else {
        return -1;
    }
    /* The name becomes part of the output directory: checked before anything uses it. */
    if (!pl_case_name_valid(lib->c->name)) {
        pl_model_library_close(lib);
        return input_error(o->cmd, "the model in %s has no valid name (1 to 63 letters, digits, '_', '-')",
                           o->model_file ? o->model_file : o->case_name);
    }
    o->c = lib->c;
    snprintf(o->loaded_from, sizeof o->loaded_from, "%s", lib->path);
    int e = hash_file(lib->path, o->model_hash);
    if (e != 0) { /* it was loaded: a failure to read it again is a read error, not bad input */
        char path[PATH_MAX];
        pl_escape(lib->path, path, sizeof path);
        fprintf(stderr, "penlim %s: cannot read the model file %s: %s\n", o->cmd, path, strerror(e));
        return e == ENOMEM ? 3 : 1;
    }
    cli_default_out(o);
    return -1;
}

/* The solver of a command: --scheme NAME (a scheme only), or the default. */
int choose_solver(const case_options *o, const pl_solver_type *fallback, const pl_solver_type **solver)
{
    if (!o->scheme) {
        *solver = fallback;
        return -1;
    }
    const pl_solver_type *s = pl_solver_find(o->scheme);
    if (!s || s->family != PL_FAMILY_SCHEME) {
        char names[256] = "";
        for (size_t k = 0; k < pl_solver_count(); k++)
            if (pl_solver_at(k)->family == PL_FAMILY_SCHEME) {
                strncat(names, names[0] ? ", " : "", sizeof names - strlen(names) - 1);
                strncat(names, pl_solver_at(k)->name, sizeof names - strlen(names) - 1);
            }
        char scheme[256];
        pl_escape(o->scheme, scheme, sizeof scheme);
        fprintf(stderr, "penlim %s: unknown scheme '%s' (schemes: %s)\n", o->cmd, scheme, names);
        return 2;
    }
    *solver = s;
    return -1;
}

/* Where a model compiled apart came from, and how its derivatives are had. */
static void print_model_origin(const case_options *o, const pl_model *model)
{
    if (o->loaded_from[0])
        printf("model %s loaded from %s\n", model->type->name, o->loaded_from);
    if (model->type->derivatives == PL_DERIVATIVES_NONE)
        printf("model %s gives no derivatives: its Jacobians and gap derivatives are difference quotients "
               "(about 1e-10 relative, 1e-8 for second derivatives, where it varies on its scales V^2/A and "
               "V/A)\n", model->type->name);
}

/* text as one word of a POSIX shell: as it is when it holds only characters no shell treats
 * specially, else in single quotes (a quote inside as '\''); "" if it does not fit in len. */
static const char *shell_word(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    int plain = *text != '\0';
    for (const char *p = text; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_./-+,:@%=", *p);
    if (plain)
        return snprintf(buf, len, "%s", text) < (int)len ? buf : "";
    if (n + 1 < len)
        buf[n++] = '\'';
    for (const char *p = text; *p && n + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else
            buf[n++] = *p;
    }
    if (n + 2 > len)
        return "";
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

/* Each --set NAME is a parameter of the model; else one line pointing at the command that lists them.
 * Returns -1 to continue, or 2. */
int check_setting_names(const case_options *o)
{
    for (size_t k = 0; k < o->nsettings; k++) {
        /* a law's parameter: the model says whether it is the chosen law's */
        if (pl_param_find(o->c->params, o->c->nparams, o->settings[k].name) >= 0 ||
            pl_law_type_owning(o->settings[k].name))
            continue;
        char msg[1200], word[700];
        snprintf(msg, sizeof msg, "unknown parameter '%s' for %s %s (its parameters: penlim cases %s%s)",
                 o->settings[k].name, o->loaded_from[0] ? "the model" : "case", o->c->name,
                 o->model_file ? "--model " : "", shell_word(o->model_file ? o->model_file : o->c->name, word,
                                                            sizeof word));
        return input_error(o->cmd, "%s", msg);
    }
    return -1;
}

/* The model, the solver's options from the command line (all but `skip`, a sweep's grid), and the
 * checks a solve makes before it starts; returns -1 to continue, or an exit status. */
int prepare(const case_options *o, const pl_solver_type *solver, const char *skip, pl_model *model,
                   pl_solve_opts *opts)
{
    pl_error err;
    int rc = check_setting_names(o);
    if (rc >= 0)
        return rc;
    if (pl_model_init_law(model, o->c, o->law, o->settings, o->nsettings, &err) != PL_OK)
        return failure(o->cmd, &err);
    if (!o->quiet)
        print_model_origin(o, model);
    pl_solve_opts_init(opts, solver, model, o->t_end);
    opts->max_steps = o->max_steps;
    opts->max_seconds = o->max_seconds;
    opts->max_output = o->max_output;
    opts->contacts = o->contacts;
    if (o->samples_given && !pl_solver_can(solver, PL_SOLVER_DENSE) && !pl_solver_can(solver, PL_SOLVER_SAMPLED))
        return input_error(o->cmd, "--samples does not apply to %s: it records every step (no dense output)",
                           solver->name);
    if (o->samples_given)
        opts->samples = (size_t)o->samples;
    for (size_t k = 0; k < o->ngiven; k++) /* which solver an option belongs to, before its value */
        if (pl_solver_option_index(solver, o->given_name[k]) < 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "option --%s does not apply to the %s solver", o->given_name[k], solver->name);
            return input_error(o->cmd, "%s", msg);
        }
    for (size_t k = 0; k < o->ngiven; k++) {
        if (skip && strcmp(o->given_name[k], skip) == 0)
            continue;
        double value;
        char what[32];
        snprintf(what, sizeof what, "--%s", o->given_name[k]);
        if (pl_parse_double(o->given_text[k], &value, &err, what) != PL_OK ||
            pl_solve_opts_set(opts, solver, o->given_name[k], value, &err) != PL_OK)
            return failure(o->cmd, &err);
    }
    if (pl_solve_check(solver, model, opts, &err) != PL_OK)
        return failure(o->cmd, &err);
    return -1;
}

/* --max-seconds bounds the set-up (loading and checking the model, the solvers' checks, reading the
 * files compare measures) from the command's start: checked once it is done, before anything is
 * written.  Returns -1 to continue, or 3 with one line (the budget spent before any run). */
int setup_within_budget(const case_options *o)
{
    double took = pl_now_seconds() - o->started;
    if (!(o->max_seconds > 0) || took <= o->max_seconds)
        return -1;
    fprintf(stderr, "penlim %s: --max-seconds %g ran out during the set-up (the model and the checks took %.3g s): "
            "nothing was run or written\n", o->cmd, o->max_seconds, took);
    return 3;
}

/* A number as the user would write it, exactly: 1e8, 0.001, 3162.2776601683795. */
const char *num(double x, char buf[PL_NUMBER_LEN])
{
    return pl_format_short(x, buf, PL_NUMBER_LEN);
}


/* "DIR: a.csv, b.json, manifest.json; runs/ (9 runs), limit/": every file the command wrote, the
 * files of subdirectories counted by directory. */
void print_written(const char *dir, const pl_strings *written)
{
    printf("wrote %s:", dir);
    const char *sep = " ";
    for (size_t k = 0; k < written->n; k++)
        if (!strchr(written->items[k], '/')) {
            printf("%s%s", sep, written->items[k]);
            sep = ", ";
        }
    printf("%smanifest.json", sep);
    size_t runs = 0, limit = 0, contacts = 0, limits = 0;
    const char *last_run = NULL, *last_limit = NULL;
    for (size_t k = 0; k < written->n; k++) {
        const char *f = written->items[k];
        size_t len_f = strlen(f);
        contacts += strncmp(f, "runs/", 5) == 0 && len_f > 13 && strcmp(f + len_f - 13, "/contacts.csv") == 0;
        if (strncmp(f, "runs/", 5) == 0) {
            size_t len = (size_t)(strchr(f + 5, '/') ? strchr(f + 5, '/') - f : (long)strlen(f));
            if (!last_run || strncmp(last_run, f, len) != 0 || last_run[len] != '/')
                runs++;
            last_run = f;
        } else if (strncmp(f, "limit/", 6) == 0)
            limit++;
        else if (strncmp(f, "limits/", 7) == 0) { /* a study's, one directory per limit solution */
            size_t len = (size_t)(strchr(f + 7, '/') ? strchr(f + 7, '/') - f : (long)strlen(f));
            if (!last_limit || strncmp(last_limit, f, len) != 0 || last_limit[len] != '/')
                limits++;
            last_limit = f;
        }
    }
    if (runs)
        printf("; runs/ (%zu run%s: trajectory.csv, trajectory_s.csv, summary.json%s)", runs, runs > 1 ? "s" : "",
               contacts ? ", contacts.csv" : "");
    if (limit)
        printf("; limit/ (%zu files, the limit solution)", limit);
    if (limits)
        printf("; limits/ (%zu limit solution%s)", limits, limits > 1 ? "s" : "");
    printf("\n");
}

/* Validate --out before any computation: check it, lock it, and refuse files penlim did not write
 * (unless --force).  Returns -1 to continue, or an exit status (nothing created or written). */
int outdir_start(const case_options *o, outdir_session *d)
{
    memset(d, 0, sizeof *d);
    pl_output_init(&d->out, o->out, cli_file_mode(), cli_temp_hooks());
    d->out.prefix = "--out: ";
    pl_error err;
    int unlocked = 0;
    pl_status s = pl_outdir_open(&d->out, &unlocked, &err);
    if (s == PL_ERR_IO) /* a place that cannot be opened, created or written: the option's value is unusable */
        s = PL_ERR_INPUT;
    if (s == PL_OK)
        s = pl_outdir_scan(&d->out, &d->st, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim %s: %s\n", o->cmd, err.message);
        return s == PL_ERR_INPUT ? 2 : exit_code(s);
    }
    if (unlocked)
        fprintf(stderr, "penlim %s: warning: this file system cannot lock %s: another penlim writing it at the same "
                "time would not be refused\n", o->cmd, o->out);
    /* a link is never written through nor replaced, --force or not: the user removes it */
    const char *no_link = "penlim follows no link inside --out: remove it (--force leaves it alone, never writing "
                          "through it)";
    if (d->st.unsafe.n > 0 && !o->force) {
        char what[1024], out[1024];
        const char *item = d->st.unsafe.items[0], *why = strrchr(item, ',');
        pl_escape(item, what, sizeof what);
        pl_escape(o->out, out, sizeof out);
        fprintf(stderr, "penlim %s: the manifest of %s lists %s: not a file penlim wrote; %s\n", o->cmd, out, what,
                why && strstr(why, "symbolic link") ? no_link : "--force writes there anyway, leaving it alone");
        return 2;
    }
    if (d->st.foreign.n > 0 && !o->force) {
        struct stat sb;
        const char *item = d->st.foreign.items[0];
        int link = fstatat(d->out.root_fd, item, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
        char what[1024], out[1024];
        pl_escape(item, what, sizeof what);
        pl_escape(o->out, out, sizeof out);
        fprintf(stderr, "penlim %s: %s holds files penlim did not write (%s%s); %s\n", o->cmd, out, what,
                link ? ", a symbolic link" : d->st.foreign.n > 1 ? " and others" : "",
                link ? no_link : strcmp(o->cmd, "plot") == 0 ? "--force draws anyway, leaving them alone"
                                                             : "--force writes there anyway");
        return 2;
    }
    return -1;
}

void outdir_end(outdir_session *d)
{
    pl_outdir_state_free(&d->st);
    pl_strings_free(&d->planned);
    pl_strings_free(&d->keep);
    json_decref(d->manifest);
    json_decref(d->journal);
    pl_outdir_close(&d->out);
    pl_output_free(&d->out);
}
