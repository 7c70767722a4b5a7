# Zeno: impact times and entry gap rates against the impact index for each run, and, when some run
# is captured, the capture time T* against mu (or h) with the accumulation time of the limit
# (paper 004, eq. (52)).
# Data: zeno.csv (one block per run: mu or h, index, t_in, |gdot_in|, gdot_out) and capture.csv
# (mu or h, capture time, accumulation estimate, impacts before capture); docs/formats.md, "Data
# files for figures"; the columns by number in styles.gp.
load 'plots_config.gp'
load 'styles.gp'
set datafile separator comma
nkey = nzeno
# each block's key: its run's mu (or h), the first column of its rows, typeset
array blk_key[nzeno > 0 ? nzeno : 1]
# about n_markers markers a run (a run of 90 impacts marked at each was a smear)
array blk_pi[nzeno > 0 ? nzeno : 1]
do for [i=1:nzeno] {
    stats 'zeno.csv' index i-1 using (blk_key[i] = param_key(strcol(1)), column(zeno_index)) nooutput
    blk_pi[i] = marker_every(STATS_records)
}
klen = 14
W = 1300
npanels = ncapture > 0 ? 3 : 2
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
# the capture panel's key: right of the panel, off the data (inside, it covered T* where it meets
# the accumulation time), so that the figure has one key below it, the runs'
cap_px = 0
H = int(70 + npanels * 300 + key_px + cap_px + 50)
stats 'zeno.csv' using zeno_index nooutput
# integer ticks on the impact index, about ten of them
index_step = STATS_max > 10 ? ceil(STATS_max / 10.) : 1
# the capture panel's styles, black and grey (linetypes 1 and 2 are runs 1 and 2 in the panels above);
# defined here, before the loop, whose body gnuplot expands (its @macros) as it reads it
capture_style = "lc rgb 'black' dt 1 lw 1.5 pt 7 ps 0.8"
flights_style = "lc rgb '#777777' dt (3,3) lw 1.5 pt 4 ps 0.8"
print sprintf('zeno: key entries: %d', nkey + (ncapture > 0 ? 2 + (accumulation == accumulation) : 0))
do for [fmt in formats] {
    eval term_cmd(fmt, 'zeno', W, H)
    set multiplot layout npanels,1 margins 0.08,0.98,(key_px + cap_px + 55.)/H,1 - 60./H spacing 0.08,60./H \
        title sprintf('%s: impact sequences', spaced(case_name))
    eval key_cmd(kr, key_px, H)
    set xlabel 'impact index'
    set xtics index_step format '%.0f'
    set mxtics 1
    set xrange [0.5:STATS_max + 0.5]
    set ylabel 'impact time t_i'.in_unit('t')
    plot for [i=0:nzeno-1] 'zeno.csv' index i using zeno_index:zeno_t_in with linespoints lt i+1 pi blk_pi[i+1] title blk_key[i+1]
    unset key
    set logscale y
    set format y '10^{%T}'
    set ylabel 'entry gap rate |Ġ_{in}|'.in_unit('v')
    plot for [i=0:nzeno-1] 'zeno.csv' index i using zeno_index:zeno_gdot_in with linespoints lt i+1 pi blk_pi[i+1] notitle
    unset logscale y
    set format y '%g'
    if (ncapture > 0) {
        set xrange [*:*]
        set xtics autofreq format '10^{%T}'
        set logscale x
        # the first and last mu (or h) off the frame's sides
        set autoscale xfix
        set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
        set xlabel axis(param)
        set ylabel 'time'.in_unit('t')
        set rmargin at screen 0.6
        set key at screen 0.61, graph 1 left top vertical Left reverse maxrows 3 box opaque samplen 3 spacing 1.1 width 1
        if (accumulation == accumulation) {
            plot 'capture.csv' using 1:capture_time with linespoints @capture_style title 'capture time T^*', \
                 'capture.csv' using 1:capture_accumulation with linespoints @flights_style title 'accumulation T_∞ from the flights', \
                 accumulation with lines @limit_style title 'accumulation T_∞ (closed form)'
        } else {
            plot 'capture.csv' using 1:capture_time with linespoints @capture_style title 'capture time T^*', \
                 'capture.csv' using 1:capture_accumulation with linespoints @flights_style title 'accumulation T_∞ from the flights'
        }
        unset logscale x
    }
    unset multiplot
    unset xrange
    set xtics autofreq format '%g'
}
