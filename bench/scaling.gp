# The cost against the number of bodies that bench_scaling measured (bench_scaling BUDGET --plot DIR):
# log-log, each family's points and its fit over the larger half of its N (the exponent in the key),
# the issue's goal N^1.2 as a grey guide through each family's first fitted point of the solve.
#   gnuplot -e "dir='DIR'" bench/scaling.gp        # draws DIR/scaling.png
if (!exists("dir")) dir = "."
load dir."/scaling_fits.gp"
set terminal pngcairo size 1500,480 font "sans,11" noenhanced
set output dir."/scaling.png"
set multiplot layout 1,3
set logscale xy
set grid
set format y "%g"
set xlabel "N (bodies)"
set key top left box opaque
name(k) = k == 0 ? "one row" : k == 1 ? "rows, gravity" : "cradle"
title_of(q) = q == 0 ? "solve CPU [s] per simulated second" : q == 1 ? "steps per simulated second" : "CPU per step [s]"
fit_of(k, q, x) = (x >= value(sprintf("lo_%d", k)) && x <= value(sprintf("hi_%d", k))) ? \
    exp(value(sprintf("c_%d_%d", k, q))) * x ** value(sprintf("p_%d_%d", k, q)) : NaN
goal(k, x) = (x >= value(sprintf("lo_%d", k)) && x <= value(sprintf("hi_%d", k))) ? \
    fit_of(k, 0, value(sprintf("lo_%d", k))) * (x / value(sprintf("lo_%d", k))) ** 1.2 : NaN
label_of(k, q) = sprintf("%s: N^%.2f", name(k), value(sprintf("p_%d_%d", k, q)))
set samples 400
do for [q = 0:2] {
    set title title_of(q)
    set ylabel title_of(q)
    set xrange [20:2500]
    if (q == 0) {
        plot for [k = 0:2] dir."/scaling.dat" index k using 1:(column(2 + q)) with linespoints \
                 lt k + 1 dt k + 1 pt 2 * k + 5 ps 1.2 title label_of(k, q), \
             for [k = 0:2] fit_of(k, q, x) with lines lt k + 1 dt 1 lw 2 notitle, \
             for [k = 0:2] goal(k, x) with lines lc rgb "#999999" dt 3 lw 1.5 title (k == 0 ? "N^1.2 (the goal)" : "")
    } else {
        plot for [k = 0:2] dir."/scaling.dat" index k using 1:(column(2 + q)) with linespoints \
                 lt k + 1 dt k + 1 pt 2 * k + 5 ps 1.2 title label_of(k, q), \
             for [k = 0:2] fit_of(k, q, x) with lines lt k + 1 dt 1 lw 2 notitle
    }
}
unset multiplot
