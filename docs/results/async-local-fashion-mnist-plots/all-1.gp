# Made by dsgd report; `gnuplot all-1.gp` in this folder draws it again.
set termoption noenhanced
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
set terminal pngcairo size 1440,1180 font "sans,10"
set output "all-1.png"
set multiplot layout 3,2 title "every configuration (1 of 4)"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 17 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 23 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set format y "%g"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 25 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 28 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 29 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 30 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 31 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 31 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 32 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 32 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 33 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 33 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 34 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 34 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 35 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 35 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
unset multiplot
set output
set terminal svg dynamic size 1440,1180 font "sans,10"
set output "all-1.svg"
set multiplot layout 3,2 title "every configuration (1 of 4)"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 17 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 23 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set format y "%g"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 25 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 28 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 29 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
set title "test accuracy against bytes moved"
set xlabel "bytes moved"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
unset logscale x
set xtics autofreq
set key outside right top vertical
plot "all-1.dat" index 30 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all-1.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "async-local-sgd H=4", \
     "all-1.dat" index 31 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all-1.dat" index 31 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local-dn H=4", \
     "all-1.dat" index 32 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all-1.dat" index 32 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn DyLU H=4", \
     "all-1.dat" index 33 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "all-1.dat" index 33 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async DiLoCo H=4", \
     "all-1.dat" index 34 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "all-1.dat" index 34 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "easgd-local H=4", \
     "all-1.dat" index 35 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e69f00" notitle, \
     "all-1.dat" index 35 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "easgd every step, tau=4"
unset multiplot
set output
