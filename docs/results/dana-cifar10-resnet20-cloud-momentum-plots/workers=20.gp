# Made by dsgd report; `gnuplot workers=20.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "workers=20"
set terminal pngcairo noenhanced size 1440,1560 font "sans,10"
set output out.".png"
set multiplot layout 4,2 title "workers=20"
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
plot "workers=20.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "test accuracy against time on the cluster"
set xlabel "time on the cluster (seconds)"
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
plot "workers=20.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
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
plot "workers=20.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "training loss against time on the cluster"
set xlabel "time on the cluster (seconds)"
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
plot "workers=20.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "time on the cluster (seconds)"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=20.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=20.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
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
plot "workers=20.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
unset multiplot
set output
set terminal svg dynamic noenhanced size 1440,1560 font "sans,10"
set output out.".svg"
set multiplot layout 4,2 title "workers=20"
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
plot "workers=20.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "test accuracy against time on the cluster"
set xlabel "time on the cluster (seconds)"
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
plot "workers=20.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
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
plot "workers=20.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "training loss against time on the cluster"
set xlabel "time on the cluster (seconds)"
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
plot "workers=20.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "time on the cluster (seconds)"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=20.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=20.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
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
plot "workers=20.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n20 cloud"
unset multiplot
set output
