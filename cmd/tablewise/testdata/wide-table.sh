#!/usr/bin/env bash
# Side by side: `tablewise sql --format table` against CSV and JSON on a
# wide result (2,000 text columns × 1,000 rows, about 40 MB), in one run.
# Prints wall time, peak memory (GNU time's max RSS), exit code and output
# size of each, with the statement deadline at 1 s as in a hurried session.
# Usage: bash cmd/tablewise/testdata/wide-table.sh  (TABLEWISE_BIN=path uses
# that binary instead of building one)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_sqlite3
need_gnu_time

bin=${TABLEWISE_BIN:-}
if [[ -z $bin ]]; then
  (cd "$root" && go build -o "$work/tablewise" ./cmd/tablewise)
  bin=$work/tablewise
fi
cols=$(seq -s, -f 'c%g TEXT' 1 2000)
vals=$(seq -s, -f "'value '||x||'-%g'" 1 2000)
sqlite3 "$work/wide.db" "CREATE TABLE wide($cols);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000) INSERT INTO wide SELECT $vals FROM c;"

run() { # label args...
  local label=$1 rc=0
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" sql --db "$work/wide.db" "$@" "SELECT * FROM wide" >"$work/out" 2>"$work/err" || rc=$?
  read -r s kb < <(tail -1 "$work/time")
  printf '%-34s %6.2f s  %6.1f MiB  exit %d  %9d bytes out\n' "$label" "$s" "$(awk -v k="$kb" 'BEGIN {print k/1024}')" "$rc" "$(wc -c <"$work/out")"
  if [[ $rc -ne 0 ]]; then sed 's/^/    /' "$work/err" | head -3; fi
}
echo "2,000 text columns × 1,000 rows, $(du -m "$work/wide.db" | cut -f1) MB file"
run "--format table --timeout 1s" --format table --timeout 1s
run "--format table --max-rows 0" --format table --max-rows 0
run "--format csv --timeout 1s" --format csv --timeout 1s
run "--format json --timeout 1s" --format json --timeout 1s
