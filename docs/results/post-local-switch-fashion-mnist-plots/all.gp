# Made by dsgd report; `gnuplot all.gp` in this folder draws it again.
set termoption noenhanced
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
set terminal pngcairo size 1120,1180 font "sans,10"
set output "all.png"
set multiplot layout 3,2 title ""
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "all.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "all.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 10 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 11 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 12 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 13 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 14 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 15 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 16 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 17 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 17 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 18 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 19 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "learner spread at each evaluation"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 20 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 21 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 22 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 23 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 23 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 24 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
unset multiplot
set output
set terminal svg dynamic size 1120,1180 font "sans,10"
set output "all.svg"
set multiplot layout 3,2 title ""
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "all.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "all.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 10 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 11 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 12 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 13 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 14 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 15 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 16 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 17 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 17 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 18 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 19 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
set title "learner spread at each evaluation"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "all.dat" index 20 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "0.0", \
     "all.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "all.dat" index 21 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "1.0", \
     "all.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "all.dat" index 22 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "2.0", \
     "all.dat" index 23 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "all.dat" index 23 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "3.0", \
     "all.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "all.dat" index 24 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "5.0"
unset multiplot
set output
