# Made by dsgd report; `gnuplot workers=16.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "workers=16"
set terminal pngcairo noenhanced size 1440,800 font "sans,10"
set output out.".png"
set multiplot layout 2,2 title "workers=16"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
unset multiplot
set output
set terminal svg dynamic noenhanced size 1440,800 font "sans,10"
set output out.".svg"
set multiplot layout 2,2 title "workers=16"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
unset logscale xy
set label 1 "no data" at graph 0.5, graph 0.5 center
plot [0:1] [0:1] NaN notitle
unset label 1
unset multiplot
set output
