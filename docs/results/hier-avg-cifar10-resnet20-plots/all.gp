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
plot "all.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "all.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "learner spread at each evaluation"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
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
plot "all.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "all.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
set title "learner spread at each evaluation"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set format y "%g"
set key top right
plot "all.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "hier-avg S=4 K1=2 K2=8", \
     "all.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "kavg K=8 (same global reductions)"
unset multiplot
set output
