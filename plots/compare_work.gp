# Work-precision: each distance to the limit solution against the wall time and against the
# right-hand-side evaluations, log-log, one style (colour, dash, marker) per solver family (penalty,
# each scheme, external files), a family's points joined in order of refinement (mu increasing,
# h decreasing).  An external file has no cost: it is the horizontal line of its distance across
# the costs plotted.
# Data: compare_work.dat, one block per distance and family (in the order of `distances` and
# `families` of compare_config.gp): wall_seconds, rhs_evals, distance.
load 'compare_config.gp'
load 'styles.gp'
nd = words(distances)
nfam = words(families)
nkey = nfam
klen = key_len(families)
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + nd * 300 + key_px + 50)
print sprintf('compare_work: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'compare_work', W, H)
    set multiplot layout nd,2 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,60./H \
        title sprintf('%s: work-precision against the limit solution', spaced(case_name))
    eval key_cmd(kr, key_px, H)
    set logscale xy
    set format x '%.0e'
    set format y '%.0e'
    do for [d=1:nd] {
        set ylabel axis(word(distances, d))
        # a point below 1e-12 of the panel's largest distance is round-off (the rule of the panels
        # themselves): not drawn.  The y range has a quarter of a decade of headroom each side, so
        # no point sits on the frame.  (stats counts only the points in the current range.)
        set yrange [*:*]
        stats 'compare_work.dat' index ((d-1)*nfam):(d*nfam - 1) using 3 nooutput
        floor_d = 1e-12 * STATS_max
        stats 'compare_work.dat' index ((d-1)*nfam):(d*nfam - 1) using ($3 >= floor_d ? $3 : NaN) nooutput
        set yrange [STATS_min / 10**0.25 : STATS_max * 10**0.25]
        do for [c=1:2] {
            set xlabel (c == 1 ? 'wall time (s)' : 'right-hand-side evaluations')
            # the key from keyentry: every family is titled even where it has no point
            plot for [f=1:nfam] 'compare_work.dat' index (d-1)*nfam + f-1 using c:($3 >= floor_d ? $3 : NaN) with linespoints lt f notitle, \
                 for [f=1:nfam] keyentry with linespoints lt f title spaced(word(families, f))
            unset key
        }
    }
    unset multiplot
}
