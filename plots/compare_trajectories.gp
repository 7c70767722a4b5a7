# Every compared solution against the limit solution, one panel per quantity: every position q_j
# and velocity v_j, and every constraint G_i, against t (or, from compare_trajectories_s.gp, q_j
# and v_j against s = Gamma(t), a scheme's and an external file's s being their discrete Gamma).
# The limit solution is the black long-dashed line.
# Data: SOLUTION/trajectory.csv (t,gamma,q1..qn,v1..vn,G1..Gm,...) or trajectory_s.csv (s,t,q,v);
# compare_config.gp names the solutions.
load 'compare_config.gp'
load 'styles.gp'
if (!exists('in_s')) in_s = 0
name = in_s ? 'compare_trajectories_s' : 'compare_trajectories'
file = in_s ? 'trajectory_s.csv' : 'trajectory.csv'
xname = in_s ? 's' : 't'
set datafile separator ','
set datafile columnheaders
nsol = words(dirs)
nkey = nsol + 1
klen = key_len(labels)
npanels = 2*ndof + (in_s ? 0 : ncon)
prows = int((npanels + 1) / 2)
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
H = int(70 + prows * 280 + key_px + 50)
# panel p: q_j (p = 2j-1), v_j (p = 2j), then G_i; trajectory_s.csv has s and t before q
col(p) = p <= 2*ndof ? ((p - 1) % 2 == 0 ? 2 + (p + 1)/2 : 2 + ndof + p/2) : 2 + 2*ndof + (p - 2*ndof)
ylab(p) = p <= 2*ndof ? axis(sprintf('%s%d', (p - 1) % 2 == 0 ? 'q' : 'v', (p + 1)/2)) : axis(sprintf('G%d', p - 2*ndof))
print sprintf('%s: key entries: %d', name, nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, name, W, H)
    set multiplot layout prows,2 margins 0.08,0.98,(key_px + 55.)/H,1 - 60./H spacing 0.08,60./H \
        title sprintf('%s: solutions against the limit solution, in %s', spaced(case_name), xname)
    set xlabel axis(xname)
    eval key_cmd(kr, key_px, H)
    do for [p=1:npanels] {
        set ylabel ylab(p)
        c = col(p)
        plot for [k=1:nsol] word(dirs, k).'/'.file using 1:c with lines lt k title word(labels, k) noenhanced, \
             'limit/'.file using 1:c with lines @limit_style title 'limit solution'
        unset key
    }
    unset multiplot
}
