# Made by dsgd report; `gnuplot accuracy-against-workers.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "accuracy-against-workers"
set terminal pngcairo noenhanced size 720,420 font "sans,10"
set output out.".png"
set multiplot layout 1,1
set title "final test accuracy against workers"
set xlabel "workers"
set ylabel "final test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
set logscale x 2
set xtics 2
set format x "% h"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
unset multiplot
set output
set terminal svg dynamic noenhanced size 720,420 font "sans,10"
set output out.".svg"
set multiplot layout 1,1
set title "final test accuracy against workers"
set xlabel "workers"
set ylabel "final test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
set logscale x 2
set xtics 2
set format x "% h"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
unset multiplot
set output
