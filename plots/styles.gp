# Shared styles and layout of every penlim figure, loaded by each script after plots_config.gp.
#
# Curve k (k = 1, 2, ...) is drawn with linetype k: colour (k-1) mod 8 and dash pattern (k-1) mod 5,
# so neighbouring curves differ in both and the first 40 curves have distinct (colour, dash) pairs
# (8 and 5 are coprime); linespoints also cycle through 7 point types.  Curves k and k+5 share a dash
# pattern, so colours c and c+5 (mod 8, equivalently c and c+3) are of different hues: the palette's
# similar pairs (blue and sky blue, vermillion and orange, green and teal, pink and wine) sit 4 apart,
# on curves k and k+4, which differ in dash.  No run is black: the limit solution has its own style,
# black long dashes (plot ... @limit_style).
palette = '#0072B2 #D55E00 #009E73 #CC79A7 #56B4E9 #E69F00 #44AA99 #882255'
points = '7 5 9 11 13 6 4'
do for [k=1:40] {
    d_ = (k-1)%5 + 1    # a variable: 'dt (...)' would read as a dash pattern
    set linetype k lc rgb word(palette, (k-1)%8+1) dt d_ lw 1.5 pt int(word(points, (k-1)%7+1)) ps 0.6
}
set linetype cycle 40
limit_style = "lc rgb 'black' dt (16,8) lw 2.5"

# Layout, in pixels of the PNG (the PDF has the same proportions, at 72 points per inch).  The key
# sits below the panels, at fixed screen coordinates, with as many rows as its entries need: the
# canvas grows with it, so no entry is ever dropped.
font_pt = 11
# char_w: the width gnuplot gives a character when it lays out a key, in pixels of the PNG, measured
# from the pngcairo terminal itself (its font's metrics: 9.0 pixels at 11 pt with DejaVu Sans, more
# than the 6.8 of an average glyph); without pngcairo, that value.  A key column is about
# len + 10 characters (sample 3, width 2, gaps); key_cols counts len + 11, one of margin, and the
# labels' length at least 14.  The PDF's characters are narrower (pdfcairo: 4.7 points at 11 pt),
# so a key that fits the PNG fits the PDF; the tests' SVG is drawn with a font of this char_w.
char_w = 0.82 * font_pt
char_h = 1.55 * font_pt
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal push
    set terminal pngcairo size 1300,100 font sprintf('Sans,%d', font_pt)
    set output '/dev/null'
    plot x notitle
    set output
    char_w = 1300. * GPVAL_TERM_HCHAR / GPVAL_TERM_XSIZE
    char_h = 100. * GPVAL_TERM_VCHAR / GPVAL_TERM_YSIZE
    set terminal pop
}
print sprintf('key character width: %.2f', char_w)
# a key row: spacing 1.1 of the taller of the PNG's character (17.1 pixels at 11 pt) and the SVG's
# (1.5 em of its font of char_w / 0.7 points: 19.3 pixels), so the key fits in both
row_h = 1.1 * (char_h > 1.5 * char_w / 0.7 ? char_h : 1.5 * char_w / 0.7) + 0.5
key_len(list) = maxlen(list) > 14 ? maxlen(list) : 14
key_cols(n, len, W) = (kc_ = int((W - 40) / ((len + 11) * char_w)), kc_ < 1 ? 1 : (kc_ > n ? (n < 1 ? 1 : n) : kc_))
key_rows(n, c) = int((n + c - 1) / c)
maxlen(list) = (ml_ = 0, sum [w_=1:words(list)] (ml_ = strlen(word(list, w_)) > ml_ ? strlen(word(list, w_)) : ml_, 0), ml_)

# The SVG (the tests' check) is laid out with the PNG's character width: its terminal counts 0.7 em a
# character, so a font of char_w / 0.7 points gives keys as wide as the PNG's.
# Each figure is rendered once per format of `formats` ('png pdf'; 'svg' for the tests' checks).
if (!exists('formats')) formats = 'png pdf'
term_cmd(fmt, name, W, H) = \
    fmt eq 'pdf' ? sprintf("set terminal pdfcairo size %.3fin,%.3fin font 'Sans,%d' noenhanced; set output '%s.pdf'", W/72., H/72., font_pt, name) : \
    fmt eq 'svg' ? sprintf("set terminal svg size %d,%d font 'Sans,%.2f' noenhanced; set output '%s.svg'", W, H, char_w / 0.7, name) : \
    sprintf("set terminal pngcairo size %d,%d font 'Sans,%d' noenhanced; set output '%s.png'", W, H, font_pt, name)
# The key below the panels: top at key_px pixels from the bottom, centered.
key_cmd(rows, kpx, H) = sprintf("set key at screen 0.5, %.5f center top vertical Left reverse maxrows %d box opaque samplen 3 spacing 1.1 width 2", (kpx - 8.) / H, rows)
