/* Output files.  Every file is written to a temporary name in its directory and renamed into
 * place once complete, so a reader never sees a partial file: written completely or not at all.
 *
 * Files are written into an output directory (pl_output): its root, opened once, from which every
 * file and subdirectory is reached one component at a time without following a symbolic link
 * (openat with O_NOFOLLOW): a link inside the directory, wherever it points, is an error, never a
 * way out of it.  With it: the mode new files get, hooks told when a temporary file appears and
 * goes (so a program can remove them when killed), and the list of complete files written so far,
 * relative to the root, with a hash of each one's content (what the manifest lists).  A pl_output
 * is not thread-safe: writes into it must be serialized; reads (pl_output_open_file) may run
 * alongside each other. */
#ifndef PL_OUTPUT_H
#define PL_OUTPUT_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/clock.h"
#include "core/status.h"
#include "core/table.h"

/* The longest path penlim appends to an output directory, with the temporary file suffix:
 * "/runs/NNNN_mu_1.000e+308/.trajectory_s.csv.XXXXXX" and room to spare. */
#define PL_OUTPUT_RESERVE 80

/* A growable list of strings; from 16 on, a hash index of its items besides, so that finding one
 * does not cost a pass over a study's hundred thousand file names.  Change items only through these
 * functions (or call pl_strings_reindex after reordering them). */
typedef struct {
    char **items;
    size_t n, cap;
    size_t *index;    /* open addressing: item position + 1 (0: empty), or NULL */
    size_t index_cap; /* a power of 2, at least twice n */
} pl_strings;

pl_status pl_strings_add(pl_strings *s, const char *text, pl_error *err);
int pl_strings_has(const pl_strings *s, const char *text);
/* The position of text among the items, or -1. */
long pl_strings_find(const pl_strings *s, const char *text);
/* Replace item k by text. */
pl_status pl_strings_set(pl_strings *s, size_t k, const char *text, pl_error *err);
/* Remove the last item. */
void pl_strings_pop(pl_strings *s);
/* The index again, after the items were reordered in place. */
void pl_strings_reindex(pl_strings *s);
void pl_strings_free(pl_strings *s);

typedef struct {
    /* Before a temporary is created; 0 refuses it (the program is being killed). Optional. */
    int (*creating)(void *user);
    /* After: a temporary file NAME now exists in the directory dir_fd (an open descriptor until
     * released), or dir_fd < 0 if it could not be created. */
    void (*created)(int dir_fd, const char *name, void *user);
    void (*released)(int dir_fd, const char *name, void *user); /* renamed into place or removed */
    void *user;
} pl_temp_hooks;

/* A content hash as text: FNV-1a (64 bits) of the bytes, 16 hex digits.  It tells files apart
 * (an accident, two files swapped), not a forgery: anyone can write a file with a given hash. */
#define PL_HASH_LEN 17

typedef struct {
    char root[PATH_MAX];  /* as given: for messages (and --isolate's solve processes, given a path) */
    int root_fd;          /* the directory, opened once (pl_output_open); -1 before */
    mode_t mode;          /* of new files: 0666 & ~umask, given by the program */
    pl_temp_hooks hooks;
    const char *prefix;   /* of outdir.h's messages: "--out: " in the program, NULL in the library */
    pl_strings written;   /* complete files, relative to root, in the order written */
    pl_strings hashes;    /* hashes[k]: written[k]'s content hash, "" if not known */
    int *lock_fds;        /* the locks held (outdir.h), closed by pl_output_free */
    size_t nlocks;
    /* Files are not synced one by one (fsync: half the wall time of a study of cheap runs) but all at
     * once by pl_output_sync, before the journal or the manifest records them; each is still
     * complete or absent after a crash of the process (renamed into place), and --resume checks
     * every file against its hash whatever a power cut did. */
    int sync_later;
} pl_output;

/* With sync_later, the file system of the root synced (syncfs); nothing otherwise. */
pl_status pl_output_sync(pl_output *out, pl_error *err);

/* An output into root (neither created nor opened here), files with the given mode; hooks may be NULL. */
void pl_output_init(pl_output *out, const char *root, mode_t mode, const pl_temp_hooks *hooks);
/* Open the root, an existing directory (following the links of the path as given: the user's
 * choice).  Done by the first write if not before. */
