# Sustained contacts: the penalty force mu G(t) (solid) against the sliding-mode force F^sm(t)
# computed from the model at the same state (dotted, same colour), paper 004 Theorem 6.
# Data: sliding.csv, one block per run: mu (or h), episode, constraint, t, mu G, F^sm
# (docs/formats.md, "Data files for figures").
load 'plots_config.gp'
load 'styles.gp'
set datafile separator comma
array title_of[nsliding > 0 ? nsliding : 1]
do for [i=0:nsliding-1] {
    stats 'sliding.csv' index i using (title_of[i+1] = param.' = '.strcol(1), $4) nooutput
}
nkey = nsliding
klen = 14
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + 560 + key_px + 50)
print sprintf('sliding: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'sliding', W, H)
    set multiplot layout 1,1 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H \
        title sprintf('%s: mu G (solid) and F^sm (dotted) on sustained contacts', case_name)
    eval key_cmd(kr, key_px, H)
    set xlabel 't (model units)'
    set ylabel 'mu G  and  F^sm (model units)'
    plot for [i=0:nsliding-1] 'sliding.csv' index i using 4:5 with lines lt i+1 dt 1 title title_of[i+1], \
         for [i=0:nsliding-1] 'sliding.csv' index i using 4:6 with lines lt i+1 dt 3 lw 2.5 notitle
    unset multiplot
}
