# Convergence: |error| of each limit quantity against the refined parameter (mu or h; log-log), one
# panel per kind of quantity (times; velocities and restitution; distances; Zeno and capture: the
# kinds of styles.gp's table), each quantity's points with its least-squares power law as a thin
# line in the same colour, and a reference slope triangle for each rate the laws predict in the
# panel (one decade of mu or h, labelled with the rate).  Keys outside the panels, right of them.
# Data: convergence.csv, one block per quantity (docs/formats.md, "Data files for figures"):
# quantity, mu (or h), |error|, fitted |error|, rate, rate_se, predicted rate (nan where none is
# derived), reference; the columns by number in styles.gp (conv_*).
load 'plots_config.gp'
load 'styles.gp'
set datafile separator comma
array conv_name[nq > 0 ? nq : 1]
array rate_text[nq > 0 ? nq : 1]
array predicted[nq > 0 ? nq : 1]
array kind_of_block[nq > 0 ? nq : 1]
array kind_count[4]
do for [g=1:4] { kind_count[g] = 0 }
do for [i=1:nq] {
    # each block's quantity and rates, from its rows (the last, a data row, is the one kept: the
    # file's header line comes first in block 0)
    stats 'convergence.csv' index i-1 using (conv_name[i] = strcol(conv_quantity), \
        rate_text[i] = sprintf('%.3f ± %.3f', column(conv_rate), column(conv_rate_se)), \
        predicted[i] = strcol(conv_predicted), column(conv_error)) nooutput
    # a rate predicted: a plain decimal ("0.5"), or nan where none is derived
    predicted[i] = predicted[i] eq 'nan' || predicted[i] eq '' || strstrt(predicted[i], 'e') > 0 ? NaN : predicted[i] + 0.
    kind_of_block[i] = q_kind_of(conv_name[i])
    if (kind_of_block[i] < 1) { kind_of_block[i] = 3 }
    kind_count[kind_of_block[i]] = kind_count[kind_of_block[i]] + 1
}
# the title promises triangles only where some rate is predicted
any_predicted = 0
do for [i=1:nq] { if (predicted[i] == predicted[i] && predicted[i] > 0 && predicted[i] < 1e300) { any_predicted = 1 } }
last_g = 0
do for [g=1:4] { if (kind_count[g] > 0) { last_g = g } }
npan = (kind_count[1] > 0) + (kind_count[2] > 0) + (kind_count[3] > 0) + (kind_count[4] > 0)
pcols = 1
prows = npan
sgn = param eq 'h' ? 1 : -1
# the quantities measured but not fitted (plots_config.gp's conv_dropped, NAME:REASON), said below
# the panels: a quantity is never left out silently
if (!exists('conv_dropped')) conv_dropped = ''
ndrop = words(conv_dropped)
reason_words(r) = r eq 'at-floor' ? 'every error at its noise floor' : (r eq 'too-few' ? \
    'too few errors above the noise floors' : (r eq 'no-limit' ? 'no limit under the law' : \
    (r eq 'uncertain' ? 'fitted rate within its standard error' : '?')))
