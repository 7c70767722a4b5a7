# The same trajectories in the transformed time s = Gamma(t) (paper 004, section 3): velocity
# jumps become continuous arcs and the runs converge uniformly.
# The limit solution (limit/, when computed) is the dashed black line.
# Data: runs/*/trajectory_s.csv (s,t,q1..qn,v1..vn).
load 'plots_config.gp'
set terminal pngcairo size 1200,850 noenhanced
set output 'trajectories_s.png'
set datafile separator ','
set datafile columnheaders
set key outside right
set multiplot layout 2,1 title sprintf('%s: %s trajectories in s = Gamma(t)', case_name, solution)
set xlabel 's'
set ylabel 'q1'
plot for [i=1:words(runs)] word(runs, i).'/trajectory_s.csv' using 1:3 with lines title word(labels, i), \
     for [l in limit] l.'/trajectory_s.csv' using 1:3 with lines lw 2.5 lc rgb 'black' dt 2 title 'limit solution'
set ylabel 'v1'
plot for [i=1:words(runs)] word(runs, i).'/trajectory_s.csv' using 1:(column(3 + ndof)) with lines title word(labels, i), \
     for [l in limit] l.'/trajectory_s.csv' using 1:(column(3 + ndof)) with lines lw 2.5 lc rgb 'black' dt 2 title 'limit solution'
unset multiplot
