# Shared styles and layout of every penlim figure, loaded by each script after plots_config.gp.
#
# Curve k (k = 1, 2, ...) is drawn with linetype k: colour (k-1) mod 8 and dash pattern (k-1) mod 5,
# so neighbouring curves differ in both and the first 40 curves have distinct (colour, dash) pairs
# (8 and 5 are coprime); linespoints also cycle through 7 point types.  No run is black: the limit
# solution has its own style, black long dashes (plot ... @limit_style).
palette = '#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #882255 #44AA99'
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
char_w = 0.62 * font_pt   # width of an average character
row_h = 1.55 * font_pt    # height of a key row
key_cols(n, len, W) = (kc_ = int((W - 40) / ((len + 9) * char_w)), kc_ < 1 ? 1 : (kc_ > n ? (n < 1 ? 1 : n) : kc_))
key_rows(n, c) = int((n + c - 1) / c)
maxlen(list) = (ml_ = 0, sum [w_=1:words(list)] (ml_ = strlen(word(list, w_)) > ml_ ? strlen(word(list, w_)) : ml_, 0), ml_)

# Each figure is rendered once per format of `formats` ('png pdf'; 'svg' for the tests' checks).
if (!exists('formats')) formats = 'png pdf'
term_cmd(fmt, name, W, H) = \
    fmt eq 'pdf' ? sprintf("set terminal pdfcairo size %.3fin,%.3fin font 'Sans,%d' noenhanced; set output '%s.pdf'", W/72., H/72., font_pt, name) : \
    fmt eq 'svg' ? sprintf("set terminal svg size %d,%d font 'Sans,%d' noenhanced; set output '%s.svg'", W, H, font_pt, name) : \
    sprintf("set terminal pngcairo size %d,%d font 'Sans,%d' noenhanced; set output '%s.png'", W, H, font_pt, name)
# The key below the panels: top at key_px pixels from the bottom, centered.
key_cmd(rows, kpx, H) = sprintf("set key at screen 0.5, %.5f center top vertical Left reverse maxrows %d box opaque samplen 3 spacing 1.1 width 2", (kpx - 8.) / H, rows)
