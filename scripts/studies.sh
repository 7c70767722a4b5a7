#!/usr/bin/env bash
# The three parameter studies of docs/studies.md, rerun from the program itself: build penlim
# (Release), run each study with `penlim study` into out/studies/NAME, draw the figures that collapse
# each study onto its similarity variable (gnuplot, from study.csv alone), and copy the figures into
# docs/figures/studies/. Needs what scripts/setup installs (gnuplot included); run it from anywhere.
# Each study prints its wall time; on 2 cores the three take about a minute together. A study that
# exits non-zero (3: a run failed) stops the script before its figures are copied.
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPENLIM_WERROR=ON > /dev/null
cmake --build build -j"$(nproc)" --target penlim > /dev/null

penlim=./build/penlim
out=out/studies
figs=docs/figures/studies
mkdir -p "$out/post" "$figs"

timed() {  # timed NAME COMMAND...: runs COMMAND, prints its wall time
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN { printf "%s: %.1f s wall\n", n, b - a }'
}

# column NAME FILE: the 1-based index of column NAME in the CSV header of FILE
column() {
  head -1 "$2" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}

# 1. The corner (135 degrees, e = 1, k2 = k): eps x mu. The outcome depends on s = eps sqrt(k mu) alone.
timed corner $penlim study corner --grid eps=lin:-0.3:0.3:61 --grid mu=1e2:1e6:9 \
  --map final_v1 --out "$out/corner" --quiet
cp "$out/corner/map_final_v1.png" "$figs/corner_map_final_v1.png"
# The same runs, read back (--resume: nothing is computed again), drawn as final_v2.
timed corner-v2 $penlim study corner --grid eps=lin:-0.3:0.3:61 --grid mu=1e2:1e6:9 \
  --map final_v2 --out "$out/corner" --resume --quiet
cp "$out/corner/map_final_v2.png" "$figs/corner_map_final_v2.png"
csv=$out/corner/study.csv
awk -F, -v ce="$(column eps "$csv")" -v cm="$(column mu "$csv")" -v cs="$(column status "$csv")" \
  -v c1="$(column final_v1 "$csv")" -v c2="$(column final_v2 "$csv")" \
  'NR > 1 && $cs == "ok" { printf "%.17g %.17g %.17g %.17g\n", $ce * sqrt($cm), $c1, $c2, $cm }' \
  "$csv" > "$out/post/corner.dat"
gnuplot <<EOF
set terminal pngcairo size 720,480 font ',10'
set output '$figs/corner_collapse.png'
set xlabel 's = eps sqrt(k mu)'
set ylabel 'final velocity'
set xrange [-6:6]
set yrange [-1.6:1.2]
set grid
set key bottom left
set arrow from -pi, graph 0 to -pi, graph 1 nohead dashtype 2 lc rgb 'gray40'
set arrow from 2, graph 0 to 2, graph 1 nohead dashtype 2 lc rgb 'gray40'
set label 's = -pi' at -pi, 1.1 right offset -0.5,0
set label 's = 2' at 2, 1.1 left offset 0.5,0
set title 'corner, 135 degrees, e = 1: all 549 runs (eps in [-0.3, 0.3], mu in [1e2, 1e6]) against s'
plot '$out/post/corner.dat' using 1:2 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'final v1', \
     '' using 1:3 with points pt 7 ps 0.5 lc rgb '#d62728' title 'final v2'
EOF

# 2. Newton's cradle over N x e (mu = 1e8: the penalty's outcome does not depend on mu, the chain
# being self-similar): the first and the last ball against Moreau's simultaneous impact law.
timed cradle $penlim study newtons_cradle --grid N=2:11:10 --grid e=lin:0:1:11 --mu 1e8 \
  --map final_v1 --out "$out/cradle" --quiet
