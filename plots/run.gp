# One solution (a run, a scheme or the limit solution): every position q_j, velocity v_j,
# constraint G_i that is not a position itself and contact force force_i (impulse_i for a scheme)
# against t; with sparse contacts, G and the force of every constraint in contact, all in one panel each, as points
# (empty panels saying so where the run has no contact).
# Data: trajectory.csv (t,gamma,q1..qn,v1..vn[,G1..Gm,force1..forcem]) and, with sparse
# contacts, contacts.csv (row,t,constraint,G,force); plots_config.gp describes them.
load 'plots_config.gp'
load 'styles.gp'
set datafile separator ','
set datafile columnheaders
nkey = 1
if (!exists('contacts')) contacts = 0
if (!exists('contact_points')) contact_points = contacts
force = impulses ? 'impulse' : 'force'
style = is_limit ? limit_style : 'lt 1'
# G_i's panel only when G_i differs from every q_j somewhere (the ball's G_1 is q_1: its panel would
# repeat q_1's), as in trajectories.gp; at most 64 pairs, beyond which every G panel is kept
nq = shown_count(ndof)
nc = shown_count(ncon)
array g_shown[ncon > 0 ? ncon : 1]
ng = 0
do for [i=1:nc] {
    g_shown[i] = 1
    if (ndof * ncon <= 64) {
        do for [j=1:ndof] {
            stats 'trajectory.csv' using (abs(column(2 + 2*ndof + i) - column(2 + j))) nooutput
            if (STATS_max == 0) { g_shown[i] = 0 }
        }
    }
    ng = ng + g_shown[i]
}
# panels: (q_j, v_j) for each dof, then G_i where shown and force_i for each constraint, two a row;
# pcol[p] is panel p's column, pname[p] its quantity
nfixed = 2*nq + ng + nc
npanels = nfixed + 2*contacts
array pcol[npanels > 0 ? npanels : 1]
array pname[npanels > 0 ? npanels : 1]
do for [j=1:nq] {
    pcol[2*j - 1] = 2 + j
    pname[2*j - 1] = sprintf('q%d', j)
    pcol[2*j] = 2 + ndof + j
    pname[2*j] = sprintf('v%d', j)
}
p = 2*nq
do for [i=1:nc] {
    if (g_shown[i]) {
        p = p + 1
        pcol[p] = 2 + 2*ndof + i
        pname[p] = sprintf('G%d', i)
    }
    p = p + 1
    pcol[p] = 2 + 2*ndof + ncon + i
    pname[p] = sprintf('%s%d', force, i)
}
prows = (npanels + 1)/2
W = 1300
key_px = row_h + 24
H = int(70 + prows * 260 + key_px + 50)
print sprintf('run: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'run', W, H)
    set multiplot layout prows,2 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,60./H \
        title sprintf('%s: %s%s', spaced(case_name), solver_words(solution), shown_note(nq, ndof, nc, ncon))
    set xlabel axis('t')
    eval key_cmd(1, key_px, H)
    do for [p=1:npanels] {
        if (p <= nfixed) {
            set ylabel axis(pname[p])
            plot 'trajectory.csv' using 1:pcol[p] with lines @style title key_of(label)
        } else {
            set ylabel sym((p - nfixed) % 2 == 1 ? 'G' : force).' in contact'.in_unit((p - nfixed) % 2 == 1 ? 'G' : force)
            if (contact_points) {
                plot 'contacts.csv' using 2:((p - nfixed) % 2 == 1 ? column(4) : column(5)) with points pt 7 ps 0.3 title key_of(label)
            } else {
                # no contact in the run: the panel empty, on the other panels' t axis
                set label 1 'no contacts' at graph 0.5, 0.5 center
                set yrange [-1:1]
                unset ytics
                plot 'trajectory.csv' using 1:(0) with lines lt nodraw notitle
                unset label 1
                set autoscale y
                set ytics
            }
        }
        unset key
    }
    unset multiplot
}
