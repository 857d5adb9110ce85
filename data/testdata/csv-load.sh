#!/usr/bin/env bash
# Loads a generated CSV file (1 GB by default) with tablewise and prints the
# time, MB/s, rows per second, CPU seconds (user + system) per 100 MB, which
# depends less on what else the machine runs than the wall time, and peak
# memory (GNU time's maximum resident set size). The file is made in
# $TMPDIR (default /tmp) by data/testdata/csvgen, kept there for later
# runs, and never committed.
# The timed command loads the file into memory and reads the highest rowid
# (the row count, at no cost), so the figure is the load's.
# Usage: bash data/testdata/csv-load.sh [SIZE]    (SIZE like 1GB, 200MB)
set -euo pipefail
size=${1:-1GB}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=${TMPDIR:-/tmp}
csv="$tmp/tablewise_orders_$size.csv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)"; exit 2; }

(cd "$root" && go build -o "$work/tablewise" ./cmd/tablewise)
if [ ! -s "$csv" ]; then
  echo "generating $csv ($size)…"
  (cd "$root" && go run ./data/testdata/csvgen -size "$size") >"$csv.part"
  mv "$csv.part" "$csv"
fi
bytes=$(stat -c %s "$csv")
/usr/bin/time -v -o "$work/time" "$work/tablewise" sql --db "$csv" --format csv \
  "SELECT max(rowid) AS n FROM tablewise_orders_$size" >"$work/out" 2>"$work/err" || {
  cat "$work/err" "$work/time"; exit 1; }
rows=$(tail -n 1 "$work/out" | tr -d '\r')
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$work/time")
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")
cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$work/time")
awk -v b="$bytes" -v w="$wall" -v r="$rows" -v m="$rss" -v c="$cpu" -v f="$csv" 'BEGIN {
  printf "file:      %s (%.0f MB, %d rows)\n", f, b/1e6, r
  printf "load:      %.2f s wall, %.2f s CPU (%.2f s per 100 MB)\n", w, c, c/(b/1e8)
  printf "speed:     %.1f MB/s, %.0f rows/s\n", b/1e6/w, r/w
  printf "peak RSS:  %.0f MB\n", m/1024
}'