pl_status pl_output_open(pl_output *out, pl_error *err);
/* Close the root and release the locks held (the list of files written stays). */
void pl_output_close(pl_output *out);
void pl_output_free(pl_output *out);

/* Record a complete file (relative to the root) that was written by other means, hashing its
 * content as it is now. */
pl_status pl_output_add(pl_output *out, const char *rel, pl_error *err);
/* The same with its hash known (hash "" or NULL: not known). */
pl_status pl_output_add_hashed(pl_output *out, const char *rel, const char *hash, pl_error *err);

/* The hash of everything fd reads from its start: PL_ERR_IO (PL_ERR_NOMEM) with the reason if it
 * cannot be read. */
pl_status pl_hash_fd(int fd, char hash[PL_HASH_LEN], pl_error *err);

/* The same hash of bytes given piece by piece (what a reader hashes as it reads):
 * pl_hash_begin, pl_hash_add for each piece in order, pl_hash_text. */
typedef struct {
    unsigned long long h;
} pl_hash;
void pl_hash_begin(pl_hash *h);
void pl_hash_add(pl_hash *h, const void *bytes, size_t n);
void pl_hash_text(const pl_hash *h, char hash[PL_HASH_LEN]);

/* Open ROOT/rel for reading: a regular file reached without following a link (a link, FIFO,
 * device or directory is refused without being opened for reading, so that nothing blocks).
 * Returns the descriptor, or -1 with PL_ERR_IO and the reason, errno then saying which: ENOENT
 * absent, ELOOP or ENOTDIR a link (or a file) at the path or on the way, EINVAL not a regular
 * file, else what the system said (EACCES, ENOMEM, ...). */
int pl_output_open_file(const pl_output *out, const char *rel, pl_error *err);

/* Read fd from where it is to its end, or (first_line) to its first newline, into a string (the
 * caller frees *text; *len bytes, the newline included, then a NUL), what naming the file in
 * messages.  A read that fails is an error (PL_ERR_IO with the reason), never the end of the file;
 * PL_ERR_NOMEM for want of memory; PL_ERR_INPUT if there is more than max bytes to read. */
pl_status pl_read_fd(int fd, const char *what, size_t max, int first_line, char **text, size_t *len,
                     pl_error *err);

/* The directory holding ROOT/rel, reached without following a link, and rel's last component in
 * name: a descriptor (the caller closes it) or -1 with errno as pl_output_dir's. */
int pl_output_parent(const pl_output *out, const char *rel, char name[NAME_MAX + 1]);

/* The directory ROOT/sub, each component reached without following a link; with create, the
 * missing ones are made.  Returns a descriptor (the caller closes it) or -1 with errno: ELOOP or
 * ENOTDIR where a component is a link or not a directory. */
int pl_output_dir(const pl_output *out, const char *sub, int create);

/* "ROOT/SUB/NAME" (SUB may be "" or NULL), or PL_ERR_IO if longer than PATH_MAX. */
pl_status pl_output_path(const pl_output *out, const char *sub, const char *name, char *buf, size_t len,
                         pl_error *err);

/* mkdir -p of a path (relative to the working directory). */
pl_status pl_make_dir(const char *path, pl_error *err);
/* mkdir -p ROOT/SUB, no link followed. */
pl_status pl_output_make_dir(pl_output *out, const char *sub, pl_error *err);

typedef struct {
    FILE *fp;
    pl_output *out;
    int dir_fd;                   /* ROOT/SUB, open while the temporary exists */
    char tmp_name[NAME_MAX + 1];  /* the temporary in it, "" once released */
    char name[NAME_MAX + 1];
    char path[PATH_MAX];          /* ROOT/SUB/NAME, for messages */
    char rel[PATH_MAX];           /* relative to out->root */
    int infinite;                 /* an infinite number was given to pl_put_number: the file is refused */
} pl_file;

/* Open a temporary file for ROOT/SUB/NAME (SUB is created if missing). */
pl_status pl_file_open(pl_file *f, pl_output *out, const char *sub, const char *name, pl_error *err);
/* Flush, hash, close and rename into place (replacing whatever entry NAME was, never following
 * it), recording the file as written; on any failure the temporary file is removed.  A file given an
 * infinite number is refused (PL_ERR_SOLVER): penlim writes finite numbers, or nan for an undefined
 * one, never a result that overflowed. */
