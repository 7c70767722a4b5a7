# Sustained contacts: the penalty force mu G(t) (solid) against the sliding-mode force F^sm(t)
# computed from the model at the same state (dashed), paper 004 Theorem 6.
# Data: sliding.dat, one block per run: t, constraint, mu G, F^sm.
load 'plots_config.gp'
set terminal pngcairo size 1200,700 noenhanced
set output 'sliding.png'
set xlabel 't'
set ylabel 'mu G  and  F^sm'
set key outside right
set title sprintf('%s: mu G (solid) and F^sm (dashed) on sustained contacts', case_name)
plot for [i=0:nsliding-1] 'sliding.dat' index i using 1:3 with lines lc i+1 title columnheader(1), \
     for [i=0:nsliding-1] 'sliding.dat' index i using 1:4 with lines dt 2 lc i+1 notitle