# one line per quantity (on one line, five of them ran past the canvas' right edge)
drop_note = 'not fitted (sweep.json says why):'
do for [w=1:ndrop] {
    wd_ = colons(word(conv_dropped, w))
    drop_note = drop_note."\n    ".sym(word(wd_, 1)).': '.reason_words(word(wd_, 2))
}
note_px = ndrop > 0 ? int((ndrop + 1) * row_h + 24) : 0
W = 1300
H = int(70 + prows * 360 + 40 + note_px)
print sprintf('convergence: key entries: %d', nq)
do for [fmt in formats] {
    eval term_cmd(fmt, 'convergence', W, H)
    set multiplot layout prows,pcols margins 0.07,0.62,(50. + note_px)/H,1 - 60./H spacing 0.1,100./H \
        title sprintf('%s, %s: errors against %s (thin lines: least-squares fits%s)', \
                      spaced(case_name), solver_words(solution), sym(param), any_predicted ? '; triangles: predicted rates' : '')
    set key at screen 0.64, graph 1 left top vertical Left reverse samplen 2 spacing 1.1 width 1
    set logscale xy
    # the first and last mu (or h) off the frame's sides, the errors off its top and bottom
    set autoscale xfix
    set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
    set format x '10^{%T}'
    set format y '10^{%T}'
    set xlabel axis(param)
    do for [g=1:4] {
        if (kind_count[g] > 0) {
            set title kind_title(g)
            # the panel's unit when every quantity in it has the same, else each key entry says its own
            u_ = ''; same_ = 1
            do for [i=1:nq] { if (kind_of_block[i] == g) { \
                if (u_ eq '') { u_ = unit(conv_name[i]).'|' } else { same_ = same_ && u_ eq unit(conv_name[i]).'|' } } }
            set ylabel '|error|'.(same_ && u_ ne '|' ? ' ('.u_[1:strlen(u_) - 1].')' : (same_ ? '' : ' (units in the key)'))
            # reference triangles: one per distinct predicted rate, at the panel's lower left
            x0 = 1e300; y0 = 1e300
            do for [i=1:nq] { if (kind_of_block[i] == g) {
                stats 'convergence.csv' index i-1 using conv_x:conv_error nooutput
                x0 = STATS_min_x < x0 ? STATS_min_x : x0; y0 = STATS_min_y < y0 ? STATS_min_y : y0 } }
            nt = 0
            done_ = ' '
            unset object
            unset label
            if (ndrop > 0 && g == last_g) {
                set label 99 drop_note at screen 0.02, screen (note_px - 12.) / H left front
            }
            do for [i=1:nq] {
                p_ = sprintf('%g', predicted[i])
                if (kind_of_block[i] == g && predicted[i] == predicted[i] && predicted[i] > 0 && \
                    predicted[i] < 1e300 && strstrt(done_, ' '.p_.' ') == 0) {
                    done_ = done_.p_.' '
                    pr = predicted[i]
                    xa = x0 * 10**(0.3 + 1.4 * nt); xb = xa * 10
                    ya = y0 * 2 * (sgn < 0 ? 10**pr : 1); yb = ya * 10**(sgn * pr)  # its lower corner at twice the panel's least error
                    yl = sgn < 0 ? yb : ya
                    nt = nt + 1
                    set object nt polygon from xa, (sgn < 0 ? ya : yb) to xb, (sgn < 0 ? yb : ya) to xa, yl to xa, (sgn < 0 ? ya : yb) \
                        fillstyle empty border lc rgb 'black' lw 1 front
                    set label nt sprintf('rate %g', pr) at xa * 10**0.5, yl * 0.6 center front font ',9'
                }
            }
            # each quantity's fit: a thin solid segment in its colour from its first to its last mu (or h),
            # drawn as an arrow without heads, behind the points (a line of the plot would be a second
            # curve of that colour, one more dash among the panel's)
            unset arrow
            do for [i=1:nq] { if (kind_of_block[i] == g) {
                fxa = NaN; fya = NaN; fxb = NaN; fyb = NaN
                stats 'convergence.csv' index i-1 using (column(conv_x) == column(conv_x) && column(conv_fit) > 0 ? \
                    (fxa != fxa ? (fxa = column(conv_x), fya = column(conv_fit)) : (fxb = column(conv_x), fyb = column(conv_fit)), 0) : 0) nooutput
                if (fxa == fxa && fxb == fxb) {
                    set arrow i from fxa, fya to fxb, fyb nohead back lc rgb word(palette, (i-1)%8+1) dt 1 lw 1
                }
            } }
            plot for [i=1:nq] 'convergence.csv' index i-1 using conv_x:(kind_of_block[i] == g ? column(conv_error) : NaN) \
                     with linespoints lt i \
                     title (kind_of_block[i] == g ? sym(conv_name[i]).(same_ ? '' : in_unit(conv_name[i])).': rate '.rate_text[i] : '')
        }
    }
    unset multiplot
}
