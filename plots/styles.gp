# Shared styles and layout of every penlim figure, loaded by each script after plots_config.gp.
#
# Curve k (k = 1, 2, ...) of a plot is drawn with linetype k: colour (k-1) mod 8 of a colour-blind-safe
# palette, dash pattern (k-1) mod 15 and marker (k-1 + floor((k-1)/15)) mod 15, all three varying
# together, so that the first 15 curves of a plot differ in dash AND in marker (gnuplot's cairo and
# SVG terminals have 15 markers; the dashes are drawn from a table of 15), whatever their colours print
# as in greyscale; from the 16th on, a curve shares its dash with one of every 15 before it, and the
# marker, shifted by one more each 15 curves, tells them apart: (dash, marker) pairs are unique for
# the first 225 curves.  Lines carry markers (linespoints, with a point
# interval where a curve has many rows: n_markers along it, the line blanked around each) so
# that a curve is told by its marker where its dash is too short to read.  No run is black: the
# limit solution has its own style, black long dashes without markers (plot ... @limit_style).
palette = '#0072B2 #D55E00 #009E73 #CC79A7 #56B4E9 #E69F00 #44AA99 #882255'
# markers: filled circle, square, triangles up and down, diamond, pentagon, then the same empty, then +, x, *
points = '7 5 9 11 13 15 6 4 8 10 12 14 1 2 3'
n_styles = 15
# dash patterns (in line widths; 1: solid), neighbours unlike; none is the limit's (10,6)
dashes = 'solid 6,3 1.5,2.5 7,2.5,1.5,2.5 12,4 3,3 7,2.5,1.5,2.5,1.5,2.5 12,3,3,3 1.5,5 18,5 4,2 3,6 ' \
    . '20,3,3,3,3,3 9,3,9,3,1.5,3 2,2,8,2'
style_point(k) = int(word(points, (k - 1 + int((k-1) / n_styles)) % n_styles + 1))
do for [k=1:n_styles**2] {
    d_ = word(dashes, (k-1) % n_styles + 1)
    if (d_ eq 'solid') { set linetype k lc rgb word(palette, (k-1)%8+1) dt 1 lw 1.5 pt style_point(k) ps 0.7 pi 1 } \
    else { eval sprintf('set linetype %d lc rgb "%s" dt (%s) lw 1.5 pt %d ps 0.7 pi 1', k, word(palette, (k-1)%8+1), d_, style_point(k)) }
}
set linetype cycle n_styles**2
# a margin above and below the data, so that no extreme value (the top of a rebound, mu G's 0) runs
# along the frame; scripts whose ranges are fixed or whose cells fill the frame (study_map) set their own
set offsets 0, 0, graph 0.05, graph 0.05
# markers along a curve of many rows: about this many, evenly in rows (pointinterval -N blanks the line
# around each); marker_every(rows) is the interval
n_markers = 12
marker_every(rows) = -(rows > 2 * n_markers ? int(rows / n_markers) : 1)
limit_style = "lc rgb 'black' dt (10,6) lw 1.6"

# Layout, in pixels of the PNG (the PDF has the same proportions, at 72 points per inch).  The key
# sits below the panels, at fixed screen coordinates, with as many rows as its entries need: the
# canvas grows with it, so no entry is ever dropped.
font_pt = 11
# char_w: the width gnuplot gives a character when it lays out a key, in pixels of the PNG, measured
# from the pngcairo terminal itself (its font's metrics: 9.0 pixels at 11 pt with DejaVu Sans, more
# than the 6.8 of an average glyph); without pngcairo, that value.  A key column is about
# len + 10 characters (sample 3, width 2, gaps); key_cols counts len + 11, one of margin, and the
# labels' length at least 14.  The PDF's characters are narrower (pdfcairo: 4.7 points at 11 pt),
# so a key that fits the PNG fits the PDF; the tests' SVG is drawn with a font of this char_w.
char_w = 0.82 * font_pt
char_h = 1.55 * font_pt
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal push
    set terminal pngcairo size 1300,100 font sprintf('Sans,%d', font_pt)
    set output '/dev/null'
    plot x notitle
    set output
    char_w = 1300. * GPVAL_TERM_HCHAR / GPVAL_TERM_XSIZE
    char_h = 100. * GPVAL_TERM_VCHAR / GPVAL_TERM_YSIZE
    set terminal pop
}
print sprintf('key character width: %.2f', char_w)
# a key row: spacing 1.1 of the taller of the PNG's character (17.1 pixels at 11 pt) and the SVG's
# (1.5 em of its font of char_w / 0.7 points: 19.3 pixels), so the key fits in both
# The coordinates and gaps a trajectory figure draws at most (the first ones; the title says so): a
# panel each, so a figure of many bodies would be taller than Cairo draws (32767 pixels: 120 balls, 240 panels).
max_shown = 16
shown_count(n) = n < max_shown ? n : max_shown
shown_note(nq, ndof, nc, ncon) = nq < ndof || nc < ncon ? sprintf(' (the first %d of %d coordinates%s)', nq, ndof, \
    nc < ncon ? sprintf(', %d of %d constraints', nc, ncon) : '') : ''
