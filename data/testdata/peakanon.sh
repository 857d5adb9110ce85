#!/usr/bin/env bash
# Runs a command (its output to /dev/null) and prints the most anonymous
# memory it held, in KiB: RssAnon in /proc/PID/status, read every 10 ms.
# That is the memory the process itself allocated (heap, stacks, buffers);
# its peak RSS adds the pages of its executable mapped from the page cache,
# clean and shared, whose count depends on how the kernel cached the file.
# Usage: bash data/testdata/peakanon.sh COMMAND [ARGS...]
set -uo pipefail
"$@" >/dev/null &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  kb=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [ -n "${kb:-}" ] && [ "$kb" -gt "$peak" ] && peak=$kb
  sleep 0.01
done
wait "$pid"
echo "$peak"
