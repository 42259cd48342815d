# Made by dsgd report; `gnuplot model=lenet5-bn_workers=32.gp` in this folder draws it again.
set termoption noenhanced
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
set terminal pngcairo size 1120,1180 font "sans,10"
set output "model=lenet5-bn_workers=32.png"
set multiplot layout 3,2 title "model=lenet5-bn, workers=32"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "model=lenet5-bn_workers=32.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 10 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 11 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 12 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 13 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 14 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "model=lenet5-bn_workers=32.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 15 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 16 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 17 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 17 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 18 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 19 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 20 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 21 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 22 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 23 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 23 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 24 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 25 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 25 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 26 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 27 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 28 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 28 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 29 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 29 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 30 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 30 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 31 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 31 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 32 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 32 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 33 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 33 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 34 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 34 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 35 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 35 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 36 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 36 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 37 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 37 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 38 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 38 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 39 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 39 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 40 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 40 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 41 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 41 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 42 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 42 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 43 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 43 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 44 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 44 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 45 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 45 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 46 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 46 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 47 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 47 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 48 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 48 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 49 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 49 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 50 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 50 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 51 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 51 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 52 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 52 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 53 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 53 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 54 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 54 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 55 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 55 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 56 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 56 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 57 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 57 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 58 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 58 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 59 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 59 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 60 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 60 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 61 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 61 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 62 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 62 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 63 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 63 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 64 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 64 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 65 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 65 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 66 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 66 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 67 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 67 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 68 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 68 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 69 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 69 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 70 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 70 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 71 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 71 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 72 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 72 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 73 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 73 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd"
set title "learner spread at each evaluation"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 74 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 74 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
unset multiplot
set output
set terminal svg dynamic size 1120,1180 font "sans,10"
set output "model=lenet5-bn_workers=32.svg"
set multiplot layout 3,2 title "model=lenet5-bn, workers=32"
set title "test accuracy"
set xlabel "epoch"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "model=lenet5-bn_workers=32.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 0 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 1 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 2 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 2 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 3 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 4 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 5 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 6 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 6 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 7 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 7 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 8 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 9 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 10 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 11 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 11 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 12 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 12 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 13 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 13 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 14 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "test accuracy against simulated time"
set xlabel "simulated time"
set ylabel "test accuracy"
unset logscale y
set format y "% h"
set key bottom right
plot "model=lenet5-bn_workers=32.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 15 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 16 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 17 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 17 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 18 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 18 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 19 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 19 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 20 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 21 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 21 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 22 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 23 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 23 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 24 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 24 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 25 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 25 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 26 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 27 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 28 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 28 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 29 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 29 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "training loss"
set xlabel "epoch"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 30 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 30 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 31 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 31 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 32 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 32 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 33 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 33 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 34 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 34 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 35 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 35 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 36 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 36 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 37 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 37 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 38 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 38 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 39 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 39 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 40 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 40 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 41 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 41 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 42 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 42 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 43 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 43 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 44 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 44 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "training loss against simulated time"
set xlabel "simulated time"
set ylabel "training loss"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 45 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 45 using 1:2 with lines lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 46 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 46 using 1:2 with lines lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 47 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 47 using 1:2 with lines lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 48 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 48 using 1:2 with lines lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 49 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 49 using 1:2 with lines lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 50 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 50 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 51 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 51 using 1:2 with lines lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 52 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 52 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 53 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 53 using 1:2 with lines lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 54 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 54 using 1:2 with lines lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 55 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 55 using 1:2 with lines lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 56 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 56 using 1:2 with lines lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 57 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 57 using 1:2 with lines lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 58 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 58 using 1:2 with lines lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd", \
     "model=lenet5-bn_workers=32.dat" index 59 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 59 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
set title "staleness of the applied messages"
set xlabel "staleness (server updates)"
set ylabel "share of updates"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 60 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 60 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#1f78b4" title "asgd", \
     "model=lenet5-bn_workers=32.dat" index 61 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 61 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#e31a1c" title "asgd-m", \
     "model=lenet5-bn_workers=32.dat" index 62 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 62 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#33a02c" title "nag-asgd", \
     "model=lenet5-bn_workers=32.dat" index 63 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#ff7f00" notitle, \
     "model=lenet5-bn_workers=32.dat" index 63 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#ff7f00" title "multi-asgd", \
     "model=lenet5-bn_workers=32.dat" index 64 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#6a3d9a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 64 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#6a3d9a" title "dana-zero", \
     "model=lenet5-bn_workers=32.dat" index 65 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b15928" notitle, \
     "model=lenet5-bn_workers=32.dat" index 65 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#b15928" title "dana-slim", \
     "model=lenet5-bn_workers=32.dat" index 66 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#a6cee3" notitle, \
     "model=lenet5-bn_workers=32.dat" index 66 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#a6cee3" title "dc-asgd", \
     "model=lenet5-bn_workers=32.dat" index 67 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fb9a99" notitle, \
     "model=lenet5-bn_workers=32.dat" index 67 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#fb9a99" title "dana-dc", \
     "model=lenet5-bn_workers=32.dat" index 68 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#b2df8a" notitle, \
     "model=lenet5-bn_workers=32.dat" index 68 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#b2df8a" title "ga-asgd", \
     "model=lenet5-bn_workers=32.dat" index 69 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#fdbf6f" notitle, \
     "model=lenet5-bn_workers=32.dat" index 69 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#fdbf6f" title "dana-ga", \
     "model=lenet5-bn_workers=32.dat" index 70 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cab2d6" notitle, \
     "model=lenet5-bn_workers=32.dat" index 70 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#cab2d6" title "yellowfin", \
     "model=lenet5-bn_workers=32.dat" index 71 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#000000" notitle, \
     "model=lenet5-bn_workers=32.dat" index 71 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 1 lc rgb "#000000" title "easgd", \
     "model=lenet5-bn_workers=32.dat" index 72 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#1f78b4" notitle, \
     "model=lenet5-bn_workers=32.dat" index 72 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 2 lc rgb "#1f78b4" title "eamsgd", \
     "model=lenet5-bn_workers=32.dat" index 73 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#e31a1c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 73 using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 dt 2 lc rgb "#e31a1c" title "dana-easgd"
set title "learner spread at each evaluation"
set xlabel "epoch"
set ylabel "spread"
set logscale y
set format y "%g"
set key top right
plot "model=lenet5-bn_workers=32.dat" index 74 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#33a02c" notitle, \
     "model=lenet5-bn_workers=32.dat" index 74 using 1:2 with lines lw 1.5 dt 2 lc rgb "#33a02c" title "ssgd"
unset multiplot
set output