row_h = 1.1 * (char_h > 1.5 * char_w / 0.7 ? char_h : 1.5 * char_w / 0.7) + 0.5
key_len(list) = maxlen(list) > 14 ? maxlen(list) : 14
key_cols(n, len, W) = (kc_ = int((W - 40) / ((len + 11) * char_w)), kc_ < 1 ? 1 : (kc_ > n ? (n < 1 ? 1 : n) : kc_))
key_rows(n, c) = int((n + c - 1) / c)
maxlen(list) = (ml_ = 0, sum [w_=1:words(list)] (ml_ = strlen(word(list, w_)) > ml_ ? strlen(word(list, w_)) : ml_, 0), ml_)

# The SVG (the tests' check) is laid out with the PNG's character width: its terminal counts 0.7 em a
# character, so a font of char_w / 0.7 points gives keys as wide as the PNG's.
# Each figure is rendered once per format of `formats` ('png pdf'; 'svg' for the tests' checks).
if (!exists('formats')) formats = 'png pdf'
term_cmd(fmt, name, W, H) = \
    fmt eq 'pdf' ? sprintf("set terminal pdfcairo size %.3fin,%.3fin font 'Sans,%d' enhanced; set output '%s.pdf'", W/72., H/72., font_pt, name) : \
    fmt eq 'svg' ? sprintf("set terminal svg size %d,%d font 'Sans,%.2f' enhanced; set output '%s.svg'", W, H, char_w / 0.7, name) : \
    sprintf("set terminal pngcairo size %d,%d font 'Sans,%d' enhanced; set output '%s.png'", W, H, font_pt, name)
# The key below the panels: top at key_px pixels from the bottom, centered.
key_cmd(rows, kpx, H) = sprintf("set key at screen 0.5, %.5f center top vertical Left reverse maxrows %d box opaque samplen 3 spacing 1.1 width 2", (kpx - 8.) / H, rows)

# ---- Symbols and units: the one table of what every figure names --------------------------------
# Each quantity a figure draws, by the name penlim's files give it: its symbol (enhanced text), its
# dimension as powers of length L and time T (mu: under a law per unit effective mass, Kelvin-Voigt's,
# a stiffness per unit mass, 1/T^2, mu G an acceleration; under a physical k, Hertz's and
# Hunt-Crossley's (physical_k, from the configuration), a pure multiplier of k, which carries the
# units; masses count as pure numbers: a force lambda is L/T^2, an impulse L/T;
# the L1 distance of v, an integral over t, a length), its kind (the panels of the convergence
# figure: 1 times, 2 velocities and restitution, 3 distances, 4 Zeno and capture), and words for
# titles.  A name not in the table is drawn as it is written, its underscores as spaces, in plain
# text (study columns such as final_q1).
# One row per quantity: q_def(name, symbol, L, T, kind, words).
if (!exists('physical_k')) physical_k = 0
q_count = 47
array q_name[q_count]
array q_sym[q_count]
array q_L[q_count]
array q_T[q_count]
array q_kind[q_count]
array q_words[q_count]
q_k = 0
q_def(n, sy, L, T, kd, w) = (q_k = q_k + 1, q_name[q_k] = n, q_sym[q_k] = sy, q_L[q_k] = L, q_T[q_k] = T, \
    q_kind[q_k] = kd, q_words[q_k] = w, 0)
