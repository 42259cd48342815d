# Made by dsgd report; `gnuplot all.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "all"
set terminal pngcairo noenhanced size 1440,1560 font "sans,10"
set output out.".png"
set multiplot layout 4,2 title ""
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
plot "all.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "test accuracy against time on the cluster"
set xlabel "time on the cluster (minutes)"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
set logscale x 10
set xtics autofreq
set format x "%g"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
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
plot "all.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "training loss against time on the cluster"
set xlabel "time on the cluster (minutes)"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
set logscale x 10
set xtics autofreq
set format x "%g"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 29 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 31 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "time on the cluster (minutes)"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 32 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 33 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 34 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 34 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 35 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 36 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 37 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 37 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 38 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 39 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 20000000000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 40 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 41 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 41 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 42 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 43 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 44 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 44 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 45 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 46 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "learner spread before the last average of each period"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 47 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 48 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 48 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 49 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 50 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 51 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 51 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 52 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 53 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
unset multiplot
set output
set terminal svg dynamic noenhanced size 1440,1560 font "sans,10"
set output out.".svg"
set multiplot layout 4,2 title ""
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
plot "all.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "test accuracy against time on the cluster"
set xlabel "time on the cluster (minutes)"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
set logscale x 10
set xtics autofreq
set format x "%g"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
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
plot "all.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "training loss against time on the cluster"
set xlabel "time on the cluster (minutes)"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
set logscale x 10
set xtics autofreq
set format x "%g"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 29 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 31 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "time on the cluster (minutes)"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 32 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd n1", \
     "all.dat" index 33 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 34 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 34 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 35 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 36 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 37 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 37 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 38 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 39 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 20000000000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 40 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 41 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 41 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 42 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 43 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 44 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 44 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 45 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 46 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
set title "learner spread before the last average of each period"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 47 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p16", \
     "all.dat" index 48 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 48 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "kavg K=8", \
     "all.dat" index 49 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "kavg K=8 lr x1", \
     "all.dat" index 50 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 51 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all.dat" index 51 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "hier-avg S=4 K1=2 K2=32", \
     "all.dat" index 52 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "kavg K=32", \
     "all.dat" index 53 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#777777" title "hier-avg S=8 K1=2 K2=32"
unset multiplot
set output
