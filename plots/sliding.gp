# Sustained contacts: the penalty force mu G(t) (a line in the run's style) against the sliding-mode
# force F^sm(t) computed from the model at the same state (the run's markers, every 4th row), paper
# 004 Theorem 6.  Each element has its own (colour, dash, marker): a line without markers, markers
# without a line.
# Data: sliding.dat, one block per run: t, constraint, mu G, F^sm.
load 'plots_config.gp'
load 'styles.gp'
nkey = nsliding
# each block's key: its header ("mu=1e+02", a run's value) typeset
array blk_key[nsliding > 0 ? nsliding : 1]
do for [i=1:nsliding] {
    hdr_ = ''
    stats 'sliding.dat' index i-1 using (hdr_ = columnhead(1), $1) nooutput
    blk_key[i] = key_of(hdr_)
}
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
        title sprintf('%s: μG (lines) and F^{sm} (markers) on sustained contacts', spaced(case_name))
    eval key_cmd(kr, key_px, H)
    set xlabel axis('t')
    set ylabel 'μG and F^{sm}'.in_unit('lambda')
    plot for [i=0:nsliding-1] 'sliding.dat' index i using 1:3 with lines lt i+1 title blk_key[i+1], \
         for [i=0:nsliding-1] 'sliding.dat' index i every 4 using 1:4 with points lt i+1 notitle
    unset multiplot
}