q_ = q_def('t'                       , 't', 0, 1, 1, 'time')
q_ = q_def('s'                       , 's = Γ(t)', 0, 1, 1, 'transformed time')
q_ = q_def('mu'                      , 'μ', 0, physical_k ? 0 : -2, 0, physical_k ? 'penalty multiplier' : 'penalty stiffness')
q_ = q_def('h'                       , 'h', 0, 1, 1, 'step')
q_ = q_def('q'                       , 'q', 1, 0, 3, 'position')
q_ = q_def('v'                       , 'v', 1, -1, 2, 'velocity')
q_ = q_def('G'                       , 'G', 1, 0, 3, 'gap')
q_ = q_def('force'                   , 'λ', 1, -2, 2, 'contact force')
q_ = q_def('lambda'                  , 'λ', 1, -2, 2, 'contact force')
q_ = q_def('impulse'                 , 'Λ', 1, -1, 2, 'impulse per step')
q_ = q_def('first_impact_time'       , 't_1', 0, 1, 1, 'first impact time')
q_ = q_def('restitution_first'       , 'e_1', 0, 0, 2, 'restitution of the first impact')
q_ = q_def('scaled_penetration_first', 'μ^{1/(n+1)} δ_1', 1, -1, 2, 'scaled penetration of the first impact')
q_ = q_def('capture_time'            , 'T^*', 0, 1, 4, 'capture time')
q_ = q_def('accumulation_estimate'   , 'T_∞', 0, 1, 4, 'accumulation time from the flights')
q_ = q_def('lift_off_first'          , 't_{off}', 0, 1, 1, 'first lift-off time')
q_ = q_def('sliding_force_error'     , physical_k ? 'sup|λ - λ_{lim}|' : 'sup|μG - F^{sm}|', 1, -2, 2, 'sliding-mode force error')
# a run's superscript in the distance to the next run: the refined parameter's symbol (q^h in an h-sweep)
run_sup = exists('param') && param eq 'h' ? 'h' : 'μ'
q_ = q_def('successive_s_distance'   , 'sup_s|q^'.run_sup.' - q^{'.run_sup."'}|", 1, 0, 3, 'distance in s to the next run')
q_ = q_def('successive_s_distance_q' , 'sup_s|q^'.run_sup.' - q^{'.run_sup."'}|", 1, 0, 3, 'distance in s to the next run')
q_ = q_def('successive_s_distance_v' , 'sup_s|v^'.run_sup.' - v^{'.run_sup."'}|", 1, -1, 2, 'velocity distance in s to the next run')
q_ = q_def('sup_q'                   , '|q - q_{lim}|_∞', 1, 0, 3, 'distance to the limit')
q_ = q_def('sup_q_outside_zeno'      , '|q - q_{lim}|_∞ outside Zeno', 1, 0, 3, 'distance to the limit outside Zeno')
q_ = q_def('l1_v'                    , '|v - v_{lim}|_1', 1, 0, 3, 'L1 distance of the velocity')
q_ = q_def('s_distance_q'            , 'sup_s|q - q_{lim}|', 1, 0, 3, 'distance to the limit in s')
q_ = q_def('s_distance_v'            , 'sup_s|v - v_{lim}|', 1, -1, 2, 'velocity distance to the limit in s')
q_ = q_def('impact_time_error'       , 'max_i|t_i - t_{i,lim}|', 0, 1, 1, 'impact time error')
q_ = q_def('impact_velocity_error'   , 'max_i|v_i - v_{i,lim}|', 1, -1, 2, 'impact velocity error')
q_ = q_def('capture_error'           , '|T^* - T^*_{lim}|', 0, 1, 4, 'capture time error')
q_ = q_def('lift_off_error'          , '|t_{off} - t_{off,lim}|', 0, 1, 1, 'lift-off time error')
q_ = q_def('final_q_error'           , '|q(T) - q_{lim}(T)|', 1, 0, 3, 'final position error')
q_ = q_def('final_v_error'           , '|v(T) - v_{lim}(T)|', 1, -1, 2, 'final velocity error')
q_ = q_def('restitution_last'        , 'e_{last}', 0, 0, 2, 'restitution of the last impact')
q_ = q_def('contraction_ratio'       , 'r', 0, 0, 4, 'contraction ratio of the flights')
q_ = q_def('episodes'                , 'contact episodes', 0, 0, 0, 'contact episodes')
q_ = q_def('impacts'                 , 'impacts', 0, 0, 0, 'impacts')
q_ = q_def('impacts_before_capture'  , 'impacts before capture', 0, 0, 4, 'impacts before capture')
q_ = q_def('steps'                   , 'steps', 0, 0, 0, 'steps')
q_ = q_def('rhs_evals'               , 'right-hand-side evaluations', 0, 0, 0, 'right-hand-side evaluations')
q_ = q_def('wall_seconds'            , 'wall time', 0, 1, 0, 'wall time')
q_ = q_def('final_t'                 , 'T', 0, 1, 1, 'final time')
q_ = q_def('final_q'                 , 'q(T)', 1, 0, 3, 'final position')
q_ = q_def('final_v'                 , 'v(T)', 1, -1, 2, 'final velocity')
# the names of penlim 0.2's sweeps (limit_*), in directories written then
q_ = q_def('limit_sup_q'             , '|q - q_{lim}|_∞', 1, 0, 3, 'distance to the limit')
q_ = q_def('limit_sup_q_outside_zeno', '|q - q_{lim}|_∞ outside Zeno', 1, 0, 3, 'distance to the limit outside Zeno')
q_ = q_def('limit_l1_v'              , '|v - v_{lim}|_1', 1, 0, 3, 'L1 distance of the velocity')
q_ = q_def('limit_s_distance'        , 'sup_s|q - q_{lim}|', 1, 0, 3, 'distance to the limit in s')
q_ = q_def('s_distance'              , 'sup_s|q^μ - q^{μ''}|', 1, 0, 3, 'distance in s to the next run')
# a solver's name in words: the schemes by their authors
solver_words(n) = n eq 'moreau_jean' ? 'Moreau-Jean' : (n eq 'paoli' ? 'Paoli' : (n eq 'maury' ? 'Maury' : \
    (n eq 'limit' ? 'limit solution' : spaced(n))))
