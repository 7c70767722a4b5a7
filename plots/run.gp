# One solution (a run, a scheme or the limit solution): every position q_j, velocity v_j,
# constraint G_i and contact force force_i (impulse_i for a scheme) against t; with sparse
# contacts, G and the force of every constraint in contact, all in one panel each, as points
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
npanels = 2*ndof + 2*ncon + 2*contacts
prows = ndof + ncon + contacts
W = 1300
key_px = row_h + 24
H = int(70 + prows * 260 + key_px + 50)
force = impulses ? 'impulse' : 'force'
style = is_limit ? limit_style : 'lt 1'
# rows: (q_j, v_j) for each dof, then (G_i, force_i) for each constraint
col(p) = p <= 2*ndof ? ((p - 1) % 2 == 0 ? 2 + (p + 1)/2 : 2 + ndof + p/2) : \
         ((p - 2*ndof - 1) % 2 == 0 ? 2 + 2*ndof + (p - 2*ndof + 1)/2 : 2 + 2*ndof + ncon + (p - 2*ndof)/2)
ylab(p) = p <= 2*ndof ? axis(sprintf('%s%d', (p - 1) % 2 == 0 ? 'q' : 'v', (p + 1)/2)) : \
          axis(sprintf('%s%d', (p - 2*ndof - 1) % 2 == 0 ? 'G' : force, (p - 2*ndof + 1)/2))
print sprintf('run: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'run', W, H)
    set multiplot layout prows,2 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,60./H \
        title sprintf('%s: %s', spaced(case_name), solver_words(solution))
    set xlabel axis('t')
    eval key_cmd(1, key_px, H)
    do for [p=1:npanels] {
        if (p <= 2*ndof + 2*ncon) {
            set ylabel ylab(p)
            plot 'trajectory.csv' using 1:col(p) with lines @style title key_of(label)
        } else {
            set ylabel sym(p % 2 == 1 ? 'G' : force).' in contact'.in_unit(p % 2 == 1 ? 'G' : force)
            if (contact_points) {
                plot 'contacts.csv' using 2:(p % 2 == 1 ? column(4) : column(5)) with points pt 7 ps 0.3 title key_of(label)
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
