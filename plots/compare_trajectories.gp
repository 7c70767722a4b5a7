# Every compared solution's q_j(t) and v_j(t), one panel per dof and variable, with the limit
# solution as the dashed black line.
# Data: SOLUTION/trajectory.csv (t,gamma,q1..qn,v1..vn,...); compare_config.gp names the solutions.
load 'compare_config.gp'
set terminal pngcairo size 1200,(500 * ndof + 100) noenhanced
set output 'compare_trajectories.png'
set datafile separator ','
set datafile columnheaders
set key outside right
# solid lines (colour i), then other dash types: dash type 2 is the limit's alone
curve_dt(i) = i <= 8 ? 1 : 3 + ((i - 9) / 8) % 3
set xlabel 't'
set multiplot layout 2 * ndof,1 title sprintf('%s: solutions against the limit solution', case_name)
do for [j=1:2 * ndof] {
    col = 2 + j
    set ylabel (j <= ndof ? sprintf('q%d', j) : sprintf('v%d', j - ndof))
    plot for [i=1:words(dirs)] word(dirs, i).'/trajectory.csv' using 1:(column(col)) with lines lt i dt curve_dt(i) title word(labels, i), \
         'limit/trajectory.csv' using 1:(column(col)) with lines lw 2.5 lc rgb 'black' dt 2 title 'limit solution'
}
unset multiplot
