# Made by dsgd report; `gnuplot accuracy-against-workers.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "accuracy-against-workers"
set terminal pngcairo noenhanced size 720,420 font "sans,10"
set output out.".png"
set multiplot layout 1,1
set title "final test accuracy against workers"
set xlabel "workers"
set ylabel "final test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
set logscale x 2
set xtics 2
set format x "% h"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "accuracy-against-workers.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim", \
     "accuracy-against-workers.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "accuracy-against-workers.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd", \
     "accuracy-against-workers.dat" index 2 using 1:2 with points pt 4 ps 1.2 lc rgb "#d55e00" title "ssgd (published)", \
     "accuracy-against-workers.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "accuracy-against-workers.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "dana-dc", \
     "accuracy-against-workers.dat" index 4 using 1:2 with points pt 4 ps 1.2 lc rgb "#009e73" title "dana-dc (published)", \
     "accuracy-against-workers.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "accuracy-against-workers.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "sgd", \
     "accuracy-against-workers.dat" index 6 using 1:2 with points pt 4 ps 1.2 lc rgb "#cc79a7" title "sgd (published)", \
     "accuracy-against-workers.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "nag-asgd", \
     "accuracy-against-workers.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "multi-asgd", \
     "accuracy-against-workers.dat" index 9 using 1:2 with points pt 8 ps 1.5 lc rgb "#e69f00" title "multi-asgd (published, unverified)"
unset multiplot
set output
set terminal svg dynamic noenhanced size 720,420 font "sans,10"
set output out.".svg"
set multiplot layout 1,1
set title "final test accuracy against workers"
set xlabel "workers"
set ylabel "final test accuracy"
unset logscale y
set ytics autofreq
set format y "% h"
set logscale x 2
set xtics 2
set format x "% h"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "accuracy-against-workers.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "dana-slim", \
     "accuracy-against-workers.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "accuracy-against-workers.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "ssgd", \
     "accuracy-against-workers.dat" index 2 using 1:2 with points pt 4 ps 1.2 lc rgb "#d55e00" title "ssgd (published)", \
     "accuracy-against-workers.dat" index 3 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "accuracy-against-workers.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "dana-dc", \
     "accuracy-against-workers.dat" index 4 using 1:2 with points pt 4 ps 1.2 lc rgb "#009e73" title "dana-dc (published)", \
     "accuracy-against-workers.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#cc79a7" notitle, \
     "accuracy-against-workers.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "sgd", \
     "accuracy-against-workers.dat" index 6 using 1:2 with points pt 4 ps 1.2 lc rgb "#cc79a7" title "sgd (published)", \
     "accuracy-against-workers.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "nag-asgd", \
     "accuracy-against-workers.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "multi-asgd", \
     "accuracy-against-workers.dat" index 9 using 1:2 with points pt 8 ps 1.5 lc rgb "#e69f00" title "multi-asgd (published, unverified)"
unset multiplot
set output