pl_status pl_file_commit(pl_file *f, pl_error *err);
/* ROOT/sub/name (sub may be NULL) holding exactly the size bytes given: written as any file is,
 * complete or absent. */
pl_status pl_write_bytes(pl_output *out, const char *sub, const char *name, const void *bytes, size_t size,
                         pl_error *err);
void pl_file_abort(pl_file *f);
/* The bytes read from fd (named src in messages; fd is closed) copied into the file ROOT/REL of out
 * (REL's directory created if missing), complete or absent: kept only if they hash to hash, else
 * PL_ERR_INPUT "SRC MISMATCH" (hash NULL: no hash was recorded, also a mismatch).  For files penlim
 * wrote and recorded, copied into another results directory (merge, a library copy). */
pl_status pl_file_copy_checked(pl_output *out, const char *rel, int fd, const char *src, const char *hash,
                               const char *mismatch, pl_error *err);

/* CSV with the given header line (no trailing newline) and one row per table row, %.17g. */
pl_status pl_write_csv(pl_output *out, const char *sub, const char *name, const char *header, const pl_table *t,
                       pl_error *err);

/* The same with the columns cols[0..ncols) of each row, in that order (cols NULL: all). */
pl_status pl_write_csv_columns(pl_output *out, const char *sub, const char *name, const char *header,
                               const pl_table *t, const size_t *cols, size_t ncols, pl_error *err);

/* pl_write_csv_columns within a time budget (NULL: none), checked as the rows are written: when it
 * runs out the file is abandoned (its temporary removed: the file is absent) and the status is
 * PL_ERR_SOLVER with a message that begins with PL_BUDGET_STOPPED and names the file. */
pl_status pl_write_csv_within(pl_output *out, const char *sub, const char *name, const char *header,
                              const pl_table *t, const size_t *cols, size_t ncols, const pl_budget *budget,
                              pl_error *err);

/* JSON (indented), taking ownership of root (NULL: out of memory building it). */
pl_status pl_write_json(pl_output *out, const char *sub, const char *name, json_t *root, pl_error *err);

/* The same within a time budget, checked as the text is written (as pl_write_csv_within). */
pl_status pl_write_json_within(pl_output *out, const char *sub, const char *name, json_t *root,
                               const pl_budget *budget, pl_error *err);

/* Building a JSON tree in which running out of memory cannot go unseen: PL_JSON_SET(o, key, value)
 * sets the member, or, when value is NULL (a constructor that ran out of memory) or the member
 * cannot be set, releases o and sets it to NULL; a later PL_JSON_SET on it only releases its value,
 * and a NULL member makes its parent NULL in turn.  A tree that lacks anything is no tree at all
 * (pl_write_json: "out of memory building FILE", exit 3), never a file with members left out (under
 * a memory limit, a run's summary was once written without its analysis's Zeno object, exit 0).
 * o and a must be variables. */
#define PL_JSON_SET(o, key, value) ((o) = pl_json_set((o), (key), (value)))
#define PL_JSON_APPEND(a, value) ((a) = pl_json_append((a), (value)))
json_t *pl_json_set(json_t *o, const char *key, json_t *value);
json_t *pl_json_append(json_t *a, json_t *value);

/* A JSON number, null for NaN (JSON has no NaN: an undefined number), and for an infinity a mark
 * that pl_write_json refuses, naming where it is: an overflowed result is never written. */
json_t *pl_json_number(double x);

/* sep, then x in its shortest exact form (pl_format_double; "nan" when undefined): every number
 * of penlim's CSV files reads back exactly, without binary noise such as 1000.0000000000007.  An
 * infinite x makes pl_file_commit refuse the file. */
void pl_put_number(pl_file *f, const char *sep, double x);
/* sep, then x as directory names write it (pl_format_short: 1e10, 2e-5, 1500): for the refined
 * parameter and a study's axes, so that a row and the directory it describes say the same number
 * (docs/formats.md, "One vocabulary"); it reads back exactly as pl_put_number's. */
void pl_put_parameter(pl_file *f, const char *sep, double x);
/* A CSV text field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
void pl_put_text(FILE *fp, const char *text);
/* x[0..n) as a JSON array (pl_json_number each); null where x is NULL, an array never allocated. */
json_t *pl_json_array(const double *x, size_t n);

#endif
