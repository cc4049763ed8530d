#!/bin/bash
# tls12.sh: CPU per request of new TLS connections against nginx speaking
# TLS 1.2 only (tickets on, nginx's default), without keep-alive, the
# 6-byte file: gb full, gb --tls-resume, ab and h2load (which resumes),
# interleaved. Usage: bench/tls12.sh GB [GB_BASE]  (env N=10000 REPS=3 C=20)
# Prints each run's "CPU-s per 100k responses / req/s" (user+sys, /usr/bin/time).
set -eu
GB=$(realpath "$1"); BASE=${2:+$(realpath "$2")}
N=${N:-10000}; REPS=${REPS:-3}; C=${C:-20}
dir=$(mktemp -d); port=$((20000 + RANDOM % 20000))
mkdir -p "$dir/html" "$dir/tmp"; printf 'hello\n' > "$dir/html/6b.dat"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  server {
    listen 127.0.0.1:$port ssl backlog=4096;
    ssl_protocols TLSv1.2;
    ssl_certificate $dir/cert.pem;
    ssl_certificate_key $dir/key.pem;
    root $dir/html;
  }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" & ngx=$!
trap 'kill $ngx; wait $ngx 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do curl -skf "https://127.0.0.1:$port/6b.dat" >/dev/null && break; sleep 0.1; done
U=https://127.0.0.1:$port/6b.dat
run() {
  /usr/bin/time -f "%U %S %e" -o "$dir/t.out" "$@" >"$dir/last.out" 2>&1 || { echo -n "FAILED "; }
  awk -v n="$N" '{printf "%.2f/%.0f", ($1+$2)*100000/n, n/$3}' "$dir/t.out"
}
for r in $(seq "$REPS"); do
  line="rep $r gb-full $(run "$GB" -q -c "$C" -n "$N" --insecure "$U") gb-resumed $(run "$GB" -q -c "$C" -n "$N" --insecure --tls-resume "$U")"
  if [ -n "$BASE" ]; then
    line="$line base-full $(run "$BASE" -q -c "$C" -n "$N" --insecure "$U") base-resumed $(run "$BASE" -q -c "$C" -n "$N" --insecure --tls-resume "$U")"
  fi
  echo "$line ab $(run ab -q -c "$C" -n "$N" "$U") h2load $(run h2load --h1 -H 'Connection: close' -c "$C" -n "$N" "$U")"
done
