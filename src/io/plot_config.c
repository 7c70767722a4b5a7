#include "io/plot_config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* text inside single quotes: ' doubled, control characters as '?' */
static void put_quoted(FILE *fp, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '\'')
            fputc('\'', fp);
        fputc(is_control(*c) ? '?' : *c, fp);
    }
}

void pl_gp_put_string(FILE *fp, const char *name, const char *text)
{
    fprintf(fp, "%s = '", name);
    put_quoted(fp, text);
    fputs("'\n", fp);
}

void pl_gp_begin_words(FILE *fp, const char *name)
{
    fprintf(fp, "%s = '", name);
}

void pl_gp_put_word(FILE *fp, const char *word, int *first)
{
    if (!*first)
        fputc(' ', fp);
    *first = 0;
    put_quoted(fp, word);
}

void pl_gp_end_words(FILE *fp)
{
    fputs("'\n", fp);
}

void pl_gp_put_int(FILE *fp, const char *name, long value)
{
    fprintf(fp, "%s = %ld\n", name, value);
}

void pl_gp_put_number(FILE *fp, const char *name, double value)
{
    char num[PL_NUMBER_LEN];
    if (!isfinite(value)) {
        fprintf(fp, "%s = NaN\n", name);
        return;
    }
    pl_format_double(value, num, sizeof num);
    /* with a point or an exponent: gnuplot (and pl_gp_config_parse) then read a real, not an integer */
    fprintf(fp, "%s = %s%s\n", name, num, strpbrk(num, ".e") ? "" : ".0");
}

/* ---- reading -------------------------------------------------------------------------------- */

static size_t skip_blanks(const char *s, size_t at, size_t end)
{
    while (at < end && (s[at] == ' ' || s[at] == '\t'))
        at++;
    return at;
}

/* The value of a line from at to end (blanks around it skipped) into e. */
static pl_status parse_value(const char *s, size_t at, size_t end, pl_gp_entry *e, pl_error *err, const char *where)
{
    while (end > at && (s[end - 1] == ' ' || s[end - 1] == '\t'))
        end--;
    if (at < end && s[at] == '\'') {
        char *text = malloc(end - at);
        if (!text)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
        size_t n = 0, k = at + 1;
        for (; k < end; k++) {
            if (s[k] == '\'' && k + 1 < end && s[k + 1] == '\'')
                text[n++] = s[k++];
            else if (s[k] == '\'')
                break;
            else
                text[n++] = s[k];
        }
        text[n] = '\0';
        if (k + 1 != end) {
            free(text);
            return pl_fail(err, PL_ERR_INPUT, "%s: a string must be one quoted text ('...', a quote doubled)", where);
        }
        e->kind = PL_GP_STRING;
        e->text = text;
        return PL_OK;
    }
    char token[64];
    if (end - at == 0 || end - at >= sizeof token)
        return pl_fail(err, PL_ERR_INPUT, "%s: the value must be a number or a quoted string", where);
    memcpy(token, s + at, end - at);
    token[end - at] = '\0';
    if (strcmp(token, "NaN") == 0) {
        e->kind = PL_GP_NUMBER;
        e->number = NAN;
        return PL_OK;
    }
    if (strspn(token, "-0123456789") == strlen(token)) {
        char *stop;
        errno = 0;
        e->integer = strtol(token, &stop, 10);
        e->kind = PL_GP_INT;
        if (*stop == '\0' && stop != token && errno == 0)
            return PL_OK;
    } else if (strspn(token, "-+.0123456789eE") == strlen(token)) {
        char *stop;
        e->number = strtod(token, &stop);
        e->kind = PL_GP_NUMBER;
        if (*stop == '\0' && stop != token && isfinite(e->number))
            return PL_OK;
    }
    return pl_fail(err, PL_ERR_INPUT, "%s: the value must be a number or a quoted string", where);
}

static pl_status parse_line(const char *s, size_t at, size_t end, pl_gp_config *c, pl_error *err, const char *where)
{
    for (size_t k = at; k < end; k++)
        if (is_control((unsigned char)s[k]) && s[k] != '\t')
            return pl_fail(err, PL_ERR_INPUT, "%s: a control character", where);
    at = skip_blanks(s, at, end);
    if (at == end || s[at] == '#')
        return PL_OK;
    size_t name = at;
    while (at < end && (s[at] == '_' || (s[at] >= 'a' && s[at] <= 'z') || (s[at] >= 'A' && s[at] <= 'Z') ||
                        (at > name && s[at] >= '0' && s[at] <= '9')))
        at++;
    size_t name_len = at - name;
    at = skip_blanks(s, at, end);
    if (name_len == 0 || name_len >= sizeof c->entries[0].name || at == end || s[at] != '=')
        return pl_fail(err, PL_ERR_INPUT, "%s: not NAME = VALUE", where);
    pl_gp_entry e = {0};
    memcpy(e.name, s + name, name_len);
    if (pl_gp_config_get(c, e.name))
        return pl_fail(err, PL_ERR_INPUT, "%s: %s set twice", where, e.name);
    char named[400]; /* the messages name the setting */
    snprintf(named, sizeof named, "%s: %s", where, e.name);
    pl_status st = parse_value(s, skip_blanks(s, at + 1, end), end, &e, err, named);
    if (st != PL_OK)
        return st;
    pl_gp_entry *grown = realloc(c->entries, (c->n + 1) * sizeof *grown);
    if (!grown) {
        free(e.text);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
    }
    c->entries = grown;
    c->entries[c->n++] = e;
    return PL_OK;
}

pl_status pl_gp_config_parse(const char *text, size_t len, const char *file, pl_gp_config *c, pl_error *err)
{
    memset(c, 0, sizeof *c);
    size_t line = 1;
    for (size_t at = 0; at < len; line++) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        char where[300];
        snprintf(where, sizeof where, "%s line %zu", file, line);
        pl_status s = parse_line(text, at, end, c, err, where);
        if (s != PL_OK)
            return s;
        at = end + 1;
    }
    return PL_OK;
}

const pl_gp_entry *pl_gp_config_get(const pl_gp_config *c, const char *name)
{
    for (size_t k = 0; k < c->n; k++)
        if (strcmp(c->entries[k].name, name) == 0)
            return &c->entries[k];
    return NULL;
}

void pl_gp_config_write(FILE *fp, const pl_gp_config *c)
{
    for (size_t k = 0; k < c->n; k++) {
        const pl_gp_entry *e = &c->entries[k];
        if (e->kind == PL_GP_INT)
            pl_gp_put_int(fp, e->name, e->integer);
        else if (e->kind == PL_GP_NUMBER)
            pl_gp_put_number(fp, e->name, e->number);
        else
            pl_gp_put_string(fp, e->name, e->text);
    }
}

void pl_gp_config_free(pl_gp_config *c)
{
    for (size_t k = 0; k < c->n; k++)
        free(c->entries[k].text);
    free(c->entries);
    c->entries = NULL;
    c->n = 0;
}

int pl_gp_word(const char *list, size_t n, char *buf, size_t len)
{
    const char *w = list;
    for (size_t k = 0;; k++) {
        w += strspn(w, " ");
        if (!*w)
            return 0;
        size_t wl = strcspn(w, " ");
        if (k == n) {
            if (wl >= len)
                return 0;
            memcpy(buf, w, wl);
            buf[wl] = '\0';
            return 1;
        }
        w += wl;
    }
}
