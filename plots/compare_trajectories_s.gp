# Every compared solution's q_j and v_j against s = Gamma(t), one panel per dof and variable, with the limit
# solution as the dashed black line.
# Data: SOLUTION/trajectory_s.csv (s,t,q1..qn,v1..vn; a scheme's and an external's s is their discrete Gamma); compare_config.gp names the solutions.
load 'compare_config.gp'
set terminal pngcairo size 1200,(500 * ndof + 100) noenhanced
set output 'compare_trajectories_s.png'
set datafile separator ','
set datafile columnheaders
set key outside right
# solid lines (colour i), then other dash types: dash type 2 is the limit's alone
curve_dt(i) = i <= 8 ? 1 : 3 + ((i - 9) / 8) % 3
set xlabel 's'
set multiplot layout 2 * ndof,1 title sprintf('%s: solutions against the limit solution, in s', case_name)
do for [j=1:2 * ndof] {
    col = 2 + j
    set ylabel (j <= ndof ? sprintf('q%d', j) : sprintf('v%d', j - ndof))
    plot for [i=1:words(dirs)] word(dirs, i).'/trajectory_s.csv' using 1:(column(col)) with lines lt i dt curve_dt(i) title word(labels, i), \
         'limit/trajectory_s.csv' using 1:(column(col)) with lines lw 2.5 lc rgb 'black' dt 2 title 'limit solution'
}
unset multiplot
