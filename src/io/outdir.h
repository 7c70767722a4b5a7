/* The output directory of a command as a consistent set of files.
 *
 * A command holds an exclusive flock on the directory itself while it writes, and a shared one on
 * each directory above it, so that no two commands write one directory or one inside the other.
 * Before it writes, it records what it owns in a journal (.penlim.journal: the files of the
 * previous command and every file it may write), removes the previous manifest, the temporaries
 * killed commands left, and the previous command's files that it does not reuse; when done it
 * removes what it planned but did not write, writes manifest.json (every complete file with a hash
 * of its content, and what produced them) and removes the journal.  A directory without
 * manifest.json is therefore incomplete, and a file listed by neither the manifest nor the journal
 * was not written by penlim.  Everything inside is reached from the directory's descriptor without
 * following a link (output.h): a listed path that is or passes through a link, or is not a regular
 * file, is not penlim's. */
#ifndef PL_OUTDIR_H
#define PL_OUTDIR_H

#include <jansson.h>

#include "io/output.h"
#include "model/model.h"
#include "solvers/solver.h"

#define PL_MANIFEST_NAME "manifest.json"
#define PL_JOURNAL_NAME ".penlim.journal"
/* The lock file of earlier versions (the lock is now on the directory): ignored where found. */
#define PL_LOCK_NAME ".penlim.lock"

/* Check out->root (its length; not a system directory, pl_outdir_system_path; writable or
 * creatable), open it if it exists and take the locks.  Creates nothing: a directory that does not
 * exist yet is made by pl_outdir_begin.  PL_ERR_INPUT with a one-line message when the path is
 * refused, or another penlim writes it, a directory inside it or one that holds it; PL_ERR_IO when it
 * cannot be opened, created or written.  Messages start with out->prefix.  *unlocked is set (and the
 * command goes on) where the file system has no locks on directories. */
pl_status pl_outdir_open(pl_output *out, int *unlocked, pl_error *err);

/* Whether a canonical absolute path (no link, no "." or "..") is one --out refuses: "/", a system
 * directory, a directory inside /usr, /etc and the like, or the home directory home (may be NULL).
 * Returns NULL if not, or what it is ("the root directory", ...). */
const char *pl_outdir_system_path(const char *canonical, const char *home);

/* What the directory holds before a command writes into it. */
typedef struct {
    json_t *manifest;      /* the previous command's manifest.json (valid), or NULL */
    json_t *journal;       /* an interrupted command's journal (valid), or NULL */
    json_t *hashes;        /* the content hashes they record (the journal's over the manifest's) */
    pl_strings owned;      /* the files they list that are regular files or absent */
    pl_strings unsafe;     /* why a listed path is not one: "lnk/x.csv passes through a symbolic link" */
    pl_strings temporaries;
    pl_strings foreign;    /* files penlim did not write (a malformed manifest or journal included) */
} pl_outdir_state;

pl_status pl_outdir_scan(const pl_output *out, pl_outdir_state *st, pl_error *err);
void pl_outdir_state_free(pl_outdir_state *st);

/* Parse and check a manifest or journal: PL_ERR_INPUT if it is not one (content_hashes, if
 * present, must map paths to 16 hex digits).  Any text is safe. */
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
 * refined value that may be reused: listed "ok" by the previous manifest, or by the journal of an
 * interrupted sweep (whose run files are then complete or absent).  Its files must still pass
 * pl_outdir_verify. */
int pl_outdir_reusable(const pl_outdir_state *st, const json_t *request, const char *dir, double value);

/* Whether the directory holds file rel as a command with the same settings as request wrote it
 * complete: its hash recorded by the previous manifest, or by the journal of an interrupted
 * command (a sweep's limit solution, which --resume reads back as it does a run).  It must still
 * pass pl_outdir_verify. */
int pl_outdir_reusable_file(const pl_outdir_state *st, const json_t *request, const char *rel);

/* The content hash st records for a listed file, or NULL. */
const char *pl_outdir_hash(const pl_outdir_state *st, const char *rel);

/* Whether ROOT/rel is the file penlim wrote: a regular file (reached without following a link,
 * never opened if it is a FIFO or device) whose content has the hash st records.  PL_ERR_INPUT with
 * the reason if not (absent, a link, not a regular file, another hash or none recorded); PL_ERR_IO
 * (PL_ERR_NOMEM) if it cannot be read, never taken for a file that has changed. */
pl_status pl_outdir_verify(const pl_output *out, const pl_outdir_state *st, const char *rel, pl_error *err);

/* Before writing: create the directory if it is new (and lock it); refuse (PL_ERR_INPUT) a planned
 * path that is or passes through a link, or is a directory, FIFO or other non-regular file; write the
 * journal (journal, its files set to owned + planned, its hashes those of keep), remove
 * manifest.json, the temporaries, every owned file not in keep and any other file at a planned path
 * (a foreign one, which --force lets the command replace). */
pl_status pl_outdir_begin(pl_output *out, const pl_outdir_state *st, json_t *journal, const pl_strings *planned,
                          const pl_strings *keep, pl_error *err);

/* Record the files written so far (out->written, with their hashes) in the journal and write it
 * again: an interrupted sweep's next --resume can then verify the runs it completed. */
pl_status pl_outdir_journal_update(pl_output *out, json_t *journal, pl_error *err);

/* When done: remove the planned files that were not written (foreign ones are left alone) and
 * directories left empty, write manifest.json (manifest, its files set to out->written, with their
 * content hashes) and remove the journal. */
pl_status pl_outdir_finish(pl_output *out, const pl_outdir_state *st, const pl_strings *planned, json_t *manifest,
                           pl_error *err);

/* Release the locks and the directory. */
void pl_outdir_close(pl_output *out);

#endif
