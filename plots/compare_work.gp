# Work-precision: each distance to the limit solution against the work, the solve's right-hand-side
# evaluations (compare.csv's rhs_evals: CVODE's count for the penalty, 2 per step for Moreau-Jean,
# 1 per step for Paoli and Maury; a scheme's LCP solves, lcp_solves, are not counted), log-log, one panel per
# distance (at most 6, in 3 rows of 2: the others are in compare.csv), one line per solver family
# in its hue (styles.gp), joined in order of refinement (mu increasing, h decreasing), each point
# labelled with its mu or h (the first two families' labels above their points, the next two's below:
# Moreau-Jean's and Maury's, side by side in work on the wedge, overprinted each other's).  What a
# panel cannot draw is said in it: a solution that failed, one
# without a cost (an external file), one whose distance is undefined, and one at round-off (below
# 1e-12 of the panel's largest distance, the rule that drops whole panels).
# Data: compare.csv (a row per solution, the limit solution's first; columns by name: styles.gp);
# compare_config.gp names the families and the distances shown.
load 'compare_config.gp'
load 'styles.gp'
set datafile separator ','
set datafile columnheaders
nd = words(distances) > 6 ? 6 : words(distances)
nfam = words(families)
nkey = nfam
klen = key_len(families)
W = 1300
pcols = nd > 1 ? 2 : 1
prows = int((nd + 1) / 2)
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + prows * 360 + key_px + 50)
# a row's point: its family's, drawn (a cost and a distance above the floor), else NaN
fam_row(f) = strcol(col_solver) eq f && strcol(col_status) eq 'ok'
# the value as compare.csv writes it (the short form, every significant digit: 1.5e5 and 2.5e5 differ)
value_text(dummy) = strcol(col_param_name) eq 'mu' || strcol(col_param_name) eq 'h' ? value_key(strcol(col_param)) : ''
row_name(dummy) = solver_words(strcol(col_solver)).(value_text(0) ne '' ? ' '.sym(strcol(col_param_name)).' = '.value_text(0) : '')
stats 'compare.csv' using 0 nooutput
nrows_ = STATS_records > 0 ? STATS_records : 1
print sprintf('compare_work: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'compare_work', W, H)
    set multiplot layout prows,pcols margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,100./H \
        title sprintf('%s: work-precision against the limit solution%s', spaced(case_name), \
                      words(distances) > 6 ? sprintf(' (the first 6 of %d distances: all in compare.csv)', words(distances)) : '')
    eval key_cmd(kr, key_px, H)
    set logscale xy
    set format x '10^{%T}'
    set format y '10^{%T}'
    set xlabel "work: right-hand-side evaluations (LCP solves not counted)"
    do for [d=1:nd] {
        dist = word(distances, d)
        set title words_of(dist)
        set ylabel axis(dist)
        # the floor and the notes: what is not drawn, and why
        mx_ = 0
        stats 'compare.csv' using (strcol(col_solver) ne 'limit' && column(dist) == column(dist) && column(dist) > mx_ ? \
            (mx_ = column(dist), 0) : 0) nooutput
        floor_d = 1e-12 * mx_
        # the note: per family and reason, how many solutions are not drawn ("Paoli: 7 at round-off")
        why(dummy) = strcol(col_solver) eq 'limit' ? '' : \
            (strcol(col_status) ne 'ok' ? 'failed' : (column(col_work) != column(col_work) ? 'no cost' : \
            (column(dist) != column(dist) ? 'no value' : (column(dist) < floor_d ? 'at round-off' : ''))))
        note_ = ''
        do for [f=1:words(families)] {
            do for [r in "'failed' 'no cost' 'no value' 'at round-off'"] {
                n_ = 0
                stats 'compare.csv' using (strcol(col_solver) eq word(families, f) && why(0) eq r ? (n_ = n_ + 1, 0) : 0) nooutput
                if (n_ > 0) { note_ = note_.(note_ eq '' ? '' : "\n").sprintf('%s: %d %s', solver_words(word(families, f)), n_, r) }
            }
        }
        drawn(dummy) = column(col_work) == column(col_work) && column(dist) >= floor_d ? column(dist) : NaN
        if (note_ ne '') { note_ = "not drawn:\n".note_ }
        # a family whose every drawn point lies on a later family's (same work, distance equal to 1e-9:
        # Paoli's and Maury's schemes on the wedge) is hidden under it: said, not left to the key
        array pw_[nrows_]
        array pd_[nrows_]
        array pf_[nrows_]
        array pt_[nrows_]
        array pl_[nrows_]
        stats 'compare.csv' using (i_ = int(column(0)) + 1, pw_[i_] = column(col_work), \
            pd_[i_] = strcol(col_status) eq 'ok' ? drawn(0) : NaN, pf_[i_] = strcol(col_solver), \
            pt_[i_] = value_text(0), 0) nooutput
        # one label for the points of a family within a tenth of a decade of its last labelled one in
        # both work and distance (the wedge's penalty at mu = 1e4 ... 1e8: equal impact velocity errors
        # for 12316 ... 12355 evaluations), reading "first–last", not labels printed over each other
        kept_ = 0
        do for [i=1:nrows_] { pl_[i] = pt_[i] }
        do for [i=1:nrows_] { if (pd_[i] == pd_[i] && pw_[i] > 0 && pd_[i] > 0) {
            if (kept_ > 0 && pf_[kept_] eq pf_[i] && abs(log10(pw_[i] / pw_[kept_])) < 0.1 && \
                abs(log10(pd_[i] / pd_[kept_])) < 0.1) {
                pl_[kept_] = pt_[kept_].'–'.pt_[i]; pl_[i] = ''
            } else { kept_ = i } } }
        do for [f=1:nfam] {
            under_ = ''
            do for [g=f+1:nfam] {
                n_ = 0; m_ = 0
                do for [i=1:nrows_] { if (pf_[i] eq word(families, f) && pd_[i] == pd_[i]) {
                    n_ = n_ + 1; hit_ = 0
                    do for [j=1:nrows_] { if (pf_[j] eq word(families, g) && pd_[j] == pd_[j] && pw_[j] == pw_[i] && \
                        abs(pd_[j] - pd_[i]) <= 1e-9 * abs(pd_[i])) { hit_ = 1 } }
                    m_ = m_ + hit_ } }
                if (n_ > 0 && m_ == n_ && under_ eq '') { under_ = solver_words(word(families, g)) }
            }
            if (under_ ne '') {
                note_ = note_.(note_ eq '' ? '' : "\n").sprintf('%s: under %s (equal work and distances)', \
                    solver_words(word(families, f)), under_)
            }
        }
        if (note_ ne '') {
            set label 5 note_ at graph 0.98, graph 0.95 right front font ',8'
        }
        if (mx_ > 0) {
            set yrange [*:*]
            set offsets graph 0.05, graph 0.15, graph 0.1, graph 0.1
            plot for [f=1:nfam] 'compare.csv' using (column(col_work)):(fam_row(word(families, f)) ? drawn(0) : NaN) \
                     with linespoints lt f lc rgb fam_colour(word(families, f), 1, 1) \
                     title solver_words(word(families, f)), \
                 for [f=1:nfam] 'compare.csv' using (column(col_work)):(fam_row(word(families, f)) ? drawn(0) : NaN):(pl_[int(column(0)) + 1]) \
                     with labels left offset 0.6, ((f - 1) % 4 < 2 ? 0.6 : -0.6) font ',8' textcolor rgb fam_colour(word(families, f), 1, 1) notitle
        } else {
            set label 4 'no distance above 0' at graph 0.5, graph 0.5 center
            plot [1:10] [1:10] NaN notitle
            unset label 4
        }
        unset label 5
        unset key
    }
    unset multiplot
}
