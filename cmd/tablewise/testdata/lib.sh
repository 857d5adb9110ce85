# Shared by advise-speed.sh, compare-export.sh and wide-table.sh; source it
# after `set -euo pipefail`. Sets root (the module's top folder) and work
# (a scratch folder, removed on exit).

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# need_sqlite3: exits 2, saying how to install it, without the sqlite3
# command-line tool.
need_sqlite3() {
  command -v sqlite3 >/dev/null || { echo "needs the sqlite3 command-line tool (apt-get install sqlite3)"; exit 2; }
}

# need_gnu_time: exits 2, saying how to install it, without GNU time at
# /usr/bin/time.
need_gnu_time() {
  [ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)"; exit 2; }
}

# median NUMBER...: the middle one (of an even count, the lower middle).
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
