# Trajectories of the swept mu (or h) overlaid, one panel per quantity: every position q_j and
# velocity v_j, and every constraint G_i that is not a position itself (the ball's G_1 is q_1: its
# panel would repeat q_1's), against t; then a zoom on the first impact (q_1 and v_1).  From
# trajectories_s.gp: q_j and v_j against s = Gamma(t) (paper 004, section 3), where velocity jumps
# become continuous arcs.  The limit solution (limit/, when computed) is drawn last, black dashes on
# top of the runs, thin enough that the runs near it show through.
# Zoom window: from the limit's first impact time t_1 (impact_errors.csv, else the finest run's
# first contact, episodes.csv) and the first contact's duration d at the coarsest run (the smallest
# mu, the largest h), at most a tenth of the time from the start to t_1: [t_1 - d, t_1 + 3 d], so
# that the coarsest run's contact and its rebound show, and the finer ones' jumps; its title says
# so, above the panel (off the curves).
# Data: runs/*/trajectory.csv (t,gamma,q1..qn,v1..vn,G1..Gm,...) or trajectory_s.csv (s,t,q,v);
# plots_config.gp names the runs.
load 'plots_config.gp'
load 'styles.gp'
if (!exists('in_s')) in_s = 0
name = in_s ? 'trajectories_s' : 'trajectories'
file = in_s ? 'trajectory_s.csv' : 'trajectory.csv'
xname = in_s ? 's' : 't'
set datafile separator ','
set datafile columnheaders
nruns = words(runs)
nkey = nruns + words(limit)
klen = key_len(labels)
first_file = words(limit) > 0 ? word(limit, 1).'/'.file : word(runs, nruns).'/'.file
# markers along each run: about n_markers, evenly in its rows (styles.gp)
array run_pi[nruns > 0 ? nruns : 1]
do for [k=1:nruns] {
    undefine STATS_records
    stats word(runs, k).'/'.file using 1 nooutput
    run_pi[k] = marker_every(have_stats(0) ? STATS_records : 0)
}
# G_i's panel only when G_i differs from every q_j somewhere (checked on the limit's or the finest
# run's rows; at most 64 pairs, beyond which every G panel is kept)
nq = shown_count(ndof)
nc = shown_count(ncon)
array g_shown[ncon > 0 ? ncon : 1]
ng = 0
do for [i=1:nc] {
    g_shown[i] = 1
    if (!in_s && ndof * ncon <= 64) {
        do for [j=1:ndof] {
            stats first_file using (abs(column(col_G(i)) - column(col_q(j)))) nooutput
            if (STATS_max == 0) { g_shown[i] = 0 }
        }
    }
    ng = ng + (in_s ? 0 : g_shown[i])
}
# the zoom on the first impact
zoom = 0
if (!in_s) {
    t1 = NaN; d1 = NaN
    if (words(limit) > 0) {
        undefine STATS_records
        stats 'impact_errors.csv' using (column(col_limit_impact) == 1 ? column(col_t_limit) : NaN) nooutput
        if (have_stats(0)) { t1 = STATS_min }
    }
    if (1) {
        undefine STATS_records
        stats 'episodes.csv' every ::0::0 using (column(col_t_in)):(column(col_duration)) nooutput
        if (have_stats(0)) {
            d1 = STATS_max_y
            if (t1 != t1) { t1 = STATS_max_x }
        }
    }
    # clamped to a tenth of the time before the impact: the ball's coarsest contact (mu = 1e2) lasts
    # 0.35 s, a window of 1.4 s in which the impact itself is a corner of a few pixels
    undefine STATS_records
    stats first_file every ::0::0 using 1 nooutput
    if (have_stats(0) && t1 == t1 && d1 == d1 && d1 > (t1 - STATS_min) / 10.) { d1 = (t1 - STATS_min) / 10. }
    zoom = t1 == t1 && d1 == d1 && d1 > 0
}
# markers in the zoom: about n_markers of each run's rows in its window
array zoom_pi[nruns > 0 ? nruns : 1]
do for [k=1:nruns] {
    zoom_pi[k] = 1
    if (zoom) {
        undefine STATS_records
        stats word(runs, k).'/'.file using (column(1) >= t1 - d1 && column(1) <= t1 + 3*d1 ? 1 : NaN) nooutput
        zoom_pi[k] = marker_every(have_stats(0) ? STATS_records : 0)
    }
}
npanels = 2*nq + ng + 2*zoom
prows = int((npanels + 1) / 2)
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + prows * 280 + (zoom ? 25 * (prows - 1) : 0) + key_px + 50)
print sprintf('%s: key entries: %d', name, nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, name, W, H)
    set multiplot layout prows,2 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,(zoom ? 85. : 60.)/H \
        title sprintf('%s, %s: trajectories in %s, refining %s%s', spaced(case_name), solver_words(solution), xname, sym(param), \
        shown_note(nq, ndof, nc, ncon))
    set xlabel axis(xname)
    eval key_cmd(kr, key_px, H)
    do for [p=1:2*nq + nc + 2*zoom] {
        # panel p: q_j (p = 2j-1), v_j (p = 2j), then G_i, then the zoom's q_1 and v_1
        j = (p + 1) / 2
        is_g = p > 2*nq && p <= 2*nq + nc
        is_zoom = p > 2*nq + nc
        qty = is_zoom ? (p == 2*nq + nc + 1 ? 'q1' : 'v1') : \
              (is_g ? sprintf('G%d', p - 2*nq) : sprintf('%s%d', (p - 1) % 2 == 0 ? 'q' : 'v', j))
        if (!is_g || (!in_s && g_shown[p - 2*nq])) {
            c = column_of(qty)  # trajectory_s.csv: s, t, then q and v in the same columns
            set ylabel axis(qty)
            if (is_zoom) {
                set xrange [t1 - d1 : t1 + 3*d1]
                set title sprintf('zoom on the first impact, t_1 = %.4g%s', t1, unit('t') eq '' || unit('t') eq 'dimensionless' ? '' : ' '.unit('t'))
            }
            plot for [k=1:nruns] word(runs, k).'/'.file using 1:c with linespoints lt k pi (is_zoom ? zoom_pi[k] : run_pi[k]) title key_of(word(labels, k)), \
                 for [l in limit] l.'/'.file using 1:c with lines @limit_style title 'limit solution'
            unset key
            unset title
            set autoscale x
        }
    }
    unset multiplot
}
