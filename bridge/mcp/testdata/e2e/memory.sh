#!/usr/bin/env bash
# Peak memory of `tablewise mcp --http` under concurrent big results: builds
# tablewise (unless TABLEWISE_BIN names a binary) and the memprobe client,
# then starts the server with a bearer token and has CLIENTS authenticated
# clients call run_sql together, each result 8.2 MB (1,000 rows × 8 KiB).
# Prints the server's peak resident set (VmHWM from /proc) and how the
# calls went; exits 1 if the peak is over LIMIT MiB or a call failed.
#
# Usage: bridge/mcp/testdata/e2e/memory.sh [CLIENTS [CALLS [LIMIT]]]   (40 1 512)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
clients=${1:-40} calls=${2:-1} limit=${3:-512}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${TABLEWISE_BIN:-}
if [[ -z $bin ]]; then
	(cd "$root" && go build -o "$tmp/tablewise" ./cmd/tablewise)
	bin=$tmp/tablewise
fi
(cd "$root" && go build -o "$tmp/memprobe" ./bridge/mcp/internal/memprobe)
"$tmp/memprobe" -bin "$bin" -clients "$clients" -calls "$calls" -limit-mib "$limit" 2> >(grep -v 'msg=mcp.tool' >&2)
