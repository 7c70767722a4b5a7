# Convergence: |error| of each limit quantity against the refined parameter (mu or h; log-log,
# points) with its fitted power law (thin dotted, same colour).
# Data: convergence.dat, one block per quantity: mu (or h), |error|, fitted |error|.
load 'plots_config.gp'
load 'styles.gp'
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
    plot for [i=0:nq-1] 'convergence.dat' index i using 1:2 with linespoints lt i+1 title columnheader(1), \
         for [i=0:nq-1] 'convergence.dat' index i using 1:3 with lines lt i+1 dt 3 lw 1 notitle
    unset multiplot
}
