# Every compared solution against the limit solution, one panel per quantity: every position q_j
# and velocity v_j, and every constraint G_i, against t; then, one panel per solution family,
# |q - q_lim|_inf against t on a log scale (compare_deviation.csv), where a solution leaving the
# limit shows whatever its size.  From compare_trajectories_s.gp: q_j and v_j against s = Gamma(t),
# a scheme's and an external file's s being their discrete Gamma, without the deviation panels.
# Solutions are grouped by family: one hue per family, lighter for the coarser members, and each
# solution its own dash and marker (styles.gp).  The limit solution is the black dashed line, drawn last.
# Data: SOLUTION/trajectory.csv (t,gamma,q1..qn,v1..vn,G1..Gm,...) or trajectory_s.csv (s,t,q,v);
# compare_config.gp names the solutions; compare_deviation.csv.
load 'compare_config.gp'
load 'styles.gp'
if (!exists('in_s')) in_s = 0
if (!exists('deviation')) deviation = 1
name = in_s ? 'compare_trajectories_s' : 'compare_trajectories'
file = in_s ? 'trajectory_s.csv' : 'trajectory.csv'
xname = in_s ? 's' : 't'
set datafile separator ','
set datafile columnheaders
nsol = words(dirs)
nkey = nsol + 1
klen = key_len(labels) + 4
# each solution's family, its rank in it and the family's size (labels come in order of refinement)
array sol_fam[nsol > 0 ? nsol : 1]
array sol_rank[nsol > 0 ? nsol : 1]
array sol_n[nsol > 0 ? nsol : 1]
families_shown = ''
do for [k=1:nsol] {
    sol_fam[k] = fam_of(word(labels, k))
    sol_rank[k] = 1 + sum [i=1:k-1] (fam_of(word(labels, i)) eq sol_fam[k] ? 1 : 0)
    if (strstrt(' '.families_shown.' ', ' '.sol_fam[k].' ') == 0) { families_shown = families_shown.' '.sol_fam[k] }
}
do for [k=1:nsol] { sol_n[k] = sum [i=1:nsol] (sol_fam[i] eq sol_fam[k] ? 1 : 0) }
nfam = words(families_shown)
ndev = (in_s || !deviation) ? 0 : nfam
# G_i's panel only when G_i differs from every q_j somewhere (on the limit's rows; at most 64 pairs,
# beyond which every G panel is kept): the ball's G_1 is q_1, a panel that would repeat q_1's
nq = shown_count(ndof)
nc = shown_count(ncon)
array g_shown[ncon > 0 ? ncon : 1]
ng = 0
do for [i=1:nc] {
    g_shown[i] = 1
    if (!in_s && ndof * ncon <= 64) {
        do for [j=1:ndof] {
            stats 'limit/'.file using (abs(column(2 + 2*ndof + i) - column(2 + j))) nooutput
            if (STATS_max == 0) { g_shown[i] = 0 }
        }
    }
    ng = ng + (in_s ? 0 : g_shown[i])
}
npanels = 2*nq + ng + ndev
prows = int((npanels + 1) / 2)
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + prows * 280 + key_px + 50)
# panel p: q_j (p = 2j-1), v_j (p = 2j), then G_i; trajectory_s.csv has s and t before q
col(p) = p <= 2*nq ? ((p - 1) % 2 == 0 ? 2 + (p + 1)/2 : 2 + ndof + p/2) : 2 + 2*ndof + (p - 2*nq)
qty(p) = p <= 2*nq ? sprintf('%s%d', (p - 1) % 2 == 0 ? 'q' : 'v', (p + 1)/2) : sprintf('G%d', p - 2*nq)
sol_colour(k) = fam_colour(sol_fam[k], sol_rank[k], sol_n[k])
# each solution's dash and marker are its linetype's, k in the order of compare_config.gp: unique in
# the figure (up to 15 solutions), whatever the family's shades print as in grey; about n_markers
# markers along each, in its trajectory and in its deviation (its rows of compare_deviation.csv)
array sol_pi[nsol > 0 ? nsol : 1]
array dev_pi[nsol > 0 ? nsol : 1]
do for [k=1:nsol] {
    undefine STATS_records
    stats word(dirs, k).'/'.file using 1 nooutput
    sol_pi[k] = marker_every(have_stats(0) ? STATS_records : 0)
    dev_pi[k] = 0
}
if (!in_s && deviation) {
    stats 'compare_deviation.csv' using (sum [k=1:nsol] (strcol(1) eq word(labels, k) ? (dev_pi[k] = dev_pi[k] + 1, 0) : 0)) nooutput
}
do for [k=1:nsol] { dev_pi[k] = marker_every(dev_pi[k]) }
print sprintf('%s: key entries: %d', name, nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, name, W, H)
    set multiplot layout prows,2 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,60./H \
        title sprintf('%s: solutions against the limit solution, in %s%s', spaced(case_name), xname, \
        shown_note(nq, ndof, nc, ncon))
    set xlabel axis(xname)
    eval key_cmd(kr, key_px, H)
    do for [p=1:2*nq + (in_s ? 0 : nc)] { if (p <= 2*nq || g_shown[p - 2*nq]) {
        set ylabel axis(qty(p))
        c = col(p)
        plot for [k=1:nsol] word(dirs, k).'/'.file using 1:c with linespoints lt k lc rgb sol_colour(k) pi sol_pi[k] title label_key(word(labels, k)), \
             'limit/'.file using 1:c with lines @limit_style title 'limit solution'
        unset key
    } }
    if (ndev > 0) {
        set logscale y
        set format y '10^{%T}'
        set ylabel '|q - q_{lim}|_∞'.in_unit('q')
        do for [f=1:nfam] {
            fam = word(families_shown, f)
            # the family's name above the frame's left corner, off the curves
            set label 3 solver_words(fam) at graph 0, graph 1 offset 0, 0.7 left front
            nv_ = 0; mx_ = 0; mn_ = 1e300  # the family's rows with a deviation above 0, the largest, the least
            stats 'compare_deviation.csv' using (fam_of(strcol(1)) eq fam && column(3) > 0 ? \
                (nv_ = nv_ + 1, mx_ = column(3) > mx_ ? column(3) : mx_, mn_ = column(3) < mn_ ? column(3) : mn_, 0) : 0) nooutput
            if (nv_ > 0) {
                # down to the least deviation, or to round-off of the largest (1e-14 of it) when it is
                # below (the panel would show noise), a third of a decade under either
                lo_ = mn_ > mx_ * 1e-14 ? mn_ : mx_ * 1e-14
                set yrange [lo_ / 3 : mx_ * 3]
                # the family's members only (labels come grouped by family): each reads the file once
                k_lo = 0; k_hi = -1
                do for [k=1:nsol] { if (sol_fam[k] eq fam) { k_hi = k; if (k_lo == 0) { k_lo = k } } }
                plot for [k=k_lo:k_hi] 'compare_deviation.csv' \
                    using 2:(sol_fam[k] eq fam && strcol(1) eq word(labels, k) && column(3) > 0 ? column(3) : NaN) \
                    with linespoints lt k lc rgb sol_colour(k) pi dev_pi[k] notitle
            } else {
                set label 4 'no deviation above 0' at graph 0.5, graph 0.5 center
                plot [0:1] [1:10] NaN notitle
                unset label 4
            }
            unset label 3
            set autoscale y
        }
        unset logscale y
        set format y '% h'
    }
    unset multiplot
}
