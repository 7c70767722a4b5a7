/* For tests: whether gnuplot drew every key entry a figure script titles, inside the canvas (needs
 * check.h and cli_util.h first: CHECK, dir, slurp). */
#ifndef PL_TEST_LEGEND_CHECK_H
#define PL_TEST_LEGEND_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The legend check: render SUB/NAME.gp to SVG (the scripts' formats='svg') and count the key
 * entries gnuplot actually drew (a plot group whose first element is its key text) inside the
 * canvas, against the number the script says it titles ("NAME: key entries: N").  gnuplot drops
 * the entries that do not fit, so a key too small for its entries fails here.
 * The SVG terminal's own character width (0.7 em) is narrower than the PNG's (pngcairo measures its
 * font: 9.0 pixels at 11 pt), so an SVG laid out at the same font size hid a PNG key wider than the
 * canvas.  styles.gp therefore draws the SVG with a font whose character width is the PNG's
 * (char_w, measured from pngcairo, printed as "key character width: W"): the SVG's key has the
 * PNG's geometry, and each entry must lie in the canvas, from its line sample (left) to the end of
 * its text, counted at char_w a character (gnuplot's own layout rule). */
/* The characters a key text shows: enhanced text's <tspan> markup left out, an entity (&amp;) one
 * character, a UTF-8 sequence (μ, Γ) one character. */
static inline size_t visible_chars(const char *from, const char *to)
{
    size_t n = 0;
    for (const char *c = from; c < to; c++) {
        if (*c == '<') {
            const char *close = strchr(c, '>');
            c = close && close < to ? close : to - 1;
        } else if (*c == '&') {
            const char *semi = strchr(c, ';');
            n++;
            c = semi && semi < to ? semi : c;
        } else
            n += ((unsigned char)*c & 0xC0) != 0x80;
    }
    return n;
}

static inline void check_legend(const char *sub, const char *name, int min_entries)
{
    char cmd[1024], file[512];
    snprintf(cmd, sizeof cmd, "cd %s/%s && gnuplot -e \"formats='svg'\" %s.gp 2> %s.svglog", dir, sub, name, name);
    CHECK(system(cmd) == 0, "gnuplot renders %s/%s.gp to SVG", sub, name);
    snprintf(file, sizeof file, "%s/%s.svglog", sub, name);
    char *log = slurp(file);
    snprintf(file, sizeof file, "%s/%s.svg", sub, name);
    char *svg = slurp(file);
    int wanted = -1, drawn = 0, outside = 0, clipped = 0;
    double char_w = 0;
    const char *cw = log ? strstr(log, "key character width: ") : NULL;
    if (cw)
        char_w = atof(cw + strlen("key character width: "));
    char key[128];
    snprintf(key, sizeof key, "%s: key entries: ", name);
    const char *at = log ? strstr(log, key) : NULL;
    if (at)
        wanted = atoi(at + strlen(key));
    double W = 0, H = 0;
    const char *size = svg ? strstr(svg, "viewBox=\"0 0 ") : NULL;
    if (size)
        sscanf(size, "viewBox=\"0 0 %lf %lf", &W, &H);
    for (const char *g = svg; g && (g = strstr(g, "<g id=\"gnuplot_plot_")) != NULL; g++) {
        /* the key entry, when drawn, comes first in its plot's group */
        const char *next = strstr(g + 1, "<g id=\"gnuplot_plot_");
        const char *text = strstr(g, "<text>");
        const char *path = strstr(g, "<path");
        if (!text || (next && text > next) || (path && path < text))
            continue;
        /* an untitled element (its <title> is its id): a text it draws, a point's label say, is no key */
        const char *title = strstr(g, "<title>");
        if (title && (!next || title < next) && strncmp(title + 7, "gnuplot_plot_", 13) == 0)
            continue;
        drawn++;
        const char *tr = text;
        while (tr > g && strncmp(tr, "translate(", 10) != 0)
            tr--;
        double x = -1, y = -1;
        if (tr > g)
            sscanf(tr, "translate(%lf,%lf)", &x, &y);
        const char *end = strstr(text, "</text>");
        size_t len = end ? visible_chars(text + strlen("<text>"), end) : 0;
        outside += !(x >= 0 && x + (double)len * char_w <= W && y >= 0 && y <= H);
        /* its line sample, left of the text: a key wider than the canvas (centered) cuts it off */
        const char *sample = strstr(text, "d='M");
        double sx = 0;
        if (sample && (!next || sample < next) && sscanf(sample, "d='M%lf", &sx) == 1)
            clipped += sx < 0;
    }
    CHECK(char_w > 5, "%s/%s.gp prints the key's character width (got %g)", sub, name, char_w);
    CHECK(wanted >= min_entries, "%s/%s.gp titles %d curves (at least %d expected)", sub, name, wanted, min_entries);
    CHECK(drawn == wanted, "%s/%s: %d key entries drawn, %d titled", sub, name, drawn, wanted);
    CHECK(outside == 0, "%s/%s: %d key entries outside the canvas", sub, name, outside);
    CHECK(clipped == 0, "%s/%s: %d key samples cut off at the canvas's edge", sub, name, clipped);
    free(log);
    free(svg);
    snprintf(cmd, sizeof cmd, "cd %s/%s && rm -f %s.svg %s.svglog", dir, sub, name, name);
    CHECK(system(cmd) == 0, "remove the SVG of %s", name);
}

#endif
