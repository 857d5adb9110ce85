#!/usr/bin/env bash
# Side-by-side: export 1,000,000 rows (6 columns) to CSV with tablewise and
# with the sqlite3 command-line tool, on the same file, in one run.
# Prints the median wall time of each over RUNS runs, the ratio, and peak
# memory (peak RSS, and the anonymous memory tablewise held at most); exits 1
# if tablewise takes more than 1.15x sqlite3's time or a peak RSS over
# 64 MiB. tablewise runs as installed, from a copy read back from disk
# (data/testdata/build-installed.sh says why).
# Usage: bash cmd/tablewise/testdata/compare-export.sh [RUNS]
set -euo pipefail
runs=${1:-5}
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
need_sqlite3
need_gnu_time

bash "$root/data/testdata/build-installed.sh" "$work/tablewise"
sqlite3 "$work/big.db" "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, day TEXT, note TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000)
INSERT INTO t SELECT x, 'item-'||(x%9973), (x%1000)/7.0, x%17, date('2022-01-01', '+'||(x%1000)||' days'),
  CASE WHEN x%10=0 THEN NULL WHEN x%7=0 THEN 'say \"hi\", ok' ELSE 'plain note '||x END FROM c;"
q="SELECT * FROM t"
measure() { # prints "seconds maxKB"
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out.csv"
  cat "$work/time"
}
declare -a ours theirs
ours_mem=0
for i in $(seq "$runs"); do
  read -r s m < <(measure sqlite3 -csv "$work/big.db" "$q"); theirs+=("$s")
  lines_theirs=$(wc -l <"$work/out.csv")
  read -r s m < <(measure "$work/tablewise" export --db "$work/big.db" --sql "$q" --out - --format csv); ours+=("$s")
  lines_ours=$(wc -l <"$work/out.csv")
  (( m > ours_mem )) && ours_mem=$m
done
t_ours=$(median "${ours[@]}"); t_theirs=$(median "${theirs[@]}")
ratio=$(awk -v a="$t_ours" -v b="$t_theirs" 'BEGIN {printf "%.2f", a/b}')
mem_mib=$(awk -v k="$ours_mem" 'BEGIN {printf "%.1f", k/1024}')
echo "rows: sqlite3 wrote $lines_theirs lines, tablewise $lines_ours (with a header)"
echo "sqlite3 -csv:      median ${t_theirs}s over $runs runs (${theirs[*]})"
echo "tablewise export:  median ${t_ours}s over $runs runs (${ours[*]})"
anon=$(bash "$root/data/testdata/peakanon.sh" "$work/tablewise" export --db "$work/big.db" --sql "$q" --out - --format csv)
echo "ratio: ${ratio}x (target <= 1.15x); tablewise peak memory: ${mem_mib} MiB (target <= 64 MiB), of which its own (anonymous) memory at most $(awk -v k="$anon" 'BEGIN {printf "%.1f", k/1024}') MiB"
awk -v r="$ratio" -v m="$mem_mib" 'BEGIN {exit !(r <= 1.15 && m <= 64)}'
