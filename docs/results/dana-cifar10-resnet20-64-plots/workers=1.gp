# Made by dsgd report; `gnuplot workers=1.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "workers=1"
set terminal pngcairo noenhanced size 1440,1560 font "sans,10"
set output out.".png"
set multiplot layout 4,2 title "workers=1"
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
plot "workers=1.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
set title "test accuracy against simulated time"
set xlabel "simulated time"
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
plot "workers=1.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
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
plot "workers=1.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
set title "training loss against simulated time"
set xlabel "simulated time"
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
plot "workers=1.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "simulated time"
unset logscale y
set ytics 1000000
set format y "%.0s%c"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [0:*]
plot "workers=1.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 500000000
set format x "%.1s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=1.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
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
plot "workers=1.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
unset multiplot
set output
set terminal svg dynamic noenhanced size 1440,1560 font "sans,10"
set output out.".svg"
set multiplot layout 4,2 title "workers=1"
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
plot "workers=1.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
set title "test accuracy against simulated time"
set xlabel "simulated time"
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
plot "workers=1.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
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
plot "workers=1.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
set title "training loss against simulated time"
set xlabel "simulated time"
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
plot "workers=1.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1", \
     "workers=1.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "simulated time"
unset logscale y
set ytics 1000000
set format y "%.0s%c"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [0:*]
plot "workers=1.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "sgd n1"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 500000000
set format x "%.1s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=1.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
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
plot "workers=1.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt (workers=64)"
unset multiplot
set output
