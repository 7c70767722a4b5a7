# The limit impact map of a contact law for one contact (penlim impact-law): its restitution e
# against the impact speed V (log scale), and for Hunt-Crossley the literature's closed-form
# relations between e and c drawn against it, with their errors e_approx - e in a second panel.
# Data: impact_law.csv (v, e, one column per relation, then err_ per relation);
# impact_law_config.gp names the law, its settings and the relations.
load 'impact_law_config.gp'
load 'styles.gp'
set datafile separator ','
set datafile columnheaders
na = words(approximations)
nkey = na + 1
klen = key_len(approximations)
W = 1300
kc = key_cols(nkey, klen, W)
kr = key_rows(nkey, kc)
key_px = kr * row_h + 24
npanels = na > 0 ? 2 : 1
# Hunt-Crossley's e depends on c V alone (docs/laws.md): the data's x is the impact speed V, and an axis
# above the first panel reads c V off it
if (!exists('c')) c = NaN
has_cv = c == c && c > 0
top_px = has_cv ? 110 : 60
H = int(top_px + 10 + npanels * 360 + key_px + 50)
rows = nv
# names in words: "hunt_crossley_1975" -> "Hunt-Crossley 1975", "hunt_crossley" -> "Hunt-Crossley"
# (each part capitalized, joined by '-', a trailing year after a space)
upper(c) = strstrt('abcdefghijklmnopqrstuvwxyz', c) > 0 ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[strstrt('abcdefghijklmnopqrstuvwxyz', c):strstrt('abcdefghijklmnopqrstuvwxyz', c)] : c
cap(w) = strlen(w) > 0 ? upper(w[1:1]).w[2:] : w
name_words(n) = (nw_ = '', sum [w_=1:words(colons(underscores_to_colons(n)))] \
    (p_ = word(colons(underscores_to_colons(n)), w_), \
     nw_ = nw_.(w_ == 1 ? '' : (strstrt('0123456789', p_[1:1]) > 0 ? ' ' : '-')).cap(p_), 0), nw_)
underscores_to_colons(s) = strstrt(s, '_') == 0 ? s : s[1:strstrt(s, '_') - 1].':'.underscores_to_colons(s[strstrt(s, '_') + 1:])
print sprintf('impact_law: key entries: %d', nkey)
do for [fmt in formats] {
    eval term_cmd(fmt, 'impact_law', W, H)
    set multiplot layout npanels,1 margins 0.08,0.98,(key_px + 55.)/H,1 - (top_px + 0.)/H spacing 0.08,60./H \
        title sprintf('%s (%s): limit restitution of an isolated impact', name_words(law), settings) noenhanced
    eval key_cmd(kr, key_px, H)
    set logscale x
    set autoscale xfix
    set format x '%g'
    set xlabel has_cv ? sprintf('impact speed V (in the unit of 1/c; c = %g)', c) : 'impact speed V (units of the law''s parameters)'
    # ticks at 1, 2 and 5 times the powers of ten when the speeds span under two decades (gnuplot's
    # log axis labels the powers alone, at most one of them there)
    stats 'impact_law.csv' using 1 nooutput
    vmin = STATS_min; vmax = STATS_max
    few_decades = vmax < 100 * vmin
    if (few_decades) {
        set xtics ()
        do for [k=floor(log10(vmin)):ceil(log10(vmax))] { do for [m in '1 2 5'] { set xtics add (m * 10.**k) } }
    }
    if (has_cv) {
        # gnuplot links no axis to a logarithmic one: the data's V range, fixed, and c times it above
        set xrange [vmin:vmax]
        set x2range [c * vmin:c * vmax]
        set logscale x2
        set format x2 '%g'
        set x2tics
        if (few_decades) {
            set x2tics ()
            do for [k=floor(log10(c * vmin)):ceil(log10(c * vmax))] { do for [m in '1 2 5'] { set x2tics add (m * 10.**k) } }
        }
        set xtics nomirror
        set x2label 'c V (a pure number: the argument of every relation below)'
    }
    set ylabel 'restitution e'
    set yrange [0:1.05]
    plot 'impact_law.csv' using 1:2 with lines @limit_style title 'exact (limit of the law)', \
         for [j=1:na] '' using 1:(column(2 + j)) with linespoints lt j pi marker_every(rows) title name_words(word(approximations, j)) noenhanced
    unset key
    unset x2tics
    unset x2label
    set xtics mirror
    if (na > 0) {
        set yrange [*:*]
        set ylabel 'e_{approx} - e'
        set xzeroaxis lc rgb 'gray' lw 1
        plot for [j=1:na] 'impact_law.csv' using 1:(column(2 + na + j)) with linespoints lt j pi marker_every(rows) notitle
        unset xzeroaxis
    }
    unset multiplot
}