kind_words = "'times' 'velocities and restitution' 'distances' 'Zeno and capture'"
kind_title(k) = word(kind_words, k)
# the index of a name in the table (0: not there)
q_index(name) = (qi_ = 0, sum [k_=1:q_count] (q_name[k_] eq name ? (qi_ = k_, 0) : 0), qi_)
# underscores as spaces (gnuplot 5.4 has no strsubst)
spaced(s) = strstrt(s, '_') == 0 ? s : s[1:strstrt(s, '_') - 1].' '.spaced(s[strstrt(s, '_') + 1:])
# a name with a trailing index (q1, G12, lambda3): its stem, then the index as a subscript
stem_len(s) = (sl_ = strlen(s), sum [k_=1:strlen(s)] (sl_ > 1 && strstrt('0123456789', s[sl_:sl_]) > 0 ? (sl_ = sl_ - 1, 0) : 0), sl_)
stem(s) = s[1:stem_len(s)]
suffix(s) = stem_len(s) < strlen(s) ? s[stem_len(s) + 1:] : ''
# (a symbol of a time, "q(T)", takes the index before it: "q_{1}(T)")
with_index(sy, i) = strstrt(sy, '(') > 1 ? sy[1:strstrt(sy, '(') - 1].'_{'.i.'}'.sy[strstrt(sy, '('):] : sy.'_{'.i.'}'
sym(name) = q_index(name) > 0 ? q_sym[q_index(name)] : \
    (suffix(name) ne '' && q_index(stem(name)) > 0 ? with_index(q_sym[q_index(stem(name))], suffix(name)) : spaced(name))
words_of(name) = q_index(name) > 0 ? q_words[q_index(name)] : \
    (q_index(stem(name)) > 0 ? q_words[q_index(stem(name))].' '.suffix(name) : spaced(name))
q_kind_of(name) = q_index(name) > 0 ? q_kind[q_index(name)] : 0
# A study's parameter axes (param_dims, written by penlim into a study's figure: 'c:-1:1 h0:1:0', -99
# where the dimension is unknown): their dimensions, declared next to the built-in cases' and laws'
# parameters, before the table's (h0 is a height, not the step h with an index)
if (!exists('param_dims')) param_dims = ''
param_entry(n) = (pe_ = '', sum [k_=1:words(param_dims)] (strstrt(word(param_dims, k_), n.':') == 1 ? (pe_ = word(param_dims, k_), 0) : 0), pe_)
dim_L(name) = param_entry(name) ne '' ? int(word(colons(param_entry(name)), 2)) : \
    (q_index(name) > 0 ? q_L[q_index(name)] : (q_index(stem(name)) > 0 ? q_L[q_index(stem(name))] : -99))
dim_T(name) = param_entry(name) ne '' ? int(word(colons(param_entry(name)), 3)) : \
    (q_index(name) > 0 ? q_T[q_index(name)] : (q_index(stem(name)) > 0 ? q_T[q_index(stem(name))] : -99))