cp "$out/cradle/map_final_v1.png" "$figs/cradle_map_final_v1.png"
csv=$out/cradle/study.csv
# The last ball's velocity is final_vN, a column that moves with N: read it through the row's N.
awk -F, -v cn="$(column N "$csv")" -v ce="$(column e "$csv")" -v cs="$(column status "$csv")" \
  -v c1="$(column final_v1 "$csv")" -v cv="$(column final_v1 "$csv")" \
  'NR > 1 && $cs == "ok" {
     N = $cn; e = $ce; first = $c1; last = $(cv + N - 1)
     mfirst = (1 + e - e * N) / N; mlast = (1 + e) / N
     printf "%d %.17g %.17g %.17g %.17g %.17g\n", N, e, first, last, first - mfirst, last - mlast
   }' "$csv" > "$out/post/cradle.dat"
gnuplot <<EOF
set terminal pngcairo size 900,400 font ',10'
set output '$figs/cradle_minus_moreau.png'
set multiplot layout 1,2 title "Newton's cradle, penalty limit (mu = 1e8) minus Moreau's law, V = 1"
set palette defined (0 '#3b4cc0', 0.5 '#f7f7f7', 1 '#b40426')
set xlabel 'N'
set ylabel 'e'
set xrange [1.5:11.5]
set yrange [-0.05:1.05]
set cbrange [-0.7:0.7]
set title 'first ball: v_0 - (1 + e - e N)/N'
plot '$out/post/cradle.dat' using 1:2:5 with image notitle
set title 'last ball: v_{N-1} - (1 + e)/N'
plot '$out/post/cradle.dat' using 1:2:6 with image notitle
unset multiplot
EOF

# 3. The wedge (m = 0.3, e = 0.4, v0 = (-1, -1)) from (1, 1 + d): d x mu, against the limit.
timed wedge $penlim study wedge --set m=0.3 --set e=0.4 --grid q2=lin:1.0005:1.02:40 \
  --grid mu=1e4:1e10:13 --map impact_velocity_error --out "$out/wedge" --quiet
cp "$out/wedge/map_impact_velocity_error.png" "$figs/wedge_map_impact_velocity_error.png"
csv=$out/wedge/study.csv
# The limit's outcome, three single-wall maps (-e v1, v2 + (1 + e) m v1) and mirror: (0.078561.., 0.485512..).
awk -F, -v cq="$(column q2 "$csv")" -v cm="$(column mu "$csv")" -v cs="$(column status "$csv")" \
  -v c1="$(column final_v1 "$csv")" -v c2="$(column final_v2 "$csv")" \
  -v ci="$(column impact_velocity_error "$csv")" \
  'BEGIN { m = 0.3; e = 0.4; v1 = -1; v2 = -1
           v2 += (1 + e) * m * v1; v1 = -e * v1      # wall 1
           v1 += (1 + e) * m * v2; v2 = -e * v2      # wall 2
           v2 += (1 + e) * m * v1; v1 = -e * v1 }    # wall 1
   NR > 1 && $cs == "ok" {
     d = $cq - 1; err = sqrt(($c1 - v1)^2 + ($c2 - v2)^2)
     printf "%.17g %.17g %.17g %.17g\n", d * sqrt($cm), err, $ci, $cm
   }' "$csv" > "$out/post/wedge.dat"
gnuplot <<EOF
set terminal pngcairo size 720,480 font ',10'
set output '$figs/wedge_collapse.png'
set logscale xy
set format y '10^{%L}'
set xlabel 'd sqrt(k mu)/V  (V = 1, the approach speed along each normal)'
set ylabel '|final v - limit final v|'
set grid
set key top right
set xrange [0.03:5000]
set yrange [1e-16:1]
set arrow from 4.556, graph 0 to 4.556, graph 1 nohead dashtype 2 lc rgb 'gray40'
set label 'derived 4.556' at 4.556, 1e-14 right offset -0.5,0
set arrow from 6.3, graph 0 to 6.3, graph 1 nohead dashtype 3 lc rgb 'gray60'
set label 'docs/cases.md 6.3' at 6.3, 1e-15 left offset 0.5,0
set title 'wedge, m = 0.3, e = 0.4, start (1, 1 + d): all 520 runs (d in [5e-4, 2e-2], mu in [1e4, 1e10])'
plot '$out/post/wedge.dat' using 1:(\$2 > 0 ? \$2 : 1e-16) with points pt 7 ps 0.5 lc rgb '#1f77b4' notitle
EOF

ls -l "$figs"
