# Convergence: |error| of each limit quantity against the refined parameter (mu or h; log-log,
# points) with its fitted power law (dashed).
# Data: convergence.dat, one block per quantity: mu (or h), |error|, fitted |error|.
load 'plots_config.gp'
set terminal pngcairo size 1000,800 noenhanced
set output 'convergence.png'
set logscale xy
set format x '%.0e'
set format y '%.0e'
set xlabel param
set ylabel '|error|'
set key below vertical maxrows 4
set title sprintf('%s, %s: errors against %s (dashed: least-squares fits)', case_name, solution, param)
plot for [i=0:nq-1] 'convergence.dat' index i using 1:2 with linespoints pt 7 lc i+1 title columnheader(1), \
     for [i=0:nq-1] 'convergence.dat' index i using 1:3 with lines dt 2 lc i+1 notitle