# Units: a built-in case may declare its units of length and time (case_units, from the case table,
# written after this file by penlim: 'bouncing_ball:m:s ...'); a case without them, and every model
# compiled apart, is dimensionless.  A pure number (restitution, counts) has no unit; a quantity not
# in the table says none.
if (!exists('case_units')) case_units = ''
if (!exists('case_name')) case_name = ''
case_entry(c) = (ce_ = '', sum [k_=1:words(case_units)] (strstrt(word(case_units, k_), c.':') == 1 ? (ce_ = word(case_units, k_), 0) : 0), ce_)
colons(s) = strstrt(s, ':') == 0 ? s : s[1:strstrt(s, ':') - 1].' '.colons(s[strstrt(s, ':') + 1:])
unit_len(c) = word(colons(case_entry(c)), 2)
unit_time(c) = word(colons(case_entry(c)), 3)
pow_of(u, p) = p == 0 ? '' : (p == 1 ? u : u.'^{'.sprintf('%d', p).'}')
unit_LT(L, T) = L == -99 || (L == 0 && T == 0) ? '' : (unit_len(case_name) eq '' ? 'dimensionless' : \
    (L < 0 && T > 0 ? pow_of(unit_time(case_name), T).'/'.pow_of(unit_len(case_name), -L) : \
    pow_of(unit_len(case_name), L).(T < 0 && L > 0 ? '/'.pow_of(unit_time(case_name), -T) : \
    (L != 0 && T != 0 ? ' ' : '').pow_of(unit_time(case_name), T))))
# a parameter: its unit where the case declares units ("dimensionless" where L = T = 0: e, xi, n), its
# bare symbol otherwise (a case without units, a model compiled apart, a dimension unknown)
param_unit(name) = unit_len(case_name) eq '' || dim_L(name) == -99 ? '' : \
    (dim_L(name) == 0 && dim_T(name) == 0 ? 'dimensionless' : unit_LT(dim_L(name), dim_T(name)))
unit(name) = param_entry(name) ne '' ? param_unit(name) : unit_LT(dim_L(name), dim_T(name))
in_unit(name) = unit(name) eq '' ? '' : ' ('.unit(name).')'
# an axis: the symbol and the unit, "q_1 (m)", "μ (s^{-2})", "e_1"
axis(name) = sym(name).in_unit(name)
# a refined value as penlim writes it ("1e4", "2.849e-5", "0.0015") typeset by string operations alone
# (gnuplot 5.4 reads no exponent from a string): "10^{4}", "2.849·10^{-5}"
e_at(s) = strstrt(s, 'e') + strstrt(s, 'E')
strip0(x) = strlen(x) > 1 && x[1:1] eq '0' ? strip0(x[2:]) : x
exp_digits(x) = x[1:1] eq '-' ? '-'.strip0(x[2:]) : (x[1:1] eq '+' ? strip0(x[2:]) : strip0(x))
sci(s) = e_at(s) == 0 ? s : (s[1:e_at(s) - 1] eq '1' ? '' : s[1:e_at(s) - 1].'·').'10^{'.exp_digits(s[e_at(s) + 1:]).'}'
eq_at(w) = strstrt(w, '=')
refined(n) = n eq 'mu' || n eq 'h' || n eq 'rtol'
key_of(w) = eq_at(w) == 0 ? w : sym(w[1:eq_at(w) - 1]).' = '. \
    (refined(w[1:eq_at(w) - 1]) ? sci(w[eq_at(w) + 1:]) : w[eq_at(w) + 1:])

