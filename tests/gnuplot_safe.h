/* For tests: whether a configuration a figure script loads (plots_config.gp, compare_config.gp) is
 * data to gnuplot, checked independently of the program's reader.  gnuplot runs a line's
 * backquotes and @ macros outside single quotes, system() and ! anywhere in a command, a file name
 * "<command" as a pipe, and continues a line ending in a backslash (even inside a string); inside
 * single quotes it substitutes nothing and ends the string at a ' that is not doubled.  So every
 * line must be blank, a comment, or NAME = VALUE with VALUE a number, NaN or one single-quoted
 * string whose quotes are doubled and which has no control character, no line may end in a
 * backslash, and (with file_lists) the words of the lists the scripts open as files (runs, dirs,
 * limit) must be plain names. */
#ifndef PL_TEST_GNUPLOT_SAFE_H
#define PL_TEST_GNUPLOT_SAFE_H

#include <stdio.h>
#include <string.h>

static inline int gp_safe_name_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* The words of a file-name list: letters, digits and ._+=:/- only. */
static inline int gp_safe_file_words(const char *s, size_t len)
{
    for (size_t k = 0; k < len; k++)
        if (!(s[k] == ' ' || (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
              (s[k] >= '0' && s[k] <= '9') || strchr("._+=:/-", s[k])))
            return 0;
    return 1;
}

/* NULL if text (len bytes) is safe as described above, else why not (a static message). */
static inline const char *gnuplot_config_unsafe(const char *text, size_t len, int file_lists)
{
    static char why[160];
    size_t line = 0;
    for (size_t at = 0; at < len; line++) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, k = at;
        for (size_t j = at; j < end; j++)
            if ((unsigned char)text[j] < 0x20 || text[j] == 0x7f) {
                snprintf(why, sizeof why, "line %zu: a control character", line + 1);
                return why;
            }
        if (end > at && text[end - 1] == '\\') {
            snprintf(why, sizeof why, "line %zu: ends in a backslash", line + 1);
            return why;
        }
        while (k < end && text[k] == ' ')
            k++;
        if (k < end && text[k] != '#') {
            size_t name = k;
            while (k < end && gp_safe_name_char(text[k], k == name))
                k++;
            size_t name_len = k - name;
            while (k < end && text[k] == ' ')
                k++;
            if (name_len == 0 || k == end || text[k] != '=') {
                snprintf(why, sizeof why, "line %zu: not NAME = VALUE", line + 1);
                return why;
            }
            k++;
            while (k < end && text[k] == ' ')
                k++;
            size_t value = k;
            if (k < end && text[k] == '\'') {
                for (k++; k < end; k++)
                    if (text[k] == '\'' && k + 1 < end && text[k + 1] == '\'')
                        k++;
                    else if (text[k] == '\'')
                        break;
                if (k >= end || k + 1 != end) {
                    snprintf(why, sizeof why, "line %zu: not one single-quoted string", line + 1);
                    return why;
                }
                int file_list = file_lists && ((name_len == 4 && (memcmp(text + name, "runs", 4) == 0 ||
                                                   memcmp(text + name, "dirs", 4) == 0)) ||
                                (name_len == 5 && memcmp(text + name, "limit", 5) == 0));
                if (file_list && !gp_safe_file_words(text + value + 1, k - value - 1)) {
                    snprintf(why, sizeof why, "line %zu: a file name that is not a plain name", line + 1);
                    return why;
                }
            } else if (!(end - value == 3 && memcmp(text + value, "NaN", 3) == 0)) {
                for (; k < end; k++)
                    if (!strchr("0123456789+-.eE", text[k])) {
                        snprintf(why, sizeof why, "line %zu: a value neither a number nor a string", line + 1);
                        return why;
                    }
                if (k == value) {
                    snprintf(why, sizeof why, "line %zu: no value", line + 1);
                    return why;
                }
            }
        }
        at = end + 1;
    }
    return NULL;
}

#endif
