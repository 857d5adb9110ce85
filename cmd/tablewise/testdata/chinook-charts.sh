#!/usr/bin/env bash
# Draws one chart of each kind from real Chinook results with
# "tablewise chart", timing each whole command, and checks that a
# non-numeric y exits 2. Exits 1 if a chart takes 1 s or more.
# Usage: bash cmd/tablewise/testdata/chinook-charts.sh [OUTDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
chinook=${CHINOOK:-$root/../shared/data/chinook.sqlite}
[ -f "$chinook" ] || { echo "skipping: $chinook not found"; exit 0; }
out=${1:-$(mktemp -d)}
mkdir -p "$out"
bin=$(mktemp -d)/tablewise
(cd "$root" && go build -o "$bin" ./cmd/tablewise)
slow=0
chart() { # name sql [flags…]
  local name=$1 sql=$2; shift 2
  local start end ms
  start=$(date +%s%N)
  "$bin" chart --db "$chinook" --sql "$sql" --out "$out/$name.png" "$@" 2>/dev/null
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  printf '%-10s %5d ms  %s\n' "$name" "$ms" "$out/$name.png"
  (( ms < 1000 )) || slow=1
}
chart bar "SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g USING (GenreId) GROUP BY 1 ORDER BY 2 DESC" --kind bar --x genre --y tracks --title "Tracks per genre"
chart line "SELECT strftime('%Y-%m', InvoiceDate) AS month, round(sum(Total), 2) AS revenue FROM Invoice GROUP BY 1" --kind line --x month --y revenue --title "Monthly revenue"
chart scatter "SELECT Milliseconds / 60000.0 AS minutes, Bytes / 1048576.0 AS megabytes FROM Track" --kind scatter --x minutes --y megabytes --title "Track length and size"
chart pie "SELECT m.Name AS media_type, count(*) AS tracks FROM Track t JOIN MediaType m USING (MediaTypeId) GROUP BY 1" --kind pie --x media_type --y tracks --title "Tracks by media type"
chart hbar "SELECT ar.Name AS artist, count(*) AS albums FROM Album al JOIN Artist ar USING (ArtistId) GROUP BY 1 ORDER BY 2 DESC LIMIT 15" --kind hbar --x artist --y albums
chart histogram "SELECT Milliseconds / 1000.0 AS seconds FROM Track WHERE Milliseconds < 900000" --kind histogram --x seconds --title "Track lengths"
set +e
"$bin" chart --db "$chinook" --sql "SELECT Name, Milliseconds FROM Track" --kind bar --x Milliseconds --y Name --out "$out/bad.png" 2>"$out/bad.err"
code=$?
set -e
echo "non-numeric y: exit $code — $(cat "$out/bad.err")"
[ "$code" = 2 ] || exit 1
exit $slow
