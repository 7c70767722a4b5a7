# Zeno: impact times and entry gap rates against the impact index for each run, and the capture
# time T* against mu (or h) with the accumulation time of the limit (paper 004, eq. (52)).
# Data: zeno.dat (one block per run: index, t_in, |gdot_in|, gdot_out) and capture.dat
# (mu or h, capture time, accumulation estimate, impacts before capture).
load 'plots_config.gp'
set terminal pngcairo size 1200,1000 noenhanced
set output 'zeno.png'
set key outside right
set multiplot layout 3,1 title sprintf('%s: impact sequences', case_name)
set xlabel 'impact index'
set ylabel 'impact time'
plot for [i=0:nzeno-1] 'zeno.dat' index i using 1:2 with linespoints pt 7 ps 0.5 title columnheader(1)
set logscale y
set format y '%.0e'
set ylabel '|gdot_in|'
plot for [i=0:nzeno-1] 'zeno.dat' index i using 1:3 with linespoints pt 7 ps 0.5 title columnheader(1)
unset logscale y
set format y '%g'
set logscale x
set format x '%.0e'
set xlabel param
set ylabel 'time'
if (ncapture > 0) {
    plot 'capture.dat' using 1:2 with linespoints pt 7 title 'capture time T*', \
         'capture.dat' using 1:3 with linespoints pt 6 title 'accumulation estimated from flights', \
         accumulation with lines dt 2 title 'accumulation time (closed form)'
} else {
    set label 1 'no capture (final sustained contact) in these runs' at graph 0.5, 0.5 center
    unset logscale x
    plot [0:1] [0:1] 2 notitle
}
unset multiplot
