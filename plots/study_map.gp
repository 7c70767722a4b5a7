# A study's map: one quantity over two axes, one cell per run (its edges halfway to the
# neighbouring values, in log where the axis is mu, h or rtol), coloured by the value (|value| on a
# log scale for an error or a distance); a run that failed or has no value is left white.  The
# other axes are held at one value each, said below the map (the refined one at its finest value).
# Loaded by FIGURE.gp, which sets figure, case_name, solver, quantity, xname, yname, logx, logy, logcb,
# key_text (the key: the values the other axes are held at) and title_tail (the title's end: the
# title is composed here, in words).
# Data: FIGURE.csv, a header (X,Y,X_low,X_high,Y_low,Y_high,QUANTITY), then per cell: x, y, x_low,
# x_high, y_low, y_high, value.
set datafile separator comma
W = 900
H = 760
print sprintf('%s: key entries: %d', figure, 1)
# the caption below the map: key_text ("QUANTITY at A=v B=w", or "QUANTITY, one cell per run") with the
# quantity's symbol and each held axis typeset ("v_1(T) at μ = 10^8"); its names are the checked ones
# of study.json (letters, digits, _ and -, drawn spaced where styles.gp has no symbol) and its values
# numbers penlim wrote, so that it is drawn as enhanced text
cap_rest_ = key_text[strlen(quantity) + 1:]
map_caption = sym(quantity).(strstrt(cap_rest_, ' at ') == 1 ? \
    ' at '.(cw_ = '', sum [w_=2:words(cap_rest_)] (cw_ = cw_.(w_ > 2 ? ', ' : '').key_of(word(cap_rest_, w_)), 0), cw_) : \
    (strlen(key_text) > strlen(quantity) ? key_text[strlen(quantity) + 1:] : ''))
set palette defined (0 '#440154', 1 '#3B528B', 2 '#21908C', 3 '#5DC863', 4 '#FDE725')
do for [fmt in formats] {
    eval term_cmd(fmt, figure, W, H)
    set title sprintf('%s (%s): %s over %s and %s%s', spaced(case_name), solver_words(solver), words_of(quantity), \
        sym(xname), sym(yname), title_tail)
    set key at screen 0.5, 0.035 center bottom horizontal Left reverse samplen 0
    set bmargin 7
    if (logx) { set logscale x; set format x '10^{%T}' } else { unset logscale x; set format x '% h' }
    if (logy) { set logscale y; set format y '10^{%T}' } else { unset logscale y; set format y '% h' }
    if (logcb) { set logscale cb; set format cb '10^{%T}'; set cblabel abs_axis(quantity) } \
    else { unset logscale cb; set format cb '% h'; set cblabel axis(quantity) }
    set xlabel axis(xname)
    set ylabel axis(yname)
    set offsets 0, 0, 0, 0
    set autoscale xfix
    set autoscale yfix
    set autoscale cbfix
    plot figure.'.csv' using 1:2:3:4:5:6:(logcb ? (abs($7) > 0 ? abs($7) : NaN) : $7) \
        with boxxyerror fillstyle solid 1.0 border lw 0.5 lc palette notitle, \
        '' using 1:(NaN) with lines lc rgb 'white' title map_caption
}
