/* The output directory of a command as a consistent set of files.
 *
 * A command holds an flock'ed lock file (.penlim.lock) in the directory while it writes.  Before
 * it writes, it records what it owns in a journal (.penlim.journal: the files of the previous
 * command and every file it may write), removes the previous manifest, the temporaries killed
 * commands left, and the previous command's files that it does not reuse; when done it removes what
 * it planned but did not write, writes manifest.json (every complete file and what produced it)
 * and removes the journal.  A directory without manifest.json is therefore incomplete, and a file
 * listed by neither the manifest nor the journal was not written by penlim. */
#ifndef PL_OUTDIR_H
#define PL_OUTDIR_H

#include <jansson.h>

#include "io/output.h"
#include "model/model.h"
#include "solvers/solver.h"

#define PL_MANIFEST_NAME "manifest.json"
#define PL_JOURNAL_NAME ".penlim.journal"
#define PL_LOCK_NAME ".penlim.lock"

/* Check the length of out->root, create it (mkdir -p), check it is writable and take its lock.
 * PL_ERR_INPUT with a one-line message when the path is too long, cannot be created or written,
 * or another penlim holds the lock. */
pl_status pl_outdir_open(pl_output *out, pl_error *err);

/* What the directory holds before a command writes into it. */
typedef struct {
    json_t *manifest;      /* the previous command's manifest.json (valid), or NULL */
    json_t *journal;       /* an interrupted command's journal (valid), or NULL */
    pl_strings owned;      /* the files they list */
    pl_strings temporaries;
    pl_strings foreign;    /* files penlim did not write (a malformed manifest or journal included) */
} pl_outdir_state;

pl_status pl_outdir_scan(const pl_output *out, pl_outdir_state *st, pl_error *err);
void pl_outdir_state_free(pl_outdir_state *st);

/* Parse and check a manifest or journal: PL_ERR_INPUT if it is not one.  Any text is safe. */
pl_status pl_manifest_parse(const char *text, size_t len, json_t **manifest, pl_error *err);

/* A manifest of a command ("run", "sweep", "limit") without files: the case, its parameters, the
 * solver and its options (all but the refined one for a sweep, refined = "mu" or "h"), t_end,
 * samples and max_steps. */
json_t *pl_manifest_new(const char *command, const pl_model *model, const pl_solver_type *solver,
                        const pl_solve_opts *opts, const char *refined);
/* Set its "files" (the list, in order). */
pl_status pl_manifest_set_files(json_t *m, const pl_strings *files, pl_error *err);
/* Append a run of a sweep: the refined value, status ("ok", "failed", "pending"), directory, files. */
pl_status pl_manifest_add_run(json_t *m, double value, const char *status, const char *dir, const pl_strings *files,
                              pl_error *err);

/* Whether the directory holds run `dir` of a sweep with the same settings as request and this
 * refined value that can be reused: listed "ok" by the previous manifest, or by the journal of an
 * interrupted sweep (whose run files are then complete or absent). */
int pl_outdir_reusable(const pl_outdir_state *st, const json_t *request, const char *dir, double value);

/* Before writing: write the journal (journal, its files set to owned + planned), remove
 * manifest.json, the temporaries and every owned file not in keep. */
pl_status pl_outdir_begin(pl_output *out, const pl_outdir_state *st, json_t *journal, const pl_strings *planned,
                          const pl_strings *keep, pl_error *err);

/* When done: remove the planned files that were not written (foreign ones are left alone) and
 * directories left empty, write manifest.json (manifest, its files set to out->written) and
 * remove the journal. */
pl_status pl_outdir_finish(pl_output *out, const pl_outdir_state *st, const pl_strings *planned, json_t *manifest,
                           pl_error *err);

/* Release the lock. */
void pl_outdir_close(pl_output *out);

#endif
