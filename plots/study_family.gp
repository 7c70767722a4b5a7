# A study's line family: one quantity against one axis (the refined one, mu or h, when the study has
# one), one line per point of the other axes (its key entry: their values), log-log where the axis
# is mu, h or rtol and the quantity an error or a distance (|value|; a zero is not drawn).
# Loaded by FIGURE.gp, which sets figure, case_name, solver, quantity, xname, logx, logy, nlines,
# klen and title_tail (the title's end: the title is composed here, in words).
# Data: FIGURE.csv (docs/formats.md, "Data files for figures"): the header label,AXIS,QUANTITY, then
# one block per line (two blank lines between blocks), each row its line's label, the axis value
# and the quantity value; a blank line (a break in the line) where a run failed or has no value.
set datafile separator comma
array line_label[nlines > 0 ? nlines : 1]
do for [i=1:nlines] {
    # each block's label from its rows (the last, a data row, is the one kept: the file's header
    # line comes first in block 0)
    stats figure.'.csv' index i-1 using (line_label[i] = strcol(1), 0) nooutput
}
nkey = nlines
W = 1100
kc = key_cols(nkey, klen > 14 ? klen : 14, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + 560 + key_px + 50)
print sprintf('%s: key entries: %d', figure, nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, figure, W, H)
    set multiplot layout 1,1 margins 0.09,0.97,(key_px + 55.)/H,1 - 60./H \
        title sprintf('%s (%s): %s against %s%s', spaced(case_name), solver_words(solver), words_of(quantity), sym(xname), title_tail)
    eval key_cmd(kr, key_px, H)
    if (logx) { set logscale x; set format x '10^{%T}' } else { unset logscale x; set format x '% h' }
    if (logy) { set logscale y; set format y '10^{%T}'; set ylabel abs_axis(quantity) } \
    else { unset logscale y; set format y '% h'; set ylabel axis(quantity) }
    set xlabel axis(xname)
    set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05
    # a quantity constant to round-off (the ball's first impact time, equal at every mu to 1e-15) drew
    # as a full-height spike between ticks that print alike: a range of 10% around it instead, the
    # title saying so
    set yrange [*:*]
    unset label 1
    if (!logy) {
        stats figure.'.csv' using 3 nooutput
        mid_ = (STATS_max + STATS_min) / 2.
        if (STATS_records > 0 && STATS_max - STATS_min <= 1e-9 * abs(mid_)) {
            hw_ = mid_ != 0 ? 0.05 * abs(mid_) : 1.
            set yrange [mid_ - hw_:mid_ + hw_]
            set format y '%g'
            set label 1 sprintf('constant to round-off: %.15g at every point (spread %.1e)', mid_, STATS_max - STATS_min) \
                at graph 0.5, graph 0.9 center front
        }
    }
    plot for [i=0:nlines-1] figure.'.csv' index i \
        using 2:(logy ? (abs($3) > 0 ? abs($3) : NaN) : $3) with linespoints lt i+1 title line_label[i+1] noenhanced
    unset multiplot
}
