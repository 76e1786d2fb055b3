reset
set terminal svg size 1000,620 dynamic font 'sans,11'
set output 'docs/img/sim/zipf-txt/mrc.svg'
set title "Miss ratio against cache size, 1 thread\nzipf.txt: 1803 distinct keys" noenhanced
set xlabel "entries (cache size, log scale)" noenhanced
set ylabel 'miss ratio (lower: fewer misses)'
set grid
set key outside right top vertical Left reverse noenhanced spacing 1.2
set logscale x
set autoscale xfix
set offsets graph 0.05, graph 0.05, graph 0.04, graph 0.04
set xtics ('18' 18, '36' 36, '90' 90, '180' 180, '361' 361, '902' 902)
plot 'docs/img/sim/zipf-txt/mrc.dat' index 0 using 1:2 with linespoints lc rgb '#1f77b4' pt 7 ps 1.3 lw 2 dt 1 title "lru/linux_common", \
     'docs/img/sim/zipf-txt/mrc.dat' index 1 using 1:2 with linespoints lc rgb '#ff7f0e' pt 5 ps 1.3 lw 2 dt 1 title "lru/linux_percpu", \
     'docs/img/sim/zipf-txt/mrc.dat' index 2 using 1:2 with linespoints lc rgb '#2ca02c' pt 9 ps 1.3 lw 2 dt 1 title "lru/global", \
     'docs/img/sim/zipf-txt/mrc.dat' index 3 using 1:2 with linespoints lc rgb '#d62728' pt 11 ps 1.3 lw 2 dt 1 title "lru/clock", \
     'docs/img/sim/zipf-txt/mrc.dat' index 4 using 1:2 with linespoints lc rgb '#9467bd' pt 13 ps 1.3 lw 2 dt 1 title "lru/partitioned", \
     'docs/img/sim/zipf-txt/mrc.dat' index 5 using 1:2 with linespoints lc rgb '#8c564b' pt 15 ps 1.3 lw 2 dt 1 title "lru/fifo", \
     'docs/img/sim/zipf-txt/mrc.dat' index 6 using 1:2 with linespoints lc rgb '#e377c2' pt 7 ps 1.3 lw 2 dt 1 title "lru/s3fifo", \
     'docs/img/sim/zipf-txt/mrc.dat' index 7 using 1:2 with linespoints lc rgb '#7f7f7f' pt 5 ps 1.3 lw 2 dt 1 title "lru/sampled", \
     'docs/img/sim/zipf-txt/mrc.dat' index 8 using 1:2 with linespoints lc rgb '#9c9c1c' pt 9 ps 1.3 lw 2 dt 1 title "lru/sieve", \
     'docs/img/sim/zipf-txt/mrc.dat' index 9 using 1:2 with linespoints lc rgb '#17becf' pt 11 ps 1.3 lw 2 dt 1 title "lru/sieve_percpu", \
     'docs/img/sim/zipf-txt/mrc.dat' index 10 using 1:2 with linespoints lc rgb '#393b79' pt 13 ps 1.3 lw 2 dt 1 title "lru/assoc", \
     'docs/img/sim/zipf-txt/mrc.dat' index 11 using 1:2 with linespoints lc rgb 'black' dt 2 lw 2.5 pt 1 ps 1.4 title "opt", \
     'docs/img/sim/zipf-txt/mrc.dat' index 12 using 1:2 with linespoints lc rgb '#b8860b' pt 14 ps 1.3 lw 2 dt 2 title "kernel", \
     'docs/img/sim/zipf-txt/mrc.dat' index 13 using 1:2 with linespoints lc rgb '#637939' pt 6 ps 1.3 lw 2 dt 2 title "kernel:no_common_lru"
