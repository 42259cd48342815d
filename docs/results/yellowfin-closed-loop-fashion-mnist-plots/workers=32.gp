# Made by dsgd report; `gnuplot workers=32.gp` in this folder draws it again.
set termoption noenhanced
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
set terminal pngcairo size 1120,1180 font "sans,10"
set output "workers=32.png"
set multiplot layout 3,2 title "workers=32"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "workers=32.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "workers=32.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "workers=32.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "workers=32.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 10 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 11 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set format y "%g"
set key top right
plot "workers=32.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 12 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 13 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 14 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
unset multiplot
set output
set terminal svg dynamic size 1120,1180 font "sans,10"
set output "workers=32.svg"
set multiplot layout 3,2 title "workers=32"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "workers=32.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "workers=32.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "workers=32.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "workers=32.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 10 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 11 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set format y "%g"
set key top right
plot "workers=32.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "workers=32.dat" index 12 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#1f78b4" title "open loop", \
     "workers=32.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "workers=32.dat" index 13 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#e31a1c" title "closed loop, gain 0.01", \
     "workers=32.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "workers=32.dat" index 14 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#33a02c" title "closed loop, gain 0.1"
unset multiplot
set output