# ---- The columns the figures read, by the names the writers give them (one place: a column renamed
# in docs/formats.md is one edit here) ----------------------------------------------------------
# trajectory.csv: t, gamma, q1..qn, v1..vn, G1..Gm, then the forces (lambda1.. or impulse1..);
# trajectory_s.csv: s, t, q1..qn, v1..vn (the same columns for q and v)
col_q(j) = 2 + j
col_v(j) = 2 + ndof + j
col_G(i) = 2 + 2*ndof + i
column_of(qty) = qty[1:1] eq 'q' ? col_q(suffix(qty) + 0) : (qty[1:1] eq 'v' ? col_v(suffix(qty) + 0) : col_G(suffix(qty) + 0))
# convergence.csv: quantity, mu (or h), error, fit, rate, rate_se, predicted_rate, reference
conv_quantity = 1; conv_x = 2; conv_error = 3; conv_fit = 4; conv_rate = 5; conv_rate_se = 6; conv_predicted = 7
# sliding.csv: mu (or h), episode, constraint, t, mu_G, sliding_force
sliding_t = 4; sliding_muG = 5; sliding_Fsm = 6
# zeno.csv: mu (or h), impact, t_in, abs_gdot_in, gdot_out; capture.csv: mu (or h), capture_time,
# accumulation_estimate, impacts_before_capture
zeno_index = 2; zeno_t_in = 3; zeno_gdot_in = 4
capture_time = 2; capture_accumulation = 3
# episodes.csv (a sweep's): the first row is the coarsest run's first contact
col_t_in = 't_in'
col_duration = 'duration'
# impact_errors.csv: the limit's impacts paired in each run
col_limit_impact = 'limit_impact'
col_t_limit = 't_limit'
# stats over a file that may have no row: STATS_records is then left undefined
have_stats(dummy) = exists('STATS_records') && STATS_records > 0
# compare.csv: a row per solution (the limit solution's first), its distances by their names
col_solver = 'solution'  # the solver (penalty, moreau_jean, ...; the limit solution: limit)
col_status = 'status'
col_param_name = 'parameter_name'
col_param = 'parameter'
# the work of a solve (compare_work's x): its right-hand-side evaluations, a count the solver
# makes the same on every machine and run, where the wall time (wall_seconds) is noise at the
# millisecond level (the wedge's penalty line ran backwards in it)
col_work = 'rhs_evals'
# compare_deviation.csv: solution (the label), t, deviation

# ---- Solution families (a comparison): one hue per family, lighter for coarser members --------------
# Family f has its hue; member r of nr (in order of refinement, the finest last) is that hue mixed
# with white by 0.55 (nr - r)/(nr - 1): members of a family differ in lightness, families in hue;
# dash and marker are each solution's own (its linetype, by its place among all the solutions).
fam_names = 'penalty moreau_jean paoli maury external'
array fam_r[5] = [0, 213, 0, 204, 68]
array fam_g[5] = [114, 94, 158, 121, 68]
array fam_b[5] = [178, 0, 115, 167, 68]
fam_index(f) = (fi_ = 5, sum [k_=1:5] (word(fam_names, k_) eq f ? (fi_ = k_, 0) : 0), fi_)
# a comparison's label (penalty_mu=1e4, moreau_jean_h=0.04462, external_FILE): its family
fam_of(l) = strstrt(l, '_mu=') > 0 ? l[1:strstrt(l, '_mu=') - 1] : (strstrt(l, '_h=') > 0 ? l[1:strstrt(l, '_h=') - 1] : 'external')
# ... and its key text: "penalty, μ = 10^{4}"
label_key(l) = fam_of(l) eq 'external' ? l : solver_words(fam_of(l)).', '.key_of(l[strlen(fam_of(l)) + 2:])
shade(c, r, nr) = int(c + (255 - c) * (nr > 1 ? 0.55 * (nr - r) / (nr - 1.) : 0))
fam_colour(f, r, nr) = sprintf('#%02x%02x%02x', shade(fam_r[fam_index(f)], r, nr), shade(fam_g[fam_index(f)], r, nr), \
    shade(fam_b[fam_index(f)], r, nr))
# an axis of |value| (a log scale of a signed quantity): the bars around the symbol, unless it is a
# norm, a sup or a max already
is_abs(name) = sym(name)[1:1] eq '|' || strstrt(sym(name), 'sup') == 1 || strstrt(sym(name), 'max') == 1
abs_axis(name) = (is_abs(name) ? sym(name) : '|'.sym(name).'|').in_unit(name)
# a value of a refined parameter read from a data file ("1e10", "1.5e5", "0.0015", as penlim writes
# it: the short form of directory names), typeset: "10^{10}", "1.5·10^{5}", "0.0015".  A results
# directory is untrusted: a word other than a number's characters is drawn as "?", never as markup.
number_word(s) = strlen(s) > 0 && (nw_ = 1, sum [k_=1:strlen(s)] (strstrt('0123456789.eE+-', s[k_:k_]) == 0 ? \
    (nw_ = 0, 0) : 0), nw_)
value_key(s) = number_word(s) ? sci(s) : '?'
# a value of the refined parameter in a data file's first column, in a key
param_key(v) = sym(param).' = '.value_key(v)
