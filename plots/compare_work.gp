# Work-precision: each distance to the limit solution against the wall time and against the
# right-hand-side evaluations, log-log, one point style and colour per solver.
# Data: compare.csv (one row per solution); compare_config.gp lists the solvers and distances.
load 'compare_config.gp'
set terminal pngcairo size 1200,(350 * words(distances) + 100) noenhanced
set output 'compare_work.png'
set datafile separator ','
set datafile columnheaders
set logscale xy
set format xy '%.0e'
set xtics rotate by 45 right
set key outside right
set multiplot layout words(distances),2 title sprintf('%s: work-precision against the limit solution', case_name)
do for [d=1:words(distances)] {
    dist = word(distances, d)
    set ylabel dist
    do for [cost in 'wall_seconds rhs_evals'] {
        set xlabel cost
        plot for [k=1:words(solvers)] 'compare.csv' using (strcol('solution') eq word(solvers, k) ? column(cost) : NaN):(column(dist)) with linespoints lt k pt k title word(solvers, k)
    }
}
unset multiplot
