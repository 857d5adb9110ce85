#!/usr/bin/env bash
# The scale figures (README "How it scales"): tablewise on a schema of
# 2,000 tables × 20 columns × 3 rows and on a shop of 5,000,000 orders of
# 200,000 customers, both written by data/scaledb/cmd/scaledb.
#
# Usage: data/testdata/scale.sh [--bin PATH] [--dir DIR] [--no-orders] [--no-go]
#
#   --bin PATH   measure this tablewise binary (default: build this checkout);
#                a build of an older commit gives the "before" figures
#   --dir DIR    where the generated databases are kept and reused
#                (default /tmp/tablewise-scale; the orders database takes
#                about 430 MB and a minute or more to write)
#   --no-orders  only the 2,000-table schema
#   --no-go      skip the figures measured by Go tests (model request sizes)
#
# Every figure is measured here, in this run, on this machine: elapsed
# seconds and peak RSS from GNU time, sizes in bytes as sent. The state
# directory (the planner's kept value indexes) is a fresh temporary one.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="" dir=/tmp/tablewise-scale orders=1 gotests=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--bin) bin=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--no-orders) orders=0; shift ;;
	--no-go) gotests=0; shift ;;
	*)
		echo "usage: $0 [--bin PATH] [--dir DIR] [--no-orders] [--no-go]" >&2
		exit 2
		;;
	esac
