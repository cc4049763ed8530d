#!/bin/bash
# instructions.sh counts the user-space instructions a client spends per
# request, with valgrind's callgrind: a count, not a time, so it repeats on a
# busy or virtual machine where CPU seconds move by 10-30% from run to run.
#
# usage: bench/instructions.sh N COMMAND...   (NN in COMMAND becomes N)
# e.g.:  bench/instructions.sh 40000 ./gb -k -c 50 -n NN -q http://127.0.0.1:8080/small.txt
#
# It prints the instructions per request in gb's own code, its libraries
# (HdrHistogram, bytes, time) and the system-call stubs, then the functions
# that spend the most. Left out: the Go scheduler and runtime.nanotime1,
# which valgrind distorts (it runs one thread at a time, so the background
# sweeper spins on Gosched, and it has no vDSO). The count includes the
# run's start and report, so use N of 20 000 or more. valgrind slows the run
# about 50 times; the server sees a slow client, which changes nothing in
# the client's instructions per request.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 N COMMAND... (NN in COMMAND becomes N)" >&2
	exit 2
fi
n=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Go's asynchronous preemption signals trip callgrind's signal tracking.
GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$out" "${@//NN/$n}" >/dev/null 2>&1
callgrind_annotate --auto=no --threshold=100 "$out" |
	grep -E '^ *[0-9,]+ ' |
	grep -E 'gb-bench/gb|HdrHistogram|:time\.|bytealg|syscall|memmove|runtime\.coro|exitsyscall|entersyscall' |
	sed 's/,//g' |
	awk -v n="$n" '{s += $1; f[NR] = sprintf("%8.0f  %s", $1 / n, $4)}
		END {printf "%.0f instructions per request\n", s / n; for (i = 1; i <= 15 && i <= NR; i++) print f[i]}'
