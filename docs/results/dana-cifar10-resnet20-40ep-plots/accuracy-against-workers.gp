# Made by dsgd report; `gnuplot accuracy-against-workers.gp` in this folder draws it again.
set termoption noenhanced
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
set terminal pngcairo size 720,420 font "sans,10"
set output "accuracy-against-workers.png"
set multiplot layout 1,1
set title "final test accuracy against workers"
set xlabel "workers"
set ylabel "final test accuracy"
unset logscale y
set format y "% h"
set logscale x 2
set xtics 2
set key outside right top vertical
plot "accuracy-against-workers.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd", \
     "accuracy-against-workers.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "dana-slim", \
     "accuracy-against-workers.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "nag-asgd", \
     "accuracy-against-workers.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "asgd", \
     "accuracy-against-workers.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "ssgd"
unset multiplot
set output
set terminal svg dynamic size 720,420 font "sans,10"
set output "accuracy-against-workers.svg"
set multiplot layout 1,1
set title "final test accuracy against workers"
set xlabel "workers"
set ylabel "final test accuracy"
unset logscale y
set format y "% h"
set logscale x 2
set xtics 2
set key outside right top vertical
plot "accuracy-against-workers.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "sgd", \
     "accuracy-against-workers.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "dana-slim", \
     "accuracy-against-workers.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "nag-asgd", \
     "accuracy-against-workers.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "asgd", \
     "accuracy-against-workers.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "ssgd"
unset multiplot
set output
