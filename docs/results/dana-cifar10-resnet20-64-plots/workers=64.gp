# Made by dsgd report; `gnuplot workers=64.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "workers=64"
set terminal pngcairo noenhanced size 1440,1560 font "sans,10"
set output out.".png"
set multiplot layout 4,2 title "workers=64"
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
plot "workers=64.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 5000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
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
plot "workers=64.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics 5000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "simulated time"
unset logscale y
set ytics 5000
set format y "%.0s%c"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
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
plot "workers=64.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64 (identical to dana-dc n64)", \
     "workers=64.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 2000000000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 31 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 31 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 32 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 32 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 33 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 34 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 35 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 36 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
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
plot "workers=64.dat" index 37 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 37 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 38 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
unset multiplot
set output
set terminal svg dynamic noenhanced size 1440,1560 font "sans,10"
set output out.".svg"
set multiplot layout 4,2 title "workers=64"
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
plot "workers=64.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 5000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
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
plot "workers=64.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics 5000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
set title "time to reach each test accuracy"
set xlabel "test accuracy reached"
set ylabel "simulated time"
unset logscale y
set ytics 5000
set format y "%.0s%c"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
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
plot "workers=64.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64 (identical to dana-dc n64)", \
     "workers=64.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics 2000000000
set format x "%.0s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "workers=64.dat" index 31 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "workers=64.dat" index 31 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim n64", \
     "workers=64.dat" index 32 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 32 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 33 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "dana-dc n64", \
     "workers=64.dat" index 34 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "multi-asgd n64", \
     "workers=64.dat" index 35 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "asgd n64", \
     "workers=64.dat" index 36 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
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
plot "workers=64.dat" index 37 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "workers=64.dat" index 37 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd p64", \
     "workers=64.dat" index 38 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#56b4e9" title "ssgd p64 sqrt"
unset multiplot
set output
