reset
set terminal pngcairo size 1000,620 font 'sans,11'
set output 'docs/img/sim/zipf-0.99/pareto-1644.png'
set title "Miss ratio against speed: 1644 entries, 2 threads\nzipf:alpha=0.99,keys=100000,requests=1000000\non AMD EPYC, 2 CPUs, Linux 6.18.44-fc-v1252" noenhanced
set xlabel "million requests per second, 2 threads (right: faster)" noenhanced
set ylabel 'miss ratio (lower: fewer misses)'
set grid
set key outside right top vertical Left reverse noenhanced spacing 1.2
set xrange [0:*]
set yrange [0:*]
set offsets 0, graph 0.05, graph 0.05, 0
set arrow from graph 0, first 0.308234 to graph 1, first 0.308234 nohead lc rgb 'black' dt 2 lw 2.5
plot 'docs/img/sim/zipf-0.99/pareto-1644.dat' index 0 using 1:2 with points lc rgb '#1f77b4' pt 7 ps 2.0 title "lru/linux_common", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 1 using 1:2 with points lc rgb '#ff7f0e' pt 5 ps 2.0 title "lru/linux_percpu", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 2 using 1:2 with points lc rgb '#2ca02c' pt 9 ps 2.0 title "lru/global", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 3 using 1:2 with points lc rgb '#d62728' pt 11 ps 2.0 title "lru/clock", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 4 using 1:2 with points lc rgb '#9467bd' pt 13 ps 2.0 title "lru/partitioned", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 5 using 1:2 with points lc rgb '#8c564b' pt 15 ps 2.0 title "lru/fifo", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 6 using 1:2 with points lc rgb '#e377c2' pt 7 ps 2.0 title "lru/s3fifo", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 7 using 1:2 with points lc rgb '#7f7f7f' pt 5 ps 2.0 title "lru/sampled", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 8 using 1:2 with points lc rgb '#9c9c1c' pt 9 ps 2.0 title "lru/sieve", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 9 using 1:2 with points lc rgb '#17becf' pt 11 ps 2.0 title "lru/sieve_percpu", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 10 using 1:2 with points lc rgb '#393b79' pt 13 ps 2.0 title "lru/assoc", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 11 using 1:2 with points lc rgb '#b8860b' pt 14 ps 2.0 lw 2 title "kernel", \
     'docs/img/sim/zipf-0.99/pareto-1644.dat' index 12 using 1:2 with points lc rgb '#637939' pt 6 ps 2.0 lw 2 title "kernel:no_common_lru", \
     NaN with lines lc rgb 'black' dt 2 lw 2.5 title 'opt (offline bound)'
