# Sustained contacts: the penalty force mu G(t) (a line in the run's style) against the sliding-mode
# force F^sm(t) computed from the model at each run's state (under a physical k: -lambda and its
# limit), paper 004 Theorem 6.  F^sm of every run is one element, the limit's black dashes on top:
# the runs' F^sm lie on one another (they converge with the runs), and one style for all of them
# leaves each run one dash and one marker of its own.
# Data: sliding.csv, one block per run: mu (or h), episode, constraint, t, mu G, F^sm
# (docs/formats.md, "Data files for figures"; the columns by number in styles.gp).
load 'plots_config.gp'
load 'styles.gp'
set datafile separator comma
nkey = nsliding + 1
# each block's key: its run's mu (or h), the first column of its rows, typeset
array blk_key[nsliding > 0 ? nsliding : 1]
array blk_pi[nsliding > 0 ? nsliding : 1]
do for [i=1:nsliding] {
    stats 'sliding.csv' index i-1 using (blk_key[i] = param_key(strcol(1)), column(sliding_t)) nooutput
    blk_pi[i] = marker_every(STATS_records)
}
klen = 20
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + 560 + key_px + 50)
print sprintf('sliding: key entries: %d', nkey)
# The y range: an impact that opens a sustained contact can drive mu G far beyond the sliding force
# (the cup's, at mu = 1e8: -5900 against F^sm near -2), which then reads as a flat line at 0. Where mu G
# spans more than 10 times F^sm's scale, the panel is F^sm's range widened by 3 of its scales, and a
# note says how far mu G leaves it.
clip_note = ''
if (nsliding > 0) {
    stats 'sliding.csv' using sliding_Fsm nooutput
    if (have_stats(0)) {
        f_lo = STATS_min; f_hi = STATS_max
        stats 'sliding.csv' using sliding_muG nooutput
        g_lo = STATS_min; g_hi = STATS_max
        f_sc = abs(f_lo) > abs(f_hi) ? abs(f_lo) : abs(f_hi)
        f_sc = f_hi - f_lo > f_sc ? f_hi - f_lo : f_sc
        if (f_sc > 0 && g_hi - g_lo > 10 * f_sc) {
            set yrange [f_lo - 3 * f_sc : f_hi + 3 * f_sc]
            clip_note = sprintf('the contacts'' starts leave the panel (%s between %.3g and %.3g)', \
                                physical_k ? '-λ' : 'μG', g_lo, g_hi)
        }
    }
}
do for [fmt in formats] {
    eval term_cmd(fmt, 'sliding', W, H)
    # the columns' meaning by the law (docs/formats.md): mu G and its limit F^sm (Kelvin-Voigt), or,
    # where k is physical and mu G has no limit, minus the contact force and minus its limit
    set multiplot layout 1,1 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H \
        title sprintf('%s: %s on sustained contacts', spaced(case_name), physical_k ? \
                      '-λ and its limit -λ_{lim} (black dashes)' : 'μG and F^{sm} (black dashes)')
    eval key_cmd(kr, key_px, H)
    if (clip_note ne '') { set label 7 clip_note at graph 0.98, graph 0.05 right front font ',9' noenhanced }
    set xlabel axis('t')
    set ylabel (physical_k ? '-λ and -λ_{lim}' : 'μG and F^{sm}').in_unit('lambda')
    plot for [i=0:nsliding-1] 'sliding.csv' index i using sliding_t:sliding_muG with linespoints lt i+1 pi blk_pi[i+1] title blk_key[i+1], \
         'sliding.csv' using sliding_t:sliding_Fsm with lines @limit_style title (physical_k ? '-λ_{lim} (every run)' : 'F^{sm} (every run)')
    unset multiplot
}
