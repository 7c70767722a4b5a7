# Convergence: |error| of each limit quantity against the refined parameter (mu or h; log-log,
# points) with its fitted power law (thin dotted, same colour).
# Data: convergence.csv, one block per quantity: quantity, mu (or h), |error|, fitted |error|, rate,
# rate_se, predicted rate, reference (docs/formats.md, "Data files for figures").
load 'plots_config.gp'
load 'styles.gp'
set datafile separator comma
# each block's title from its rows (the header line, first in block 0, is no point)
array title_of[nq > 0 ? nq : 1]
do for [i=0:nq-1] {
    stats 'convergence.csv' index i using (title_of[i+1] = sprintf('%s: rate %.3f +- %.3f (%s)', strcol(1), column(5), column(6), strcol(8)), $3) nooutput
}
nkey = nq
klen = exists('conv_len') ? conv_len : 60
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + 620 + key_px + 50)
print sprintf('convergence: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'convergence', W, H)
    set multiplot layout 1,1 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H \
        title sprintf('%s, %s: errors against %s (dotted: least-squares fits)', case_name, solution, param)
    eval key_cmd(kr, key_px, H)
    set logscale xy
    set format x '%.0e'
    set format y '%.0e'
    set xlabel param.' (model units)'
    set ylabel '|error| (model units)'
    plot for [i=0:nq-1] 'convergence.csv' index i using 2:3 with linespoints lt i+1 title title_of[i+1], \
         for [i=0:nq-1] 'convergence.csv' index i using 2:4 with lines lt i+1 dt 3 lw 1 notitle
    unset multiplot
}
