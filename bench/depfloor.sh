#!/bin/bash
# depfloor.sh: what each library gb is built on costs at start, without gb's code.
# For each group of imports it builds (CGO_ENABLED=0) a program that blank-imports
# them and prints a line, then prints the binary's size, the median peak RSS of 5
# runs (/usr/bin/time) and the number of package inits (GODEBUG=inittrace=1).
# A blank import links little more than the packages' inits: a lower bound.
# Run from the repository's root: bash bench/depfloor.sh (about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d ./.depfloor.XXXXXX) # a dot directory: outside ./..., inside the module
trap 'rm -rf "$tmp"' EXIT

gen() { # gen NAME IMPORT...
  local name=$1; shift
  mkdir -p "$tmp/$name"
  {
    printf 'package main\n\nimport (\n\t"fmt"\n'
    for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
    printf ')\n\nfunc main() { fmt.Println("gb version x") }\n'
  } > "$tmp/$name/main.go"
}

named=(net/http crypto/tls github.com/quic-go/quic-go/http3 github.com/prometheus/client_golang/prometheus
  github.com/prometheus/client_golang/prometheus/promhttp github.com/google/pprof/profile
  github.com/yuin/gopher-lua golang.org/x/exp/trace golang.org/x/perf/benchmath golang.org/x/net/http2
  github.com/HdrHistogram/hdrhistogram-go)
gen hello
gen nethttp net/http crypto/tls
gen http3 net/http crypto/tls github.com/quic-go/quic-go/http3
gen prometheus net/http github.com/prometheus/client_golang/prometheus \
  github.com/prometheus/client_golang/prometheus/promhttp github.com/prometheus/client_golang/prometheus/collectors
gen named "${named[@]}"
# every package gb's command imports, minus gb's own, internal and vendored ones
mapfile -t all < <(go list -deps ./cmd/gb | grep -v -E '^(github.com/gb-bench/|vendor/|runtime|unsafe$|C$|main$)' | grep -v -E '(^|/)internal(/|$)')
gen everything "${all[@]}"

printf '| program | binary (bytes) | peak RSS (KiB) | inits |\n|---|---:|---:|---:|\n'
for name in hello nethttp http3 prometheus named everything gb; do
  bin="$tmp/$name.bin"
  if [ "$name" = gb ]; then CGO_ENABLED=0 go build -o "$bin" ./cmd/gb; set -- version
  else CGO_ENABLED=0 go build -o "$bin" "./$tmp/$name"; set --; fi
  rss=$(for _ in 1 2 3 4 5; do /usr/bin/time -f %M "$bin" "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 3p)
  inits=$(GODEBUG=inittrace=1 "$bin" "$@" 2>&1 >/dev/null | grep -c '^init ' || true)
  printf '| %s | %s | %s | %s |\n' "$name" "$(stat -c %s "$bin")" "$rss" "$inits"
done