done
command -v python3 >/dev/null || { echo "scale.sh needs python3 (to read JSON)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "scale.sh needs GNU time at /usr/bin/time" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state NO_COLOR=1
mkdir -p "$dir"
if [[ -z $bin ]]; then
	echo "building tablewise" >&2
	(cd "$root" && go build -o "$tmp/tablewise" ./cmd/tablewise)
	bin=$tmp/tablewise
fi
gen() { # kind file args...
	local kind=$1 file=$2
	shift 2
	if [[ ! -s $file ]]; then
		echo "writing $file" >&2
		(cd "$root" && go run ./data/scaledb/cmd/scaledb -kind "$kind" -out "$file" "$@") >&2
	fi
}
wide=$dir/wide.db
gen wide "$wide"

# timed OUT CMD...: runs CMD with its stdout in OUT; sets secs (elapsed),
# cpu (user + system seconds: on a busy machine elapsed time is mostly
# waiting for a CPU) and rss_mb (peak).
timed() {
	local out=$1
	shift
	/usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$@" >"$out" 2>"$tmp/stderr" || true
	local user sys rss
	read -r secs user sys rss < <(tail -1 "$tmp/time")
	cpu=$(python3 -c "print(round($user + $sys, 2))")
	rss_mb=$((rss / 1024))
}
# json FILE EXPR: EXPR of the JSON in FILE, e.g. json a.json "['status']".
json() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(eval("v" + sys.argv[2]))' "$1" "$2"; }

# mcp_call FILE DB NAME ARGS: one tools/call over stdio; the response line
# in FILE.
mcp_call() {
	local out=$1 db=$2 name=$3 args=$4
	rm -f "$out" "$out.all" # a previous answer must not end this call's wait
	{
		printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scale","version":"1"}}}' \
			'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
			"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$name\",\"arguments\":$args}}"
		# Keep stdin open until the answer is out (at most 20 s).
		for _ in $(seq 200); do
			grep -q '"id":2' "$out.all" 2>/dev/null && break
			sleep 0.1
		done
	} | timeout 30 "$bin" mcp --db "$db" >"$out.all" 2>/dev/null || true
	grep '"id":2' "$out.all" >"$out" || true
}

echo "== 2,000 tables × 20 columns × 3 rows ($wide, $(du -h "$wide" | cut -f1))"
timed "$tmp/summary" "$bin" --db "$wide"
echo "startup, piped summary (tablewise --db wide.db): $secs s ($cpu s CPU), peak RSS $rss_mb MB"

mcp_call "$tmp/list" "$wide" list_tables '{}'
echo "MCP list_tables, default result: $(wc -c <"$tmp/list") bytes"
total=$(python3 - "$tmp/list" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["result"]
s = r.get("structuredContent") or {}
print(s.get("total", len(s.get("tables", []))), len(s.get("tables", [])), s.get("next_offset", 0))
PY
)
read -r ntotal npage next <<<"$total"
echo "  it lists $npage of $ntotal tables; next_offset $next"
if [[ $next != 0 ]]; then
	seen=$npage pages=1 maxpage=$(wc -c <"$tmp/list")
	while [[ $next != 0 && $pages -lt 200 ]]; do
		mcp_call "$tmp/page" "$wide" list_tables "{\"offset\":$next}"
		read -r _ npage next < <(python3 - "$tmp/page" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["result"].get("structuredContent") or {}
print(s.get("total", 0), len(s.get("tables", [])), s.get("next_offset", 0))
PY
)
		seen=$((seen + npage)) pages=$((pages + 1))
		size=$(wc -c <"$tmp/page")
		((size > maxpage)) && maxpage=$size
	done
	echo "  paging by next_offset: $pages pages reach $seen tables, the largest page $maxpage bytes"
fi

for q in "how many rows are in billing_invoices" "how many crm_contacts are there"; do
	for run in first second; do
		timed "$tmp/ask.json" "$bin" ask --provider offline --format json --db "$wide" "$q"
		printf 'offline planner, %s run, "%s": %s s (%s s CPU), peak RSS %s MB, status %s\n' "$run" "$q" "$secs" "$cpu" "$rss_mb" \
			"$(json "$tmp/ask.json" "['status']" 2>/dev/null || echo '?')"
	done
done

if [[ $gotests == 1 ]]; then
	echo "model requests of one question (scripted model server; list_tables, search_schema, describe_table, 2×run_sql, describe_table):"
	(cd "$root" && go test -count=1 -run 'TestRequestsDoNotGrowWithTheSchema' -v ./core/agent/) >"$tmp/agent.out" 2>&1 || true
	grep -o '[a-z]* request [0-9]*: [0-9]* bytes' "$tmp/agent.out" | awk '{split($0,a,": "); n=a[2]+0; if (n>max[$1]) max[$1]=n; all[$1]=all[$1] " " n} END {for (p in max) printf "  %s: largest %d bytes; all:%s\n", p, max[p], all[p]}'
	grep -q '^--- FAIL' "$tmp/agent.out" && echo "  FAIL: see go test -run TestRequestsDoNotGrowWithTheSchema -v ./core/agent/"
fi

[[ $orders == 1 ]] || exit 0
big=$dir/orders.db
gen orders "$big"
echo
echo "== 5,000,000 orders of 200,000 customers ($big, $(du -h "$big" | cut -f1))"
germany="total amount of shipped orders from Germany in 2023"
hand="SELECT round(SUM(o.amount), 2) FROM orders o JOIN customers c USING (customer_id) WHERE c.country = 'Germany' AND o.status = 'shipped' AND o.order_date >= '2023-01-01' AND o.order_date < '2024-01-01'"
timed "$tmp/hand.csv" "$bin" sql --db "$big" --timeout 120s --format csv "$hand"
want=$(tail -1 "$tmp/hand.csv" | tr -d '\r')
echo "the Germany/shipped/2023 total by hand-written SQL: $want ($secs s, $cpu s CPU)"
planner_ms=()
for run in first 2nd 3rd 4th 5th 6th; do
	timed "$tmp/ask.json" "$bin" ask --provider offline --format json --db "$big" "$germany"
	got=$(json "$tmp/ask.json" "['rows'][0][0]" 2>/dev/null || echo none)
	tot=$(json "$tmp/ask.json" "['timings']['total_ms']" 2>/dev/null || echo 0)
	sqlms=$(json "$tmp/ask.json" "['timings'].get('sql_ms', 0)" 2>/dev/null || echo 0)
	verdict=$(python3 -c "print('correct' if '$got' not in ('none','') and abs(float('$got') - float('$want' or 'nan')) < 0.01 else 'WRONG')" 2>/dev/null || echo WRONG)
	printf 'offline planner, %s run, "%s": %s (%s); %s s (%s s CPU), peak RSS %s MB; answer %s ms of which its query %s ms: planner %s ms\n' \
		"$run" "$germany" "$got" "$verdict" "$secs" "$cpu" "$rss_mb" "$tot" "$sqlms" $((tot - sqlms))
	[[ $run == first ]] || planner_ms+=($((tot - sqlms)))
done
echo "  runs after the first: planner (answer less its query) $(printf '%s\n' "${planner_ms[@]}" | sort -n | awk '{a[NR]=$1} END {printf "min %d ms, median %d ms, max %d ms", a[1], a[int((NR+1)/2)], a[NR]}')"
q="how many orders per status"
timed "$tmp/ask.json" "$bin" ask --provider offline --format json --db "$big" "$q"
tot=$(json "$tmp/ask.json" "['timings']['total_ms']" 2>/dev/null || echo 0)
sqlms=$(json "$tmp/ask.json" "['timings'].get('sql_ms', 0)" 2>/dev/null || echo 0)
printf 'offline planner, "%s": %s s (%s s CPU), peak RSS %s MB; answer %s ms of which its query %s ms (status %s)\n' "$q" "$secs" "$cpu" "$rss_mb" "$tot" "$sqlms" \
	"$(json "$tmp/ask.json" "['status']" 2>/dev/null || echo '?')"
ls "$XDG_STATE_HOME/tablewise/offline" >/dev/null 2>&1 && echo "kept value index: $(du -ch "$XDG_STATE_HOME"/tablewise/offline/* | tail -1 | cut -f1) in the state directory"
echo
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" version 2>/dev/null | head -1 || true)"
