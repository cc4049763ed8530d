# gb ramp plot: run gnuplot on this file in the directory gb ran in; it reads ramp.csv and writes ramp.png
set terminal pngcairo size 1200,720 noenhanced font ',11'
set output 'ramp.png'
set datafile separator ','
set title 'gb ramp: GET http://127.0.0.1:8080/hello (keep-alive)'
set xlabel 'target rate (requests per second)'
set ylabel 'requests per second'
set y2label 'latency ms (from the intended send time)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set offsets 0, 0, graph 0.1, 0
set grid
set key below
set arrow 1 from 1000, graph 0 to 1000, graph 1 nohead dashtype 2 linewidth 2 linecolor rgb '#c0392b'
set label 1 'saturation: rate 1000, 800.00 req/s (target missed)' at 1000, graph 0.06 right offset -1,0 textcolor rgb '#c0392b'
set label 2 '' at 1000, 800.00 point pointtype 7 pointsize 2.5 linecolor rgb '#c0392b'
plot 'ramp.csv' using 14:5 axes x1y1 with linespoints linewidth 2 pointtype 7 linecolor rgb '#8e24aa' title 'requests per second', \
     '' using 14:14 axes x1y1 with lines dashtype 3 linecolor rgb 'gray40' title 'target rate', \
     '' using 14:9 axes x1y2 with linespoints pointtype 5 linecolor rgb '#009e73' title 'p50 ms', \
     '' using 14:13 axes x1y2 with linespoints pointtype 9 linecolor rgb '#0072b2' title 'p99 ms'
