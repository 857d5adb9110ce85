#!/usr/bin/env bash
# Many clients at once: `tablewise mcp --http` on 127.0.0.1 with N
# concurrent MCP clients (each its own session) sending run_sql point
# queries; prints errors and latency percentiles (data/scaledb/cmd/mcpload).
#
# Usage: data/testdata/mcp-clients.sh [--bin PATH] [--db FILE] [-c CLIENTS] [-n REQUESTS] [-e EVERY]
#
# Two runs: each client sending one query every EVERY (default 100ms: 500
# queries/s from 50 clients), then back to back (the most the server takes).
#
# --db defaults to the 5,000,000-order database of scale.sh
# (/tmp/tablewise-scale/orders.db, written when missing); loopback only,
# at most 200 clients × 1,000 queries, two minutes at most.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="" db=/tmp/tablewise-scale/orders.db clients=50 n=40 every=100ms
while [[ $# -gt 0 ]]; do
	case $1 in
	--bin) bin=$2; shift 2 ;;
	--db) db=$2; shift 2 ;;
	-c) clients=$2; shift 2 ;;
	-n) n=$2; shift 2 ;;
	-e) every=$2; shift 2 ;;
	*)
		echo "usage: $0 [--bin PATH] [--db FILE] [-c CLIENTS] [-n REQUESTS] [-e EVERY]" >&2
		exit 2
		;;
	esac
done
tmp=$(mktemp -d)
server=""
cleanup() {
	[[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export XDG_STATE_HOME=$tmp/state
if [[ -z $bin ]]; then
	echo "building tablewise" >&2
	(cd "$root" && go build -o "$tmp/tablewise" ./cmd/tablewise)
	bin=$tmp/tablewise
fi
(cd "$root" && go build -o "$tmp/mcpload" ./data/scaledb/cmd/mcpload)
if [[ ! -s $db ]]; then
	mkdir -p "$(dirname "$db")"
	(cd "$root" && go run ./data/scaledb/cmd/scaledb -kind orders -out "$db") >&2
fi
port=$((20000 + RANDOM % 20000))
"$bin" mcp --db "$db" --http "127.0.0.1:$port" 2>"$tmp/server.log" &
server=$!
for _ in $(seq 100); do
	curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
	sleep 0.1
done
status=0
"$tmp/mcpload" -url "http://127.0.0.1:$port/mcp" -clients "$clients" -requests "$n" -every "$every" || status=$?
"$tmp/mcpload" -url "http://127.0.0.1:$port/mcp" -clients "$clients" -requests "$n" || status=$?
rss=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$server/status" 2>/dev/null || echo '?')
echo "server peak RSS: $rss MB"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
