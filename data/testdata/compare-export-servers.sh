#!/usr/bin/env bash
# Side-by-side: export 1,000,000 rows × 5 columns to CSV with tablewise and
# with each server's own client, on the same table of the same server, in
# one run, the two run alternately:
#   PostgreSQL: psql -c "\copy (SELECT * FROM t) TO STDOUT WITH CSV HEADER"
#   MariaDB/MySQL: mysql -B -e "SELECT * FROM t"
# Prints the median wall time of each over RUNS runs, the ratio, and
# tablewise's peak RSS (GNU time) and the anonymous memory it held at most
# (data/testdata/peakanon.sh); exits 1 if tablewise takes more than 1.0x the
# client's time or a peak RSS over 64 MiB. tablewise runs as installed: a
# copy of the build read back from disk (data/testdata/build-installed.sh).
# A server that does not answer, or a tablewise that does not open its
# URLs, is reported and skipped.
#
# Usage: bash data/testdata/compare-export-servers.sh [RUNS]
# Servers: PG_URL (default postgres://postgres@127.0.0.1:5432) and MY_HOST,
# MY_PORT, MY_USER (127.0.0.1, 3306, root, no password). Each gets a
# database of its own, dropped at the end.
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
name=tw_export_cmp_$$
pg=${PG_URL:-postgres://postgres@127.0.0.1:5432}
my_host=${MY_HOST:-127.0.0.1} my_port=${MY_PORT:-3306} my_user=${MY_USER:-root}
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)"; exit 2; }
pg_ok=0 my_ok=0
cleanup() {
  [ $pg_ok = 1 ] && psql -X -q "$pg/postgres" -c "DROP DATABASE IF EXISTS $name" >/dev/null 2>&1 || true
  [ $my_ok = 1 ] && mysql -h "$my_host" -P "$my_port" -u "$my_user" -e "DROP DATABASE IF EXISTS $name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
bash "$root/data/testdata/build-installed.sh" "$work/tablewise"

measure() { # runs a command, stdout to out.csv; prints "seconds maxKB"
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out.csv"
  cat "$work/time"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
status=0
# compare LABEL CLIENT_LABEL URL CLIENT_CMD...: alternates the client and
# tablewise export of SELECT * FROM t.
compare() {
  local label=$1 client=$2 url=$3; shift 3
  local -a ours=() theirs=()
  local mem=0 s m lines_theirs lines_ours
  for _ in $(seq "$runs"); do
    read -r s m < <(measure "$@"); theirs+=("$s")
    lines_theirs=$(wc -l <"$work/out.csv")
    read -r s m < <(measure "$work/tablewise" export --db "$url" --sql "SELECT * FROM t" --out - --format csv); ours+=("$s")
    lines_ours=$(wc -l <"$work/out.csv")
    (( m > mem )) && mem=$m
  done
  local t_ours t_theirs ratio mem_mib
  t_ours=$(median "${ours[@]}"); t_theirs=$(median "${theirs[@]}")
  ratio=$(awk -v a="$t_ours" -v b="$t_theirs" 'BEGIN {printf "%.2f", a/b}')
  mem_mib=$(awk -v k="$mem" 'BEGIN {printf "%.1f", k/1024}')
  echo "== $label: 1,000,000 rows x 5 columns"
  echo "rows: $client wrote $lines_theirs lines, tablewise $lines_ours (each with a header)"
  printf '%-18s median %ss over %s runs (%s)\n' "$client:" "$t_theirs" "$runs" "${theirs[*]}"
  printf '%-18s median %ss over %s runs (%s)\n' "tablewise export:" "$t_ours" "$runs" "${ours[*]}"
  anon=$(bash "$root/data/testdata/peakanon.sh" "$work/tablewise" export --db "$url" --sql "SELECT * FROM t" --out - --format csv)
  echo "ratio: ${ratio}x (target <= 1.0x); tablewise peak RSS: ${mem_mib} MiB (target <= 64 MiB), of which its own (anonymous) memory at most $(awk -v k="$anon" 'BEGIN {printf "%.1f", k/1024}') MiB"
  awk -v r="$ratio" -v m="$mem_mib" 'BEGIN {exit !(r <= 1.0 && m <= 64)}' || status=1
}

if psql -X -q "$pg/postgres" -c "CREATE DATABASE $name" >/dev/null 2>&1; then
  pg_ok=1
  psql -X -q "$pg/$name" >/dev/null <<'SQL'
CREATE TABLE t (id bigint PRIMARY KEY, name text, price double precision, day date, note text);
INSERT INTO t SELECT x, 'item-' || (x % 9973), (x % 1000) / 7.0, date '2022-01-01' + (x % 1000),
  CASE WHEN x % 10 = 0 THEN NULL WHEN x % 7 = 0 THEN 'say "hi", ok' ELSE 'plain note ' || x END
FROM generate_series(1, 1000000) x;
VACUUM ANALYZE t;
SQL
  url="$pg/$name?sslmode=disable"
  if "$work/tablewise" sql --db "$url" "SELECT 1" >/dev/null 2>"$work/err"; then
    compare "PostgreSQL $(psql -X -At "$pg/$name" -c 'SHOW server_version')" "psql \\copy" "$url" \
      psql -X -q "$pg/$name" -c "\\copy (SELECT * FROM t) TO STDOUT WITH CSV HEADER"
  else
    echo "== PostgreSQL: skipped, tablewise cannot open $url: $(cat "$work/err")"
  fi
else
  echo "== PostgreSQL: skipped, no server answers at $pg"
fi

if mysql -h "$my_host" -P "$my_port" -u "$my_user" -e "CREATE DATABASE $name" >/dev/null 2>&1; then
  my_ok=1
  mysql -h "$my_host" -P "$my_port" -u "$my_user" "$name" <<'SQL'
CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT, price DOUBLE, day DATE, note TEXT);
CREATE TEMPORARY TABLE d (x INT);
INSERT INTO d VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
INSERT INTO t SELECT x, CONCAT('item-', x % 9973), (x % 1000) / 7.0, DATE_ADD('2022-01-01', INTERVAL x % 1000 DAY),
  CASE WHEN x % 10 = 0 THEN NULL WHEN x % 7 = 0 THEN 'say "hi", ok' ELSE CONCAT('plain note ', x) END
FROM (SELECT 1 + a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x + 100000 * g.x AS x
  FROM d a, d b, d c, d e, d f, d g) n;
SQL
  url="mysql://$my_user@$my_host:$my_port/$name"
  if "$work/tablewise" sql --db "$url" "SELECT 1" >/dev/null 2>"$work/err"; then
    compare "MariaDB/MySQL $(mysql -h "$my_host" -P "$my_port" -u "$my_user" -N -e 'SELECT VERSION()')" "mysql -B" "$url" \
      mysql -h "$my_host" -P "$my_port" -u "$my_user" -B -e "SELECT * FROM t" "$name"
  else
    echo "== MariaDB/MySQL: skipped, tablewise cannot open $url: $(cat "$work/err")"
  fi
else
  echo "== MariaDB/MySQL: skipped, no server answers at $my_host:$my_port"
fi
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
