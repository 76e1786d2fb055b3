set terminal pngcairo size 900,600 font 'sans,10'
set output 'docs/img/sim/zipf-0.99/mrc.png'
set title "zipf:alpha=0.99,keys=100000,requests=1000000: miss ratio against cache size (82197 distinct keys, 1 thread)" noenhanced
set xlabel 'entries (cache size)'
set ylabel 'miss ratio'
set grid
set key outside right noenhanced
set logscale x
plot 'docs/img/sim/zipf-0.99/mrc.dat' index 0 using 1:2 with linespoints pt 1 title 'lru/linux_common', 'docs/img/sim/zipf-0.99/mrc.dat' index 1 using 1:2 with linespoints pt 2 title 'lru/linux_percpu', 'docs/img/sim/zipf-0.99/mrc.dat' index 2 using 1:2 with linespoints pt 3 title 'lru/global', 'docs/img/sim/zipf-0.99/mrc.dat' index 3 using 1:2 with linespoints pt 4 title 'lru/clock', 'docs/img/sim/zipf-0.99/mrc.dat' index 4 using 1:2 with linespoints pt 5 title 'lru/partitioned', 'docs/img/sim/zipf-0.99/mrc.dat' index 5 using 1:2 with linespoints pt 6 title 'lru/fifo', 'docs/img/sim/zipf-0.99/mrc.dat' index 6 using 1:2 with linespoints pt 7 title 'lru/s3fifo', 'docs/img/sim/zipf-0.99/mrc.dat' index 7 using 1:2 with linespoints pt 8 title 'lru/sampled', 'docs/img/sim/zipf-0.99/mrc.dat' index 8 using 1:2 with linespoints pt 9 title 'lru/sieve', 'docs/img/sim/zipf-0.99/mrc.dat' index 9 using 1:2 with linespoints pt 10 title 'lru/sieve_percpu', 'docs/img/sim/zipf-0.99/mrc.dat' index 10 using 1:2 with linespoints pt 11 title 'lru/assoc', 'docs/img/sim/zipf-0.99/mrc.dat' index 11 using 1:2 with linespoints pt 12 title 'opt', 'docs/img/sim/zipf-0.99/mrc.dat' index 12 using 1:2 with linespoints pt 1 title 'kernel', 'docs/img/sim/zipf-0.99/mrc.dat' index 13 using 1:2 with linespoints pt 2 title 'kernel:no_common_lru'
