# Made by dsgd report; `gnuplot all.gp` in this folder draws it again.
set key font ",8" samplen 2
set grid lc rgb "#dddddd"
if (!exists("out")) out = "all"
set terminal pngcairo noenhanced size 1440,1560 font "sans,10"
set output out.".png"
set multiplot layout 4,2 title ""
set title "validation perplexity"
set xlabel "epoch"
set ylabel "validation perplexity"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (2 points past chance)", \
     "all.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (3 points past chance)"
set title "validation perplexity against time on the cluster"
set xlabel "time on the cluster (minutes)"
set ylabel "validation perplexity"
set logscale y
set ytics autofreq
set format y "%g"
set logscale x 10
set xtics autofreq
set format x "%g"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (2 points past chance)", \
     "all.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (3 points past chance)"
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
plot "all.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     "all.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (1 point past chance)", \
     "all.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     "all.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (1 point past chance)"
set title "training loss against time on the cluster"
set xlabel "time on the cluster (minutes)"
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
plot "all.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     "all.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (1 point past chance)", \
     "all.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     "all.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (1 point past chance)"
set title "time to reach each validation perplexity"
set xlabel "validation perplexity reached"
set ylabel "time on the cluster (minutes)"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50"
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
plot "all.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50", \
     "all.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     "all.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted"
set title "validation perplexity against bytes moved"
set xlabel "bytes moved"
set ylabel "validation perplexity"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics 500000000
set format x "%.1s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (2 points past chance)", \
     "all.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (3 points past chance)"
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
plot "all.dat" index 30 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50"
unset multiplot
set output
set terminal svg dynamic noenhanced size 1440,1560 font "sans,10"
set output out.".svg"
set multiplot layout 4,2 title ""
set title "validation perplexity"
set xlabel "epoch"
set ylabel "validation perplexity"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 0 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 0 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (2 points past chance)", \
     "all.dat" index 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 1 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 2 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 3 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (3 points past chance)"
set title "validation perplexity against time on the cluster"
set xlabel "time on the cluster (minutes)"
set ylabel "validation perplexity"
set logscale y
set ytics autofreq
set format y "%g"
set logscale x 10
set xtics autofreq
set format x "%g"
set key outside right top vertical
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 4 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 4 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (2 points past chance)", \
     "all.dat" index 5 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 5 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 6 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 7 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (3 points past chance)"
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
plot "all.dat" index 8 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 8 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     "all.dat" index 9 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all.dat" index 9 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (1 point past chance)", \
     "all.dat" index 10 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 10 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 11 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 12 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     "all.dat" index 13 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (1 point past chance)"
set title "training loss against time on the cluster"
set xlabel "time on the cluster (minutes)"
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
plot "all.dat" index 14 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 14 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     "all.dat" index 15 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#d55e00" notitle, \
     "all.dat" index 15 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (1 point past chance)", \
     "all.dat" index 16 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 16 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 17 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 18 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     "all.dat" index 19 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (1 point past chance)"
set title "time to reach each validation perplexity"
set xlabel "validation perplexity reached"
set ylabel "time on the cluster (minutes)"
unset logscale y
set ytics autofreq
set format y "% h"
unset logscale x
set xtics autofreq
set format x "% h"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 20 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 20 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50"
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
plot "all.dat" index 21 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50", \
     "all.dat" index 22 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 22 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 23 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 24 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     "all.dat" index 25 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted"
set title "validation perplexity against bytes moved"
set xlabel "bytes moved"
set ylabel "validation perplexity"
set logscale y
set ytics autofreq
set format y "%g"
unset logscale x
set xtics 500000000
set format x "%.1s%c"
set key outside right top vertical
set offsets graph 0, graph 0, graph 0.06, graph 0.06
set yrange [*:*]
plot "all.dat" index 26 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 26 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#d55e00" title "async-local H=50 (2 points past chance)", \
     "all.dat" index 27 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#009e73" notitle, \
     "all.dat" index 27 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 3 lc rgb "#009e73" title "async-local-dn dylu H=50", \
     "all.dat" index 28 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 4 lc rgb "#cc79a7" title "async-local-dn H=50", \
     "all.dat" index 29 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#000000" title "async-local-dn H=50 equal speeds", \
     keyentry with linespoints pt 5 ps 0.45 lw 1.5 dt 2 lc rgb "#e69f00" title "async-local H=50 weighted (3 points past chance)"
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
plot "all.dat" index 30 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb "#0072b2" notitle, \
     "all.dat" index 30 using 1:2 with linespoints pt 5 ps 0.45 lw 1.5 dt 1 lc rgb "#0072b2" title "diloco H=50"
unset multiplot
set output
