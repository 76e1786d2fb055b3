set terminal svg dynamic size 900,600 font 'sans,10'
set output 'docs/img/sim/zipf-txt/pareto-902.svg'
set title "zipf.txt: 902 entries, 2 threads: miss ratio against speed" noenhanced
set xlabel 'Mreq/s'
set ylabel 'miss ratio'
set grid
set key outside right noenhanced
set xlabel 'million requests per second (2 threads)'
set yrange [0:*]
plot 'docs/img/sim/zipf-txt/pareto-902.dat' index 0 using 1:2 with points pt 1 ps 1.6 title 'lru/linux_common', 'docs/img/sim/zipf-txt/pareto-902.dat' index 1 using 1:2 with points pt 2 ps 1.6 title 'lru/linux_percpu', 'docs/img/sim/zipf-txt/pareto-902.dat' index 2 using 1:2 with points pt 3 ps 1.6 title 'lru/global', 'docs/img/sim/zipf-txt/pareto-902.dat' index 3 using 1:2 with points pt 4 ps 1.6 title 'lru/clock', 'docs/img/sim/zipf-txt/pareto-902.dat' index 4 using 1:2 with points pt 5 ps 1.6 title 'lru/partitioned', 'docs/img/sim/zipf-txt/pareto-902.dat' index 5 using 1:2 with points pt 6 ps 1.6 title 'lru/fifo', 'docs/img/sim/zipf-txt/pareto-902.dat' index 6 using 1:2 with points pt 7 ps 1.6 title 'lru/s3fifo', 'docs/img/sim/zipf-txt/pareto-902.dat' index 7 using 1:2 with points pt 8 ps 1.6 title 'lru/sampled', 'docs/img/sim/zipf-txt/pareto-902.dat' index 8 using 1:2 with points pt 9 ps 1.6 title 'lru/sieve', 'docs/img/sim/zipf-txt/pareto-902.dat' index 9 using 1:2 with points pt 10 ps 1.6 title 'lru/sieve_percpu', 'docs/img/sim/zipf-txt/pareto-902.dat' index 10 using 1:2 with points pt 11 ps 1.6 title 'lru/assoc', 'docs/img/sim/zipf-txt/pareto-902.dat' index 11 using 1:2 with points pt 12 ps 1.6 title 'kernel', 'docs/img/sim/zipf-txt/pareto-902.dat' index 12 using 1:2 with points pt 1 ps 1.6 title 'kernel:no_common_lru', 0.103 with lines dt 2 lc 'black' title 'opt (offline bound)'
