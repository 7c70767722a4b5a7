/* The configuration a figure script loads (plots_config.gp, compare_config.gp): gnuplot assignments
 * NAME = VALUE of integers, numbers and strings.
 *
 * gnuplot executes what it loads, and a results directory is shared data, so strings are written
 * only through pl_gp_put_string and pl_gp_put_word: single-quoted, where gnuplot substitutes
 * nothing (no backquote command, no @ macro, no backslash escape; its documentation, "Syntax" and
 * "Substitution"), each ' doubled, and every control character replaced by '?' (a line break would
 * end the assignment, and a backslash at the end of a line continues it even inside a string).
 *
 * `penlim plot` never lets gnuplot load a configuration it found in a directory: it reads it with
 * pl_gp_config_parse (the grammar pl_gp_config_write writes, nothing else), checks each value
 * against what it may be, and writes it again. */
#ifndef PL_PLOT_CONFIG_H
#define PL_PLOT_CONFIG_H

#include <stdio.h>

#include "core/status.h"

/* NAME = 'TEXT' */
void pl_gp_put_string(FILE *fp, const char *name, const char *text);
/* NAME = 'WORD WORD ...', a list gnuplot splits with words() and word(): pl_gp_begin_words, then
 * pl_gp_put_word for each word, then pl_gp_end_words. */
void pl_gp_begin_words(FILE *fp, const char *name);
void pl_gp_put_word(FILE *fp, const char *word, int *first);
void pl_gp_end_words(FILE *fp);
/* NAME = INTEGER */
void pl_gp_put_int(FILE *fp, const char *name, long value);
/* NAME = NUMBER (as few digits as read back exactly, always with a point or an exponent), NaN when
 * not finite */
void pl_gp_put_number(FILE *fp, const char *name, double value);

typedef enum { PL_GP_INT, PL_GP_NUMBER, PL_GP_STRING } pl_gp_kind;

typedef struct {
    char name[32];
    pl_gp_kind kind;
    long integer;  /* PL_GP_INT */
    double number; /* PL_GP_NUMBER (NaN allowed) */
    char *text;    /* PL_GP_STRING, unquoted */
} pl_gp_entry;

typedef struct {
    pl_gp_entry *entries;
    size_t n;
} pl_gp_config;

/* Read text (len bytes; file names it in messages) line by line: blank lines, comments (#...),
 * and NAME = VALUE with NAME letters, digits and '_', VALUE an integer, a finite number, NaN or a
 * single-quoted string without control characters.  Anything else, or a NAME twice, is refused
 * (PL_ERR_INPUT, one line naming the file and the line); PL_ERR_NOMEM if out of memory.  c is
 * freeable whatever the status. */
pl_status pl_gp_config_parse(const char *text, size_t len, const char *file, pl_gp_config *c, pl_error *err);

/* The entry NAME, or NULL. */
const pl_gp_entry *pl_gp_config_get(const pl_gp_config *c, const char *name);

/* Every entry as pl_gp_put_* writes it, in the order read. */
void pl_gp_config_write(FILE *fp, const pl_gp_config *c);

void pl_gp_config_free(pl_gp_config *c);

/* The n-th (from 0) word of a list (words separated by spaces) into buf; 0 if there is none or it
 * does not fit. */
int pl_gp_word(const char *list, size_t n, char *buf, size_t len);

#endif
