#!/usr/bin/env bash
# tablewise advise on the slow statements of core/advise/testdata/
# slow-queries.sql, each timed on a copy of the built-in sample whose
# tables hold at least 1,000,000 rows: before, and after creating the
# index tablewise suggests (on another copy: tablewise itself never creates
# it). Prints, per statement, the suggestion and the median time of RUNS
# runs before and after, and exits 1 if any is less than 10x faster.
# Usage: bash cmd/tablewise/testdata/advise-speed.sh [RUNS]
set -euo pipefail
runs=${1:-3}
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_sqlite3
command -v python3 >/dev/null || { echo "needs python3 (to read tablewise's JSON)"; exit 2; }

(cd "$root" && go build -o "$work/tablewise" ./cmd/tablewise)
# doctor names the built-in sample's file: "database: sample (PATH)".
sample=$("$work/tablewise" doctor | sed -n 's/^database: sample (\(.*\))$/\1/p')
[ -f "$sample" ] || { echo "could not find the built-in sample database file"; exit 2; }
cp "$sample" "$work/big.db"

# Double each table the statements read, with new keys (and unique text
# made unique again), until it holds at least 1,000,000 rows.
for t in orders order_items payments shipments reviews customers products; do
  pk=$(sqlite3 "$work/big.db" "SELECT name FROM pragma_table_info('$t') WHERE pk = 1")
  uniq=$(sqlite3 "$work/big.db" "SELECT DISTINCT ii.name FROM pragma_index_list('$t') il, pragma_index_info(il.name) ii WHERE il.\"unique\" AND il.origin != 'pk'")
  while [ "$(sqlite3 "$work/big.db" "SELECT count(*) FROM $t")" -lt 1000000 ]; do
    fix=""
    for c in $uniq; do fix="$fix UPDATE x SET $c = $c || '~' || $pk;"; done
    sqlite3 "$work/big.db" "CREATE TEMP TABLE x AS SELECT * FROM $t; UPDATE x SET $pk = $pk + (SELECT max($pk) FROM $t); $fix INSERT INTO $t SELECT * FROM x;"
  done
  echo "$t: $(sqlite3 "$work/big.db" "SELECT count(*) FROM $t") rows"
done
sqlite3 "$work/big.db" "VACUUM"

timeit() { # DB SQL: seconds of one run, from sqlite3's own timer
  printf '.timer on\n%s;\n' "$2" | sqlite3 "$1" | awk '/^Run Time/ {print $4}' | tail -1
}
fail=0
n=0
while IFS= read -r q; do
  case "$q" in ''|--*) continue ;; esac
  q=${q%;}
  n=$((n + 1))
  create=$("$work/tablewise" advise --db "$work/big.db" --format json --sql "$q" | python3 -c 'import json,sys; s=json.load(sys.stdin)["suggestions"]; print(s[0]["create"] if s else "")')
  if [ -z "$create" ]; then
    echo "$n. $q"; echo "   no suggestion"; fail=1; continue
  fi
  cp "$work/big.db" "$work/idx.db"
  sqlite3 "$work/idx.db" "$create"
  before=(); after=()
  for i in $(seq "$runs"); do
    before+=("$(timeit "$work/big.db" "$q")")
    after+=("$(timeit "$work/idx.db" "$q")")
  done
  b=$(median "${before[@]}"); a=$(median "${after[@]}")
  ratio=$(awk -v b="$b" -v a="$a" 'BEGIN { if (a < 0.0005) a = 0.0005; printf "%.0f", b/a }')
  echo "$n. $q"
  echo "   $create"
  echo "   before ${b}s, after ${a}s: ${ratio}x faster (median of $runs; after floored at 0.5 ms)"
  if [ "$ratio" -lt 10 ]; then fail=1; fi
done <"$root/core/advise/testdata/slow-queries.sql"
[ "$fail" = 0 ] && echo "every suggestion made its statement at least 10x faster" || { echo "FAIL: a statement got no suggestion or was less than 10x faster"; exit 1; }
