# gb ramp plot: run gnuplot on this file in the directory gb ran in; it reads ramp.csv and writes ramp.png
set terminal pngcairo size 1200,720 noenhanced font ',11'
set output 'ramp.png'
set datafile separator ','
set title 'gb ramp: GET http://127.0.0.1:8080/limited?d=10ms&max=8 (keep-alive)'
set xlabel 'concurrency (connections)'
set ylabel 'requests per second'
set y2label 'latency ms (service time)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set offsets 0, 0, graph 0.1, 0
set grid
set key below
set arrow 1 from 8, graph 0 to 8, graph 1 nohead dashtype 2 linewidth 2 linecolor rgb '#c0392b'
set label 1 'saturation: concurrency 8, 788.18 req/s' at 8, graph 0.06 left offset 1,0 textcolor rgb '#c0392b'
set label 2 '' at 8, 788.18 point pointtype 7 pointsize 2.5 linecolor rgb '#c0392b'
plot 'ramp.csv' using 2:5 axes x1y1 with linespoints linewidth 2 pointtype 7 linecolor rgb '#8e24aa' title 'requests per second', \
     '' using 2:9 axes x1y2 with linespoints pointtype 5 linecolor rgb '#009e73' title 'p50 ms', \
     '' using 2:13 axes x1y2 with linespoints pointtype 9 linecolor rgb '#0072b2' title 'p99 ms'
