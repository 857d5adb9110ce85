#!/usr/bin/env bash
# SQLite's deadline and memory bounds against statements that spend long in
# one instruction or grow large, through the built binary: for each, the
# exit code, the wall time and the peak RSS (README, "SQLite": the sort
# that is one instruction, the heap limit of data files' statements).
#   - ORDER BY over 6,000,000 integers, and a window over them, with
#     --timeout 1s, through sql, export and explain --analyze;
#   - json_group_array of 1 KB values up to the 256 MiB heap limit;
#   - on a three-row CSV (data-file mode), SELECT DISTINCT over 3,000
#     values of 1 MB, which the load's 4 GiB limit used to let through.
# Usage: bash cmd/tablewise/testdata/sqlite-bounds.sh   (TABLEWISE_BIN=path
# measures that binary instead of building this tree: an earlier build, say)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_sqlite3
need_gnu_time

bin=${TABLEWISE_BIN:-$work/tablewise}
[ -n "${TABLEWISE_BIN:-}" ] || (cd "$root" && go build -o "$bin" ./cmd/tablewise)
sqlite3 "$work/big.db" "CREATE TABLE big(a INTEGER PRIMARY KEY, b INTEGER);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 6000000)
INSERT INTO big SELECT x, (x * 7919) % 6000011 FROM c;"
printf 'id,name\n1,a\n2,b\n3,c\n' >"$work/tiny.csv"

# run LABEL ARGS...: prints the label, exit code, seconds and peak RSS.
run() {
  local label=$1 code=0
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" "$@" >/dev/null 2>"$work/err" || code=$?
  read -r s k < <(tail -n 1 "$work/time")
  printf '%-52s exit %d  %6.2f s  peak RSS %5.0f MB\n' "$label" "$code" "$s" "$(awk -v k="$k" 'BEGIN {print k/1024}')"
}

sort="SELECT b FROM big ORDER BY b"
window="SELECT a, sum(b) OVER (ORDER BY b) FROM big"
run "sql --timeout 1s: ORDER BY, 6,000,000 rows" sql --db "$work/big.db" --timeout 1s "$sort"
run "export --timeout 1s: ORDER BY, 6,000,000 rows" export --db "$work/big.db" --timeout 1s --sql "$sort" --out "$work/out.csv"
run "explain --analyze --timeout 1s: ORDER BY" explain --db "$work/big.db" --timeout 1s --analyze "$sort"
run "sql --timeout 1s: window over 6,000,000 rows" sql --db "$work/big.db" --timeout 1s "$window"
run "sql --timeout 60s: json_group_array to the limit" sql --db "$work/big.db" --timeout 60s \
  "SELECT length(json_group_array(printf('%.1000c', 'x'))) FROM big"
run "tiny.csv --timeout 60s: DISTINCT of 3,000 x 1 MB" sql --db "$work/tiny.csv" --timeout 60s \
  "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r LIMIT 3000) SELECT count(*) FROM (SELECT DISTINCT printf('%.*c', 1000000, 'x') || i FROM r)"
