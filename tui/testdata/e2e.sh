#!/usr/bin/env bash
# End-to-end check of the explorer in a real terminal (tmux): build the
# binary, open it at 100x30 on the built-in sample database, type a query,
# capture the pane and check what a user would see (the welcome's example,
# a refusal, the cell view, column widths after G, sorting, filtering, the
# row view, .tables, the multi-line editor); then quit with ctrl+c and
# check the exit status and that history and log went to the state
# directory.
#
#   tui/testdata/e2e.sh                       # builds ./cmd/tablewise
#   TABLEWISE_E2E_PKG=./tui/internal/tuidemo tui/testdata/e2e.sh
#   TABLEWISE_E2E_OUT=/tmp/screens tui/testdata/e2e.sh   # keep the captures
#
# Exit status: 0 ok, 1 a check failed, 3 the binary did not open the
# explorer (it printed something else), 4 tmux is missing.
set -euo pipefail

command -v tmux >/dev/null || { echo "e2e: tmux is not installed"; exit 4; }

root=$(cd "$(dirname "$0")/../.." && pwd)
pkg=${TABLEWISE_E2E_PKG:-./cmd/tablewise}
work=$(mktemp -d)
out=${TABLEWISE_E2E_OUT:-$work/screens}
mkdir -p "$out"
session="tablewise-e2e-$$"
# A tmux server of our own (its own socket), so the script never touches
# anyone else's sessions.
sock="tablewise-e2e-$$"
tmux() { command tmux -L "$sock" "$@"; }
cleanup() {
	tmux kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

(cd "$root" && go build -o "$work/tablewise" "$pkg")

state="$work/state"
mkdir -p "$state"
# The program's exit status lands in a file; the pane stays open after it.
tmux new-session -d -s "$session" -x 100 -y 30 \
	"env TERM=xterm-256color XDG_STATE_HOME='$state' '$work/tablewise'; echo \$? > '$work/exit'; sleep 600"

capture() { tmux capture-pane -t "$session" -p > "$out/$1.txt"; }

# wait_for NAME TEXT: capture until the pane shows TEXT (5 s).
wait_for() {
	for _ in $(seq 1 100); do
		capture "$1"
		if grep -qF -- "$2" "$out/$1.txt"; then return 0; fi
		if [ -s "$work/exit" ]; then break; fi
		sleep 0.05
	done
	echo "e2e: waiting for \"$2\"; the pane shows:"
	cat "$out/$1.txt"
	return 1
}

fail() { echo "e2e: $*"; echo "--- pane:"; cat "$out/$current.txt"; exit 1; }

current=first
if ! wait_for first "─ Schema ─"; then
	if [ -s "$work/exit" ]; then
		echo "e2e: $pkg exited without opening the explorer (is runDefault wired to runTUI?)"
		exit 3
	fi
	exit 1
fi
wait_for first "order_items" || exit 1
grep -qF "Type SQL or a question" "$out/first.txt" || fail "no welcome text"
# The welcome's example question is one the built-in planner answered
# (shown once found).
for _ in $(seq 1 100); do
	capture first
	grep -F "  question  " "$out/first.txt" | grep -qvF "finding one" && break
	sleep 0.05
done
grep -F "  question  " "$out/first.txt" | grep -qvF "finding one" || fail "the welcome shows no example question"

current=query
tmux send-keys -t "$session" -l "SELECT ship_country, count(*) AS orders FROM orders GROUP BY 1 ORDER BY 2 DESC, 1"
tmux send-keys -t "$session" Enter
wait_for query "24 rows" || exit 1
sleep 0.3 # let the chart draw
capture query
for want in "ship_country" "United States" "2871" "row 1 of 24" "Chart" "orders by ship_country"; do
	grep -qF -- "$want" "$out/query.txt" || fail "the result lacks \"$want\""
done
lines=$(wc -l < "$out/query.txt")
[ "$lines" -eq 30 ] || fail "the pane has $lines lines, want 30"
awk '{ if (length($0) > 100) { print "line " NR " is " length($0) " characters"; bad=1 } } END { exit bad }' "$out/query.txt" ||
	fail "a line is wider than the terminal"

# A refused statement shows its reason in place.
current=refused
tmux send-keys -t "$session" -l "DROP TABLE customers"
tmux send-keys -t "$session" Enter
wait_for refused "refused" || exit 1
grep -qF "hint:" "$out/refused.txt" || fail "the refusal has no hint"

# The results pane takes the keyboard: move down, open the cell view.
current=cell
tmux send-keys -t "$session" Up
sleep 0.1
tmux send-keys -t "$session" Up Enter
wait_for cell "24 rows" || exit 1
tmux send-keys -t "$session" M-3
sleep 0.1
tmux send-keys -t "$session" j Enter
wait_for cell "row 2" || exit 1
grep -qF "Germany" "$out/cell.txt" || fail "the cell view does not show row 2"
tmux send-keys -t "$session" Escape
sleep 0.3 # a lone ESC must not merge with the next key into alt+…

# Column widths follow every row: the last square of 5,000 is whole.
current=widths
tmux send-keys -t "$session" i
tmux send-keys -t "$session" -l "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5000) SELECT x, x*x AS sq FROM c"
tmux send-keys -t "$session" Enter
wait_for widths "5,000 rows" || exit 1
tmux send-keys -t "$session" M-3
sleep 0.1
tmux send-keys -t "$session" G
wait_for widths "row 5,000 of 5,000" || exit 1
grep -qF "5000  25000000" "$out/widths.txt" || fail "the last square is not whole"
grep -qF "250000…" "$out/widths.txt" && fail "a number is cut"

# s sorts by the focused column (twice: descending); / filters with a count.
current=sort
tmux send-keys -t "$session" l s s
wait_for sort "sq ↓" || exit 1
tmux send-keys -t "$session" / 
tmux send-keys -t "$session" -l "4999"
wait_for sort "of 5,000 rows match" || exit 1
tmux send-keys -t "$session" Enter
# v shows the row one field a line.
tmux send-keys -t "$session" v
wait_for sort "←/→ rows" || exit 1
tmux send-keys -t "$session" Escape
sleep 0.3

# sqlite3's .tables lists the tables in the results.
current=dot
tmux send-keys -t "$session" i
tmux send-keys -t "$session" -l ".tables"
tmux send-keys -t "$session" Enter
wait_for dot "· .tables" || exit 1
grep -qF "order_items" "$out/dot.txt" || fail ".tables does not list order_items"

# ctrl+o opens the multi-line editor; alt+enter runs what it holds.
current=editor
tmux send-keys -t "$session" M-2
tmux send-keys -t "$session" C-o
tmux send-keys -t "$session" -l "SELECT name"
tmux send-keys -t "$session" Enter
tmux send-keys -t "$session" -l "FROM categories"
tmux send-keys -t "$session" M-Enter
wait_for editor "11 rows" || exit 1
grep -qF " 2 FROM categories" "$out/editor.txt" || fail "the editor does not show its second line"
tmux send-keys -t "$session" C-o

# ctrl+c quits and restores the terminal.
current=quit
capture quit
tmux send-keys -t "$session" C-c
for _ in $(seq 1 100); do
	[ -s "$work/exit" ] && break
	sleep 0.05
done
[ -s "$work/exit" ] || fail "ctrl+c did not quit"
status=$(cat "$work/exit")
[ "$status" = 0 ] || fail "exit status $status"
capture quit
grep -qF "order_items" "$out/quit.txt" && fail "the explorer's screen is still shown after quitting (alternate screen not left)"

hist="$state/tablewise/history"
[ -f "$hist" ] || fail "no history file at $hist"
grep -qF '"SELECT ship_country' "$hist" || fail "the query is not in the history"
[ -s "$state/tablewise/tui.log" ] || fail "no log at $state/tablewise/tui.log"

echo "e2e: ok ($pkg)"
echo "--- query screen:"
cat "$out/query.txt"
