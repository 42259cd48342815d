set terminal pngcairo size 900,520
set output 'wins.png'
set ylabel 'time to the accuracy / SSGD''s'
set xlabel 'link between hosts'
set key outside right
set grid
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3
set xrange [-0.3:3.3]
plot 'wins.dat' index 0 using 1:3:xtic(2) with linespoints lw 2 title 'xeon-avx512bf16-2core: dana-slim', '' index 0 using 1:4 with linespoints dt 2 lw 2 title 'xeon-avx512bf16-2core: hier-avg', 'wins.dat' index 1 using 1:3:xtic(2) with linespoints lw 2 title 'gtx1080ti-keras: dana-slim', '' index 1 using 1:4 with linespoints dt 2 lw 2 title 'gtx1080ti-keras: hier-avg', 'wins.dat' index 2 using 1:3:xtic(2) with linespoints lw 2 title 'h200: dana-slim', '' index 2 using 1:4 with linespoints dt 2 lw 2 title 'h200: hier-avg'
