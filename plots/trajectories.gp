# Trajectories q1(t) and v1(t) overlaid for the swept mu (or h).
# The limit solution (limit/, when computed) is the dashed black line.
# Data: runs/*/trajectory.csv (t,gamma,q1..qn,v1..vn,...); plots_config.gp names the runs.
load 'plots_config.gp'
set terminal pngcairo size 1200,850 noenhanced
set output 'trajectories.png'
set datafile separator ','
set datafile columnheaders
set key outside right
set multiplot layout 2,1 title sprintf('%s: %s trajectories, refining %s', case_name, solution, param)
set xlabel 't'
set ylabel 'q1'
plot for [i=1:words(runs)] word(runs, i).'/trajectory.csv' using 1:3 with lines title word(labels, i), \
     for [l in limit] l.'/trajectory.csv' using 1:3 with lines lw 2.5 lc rgb 'black' dt 2 title 'limit solution'
set ylabel 'v1'
plot for [i=1:words(runs)] word(runs, i).'/trajectory.csv' using 1:(column(3 + ndof)) with lines title word(labels, i), \
     for [l in limit] l.'/trajectory.csv' using 1:(column(3 + ndof)) with lines lw 2.5 lc rgb 'black' dt 2 title 'limit solution'
unset multiplot
