#!/usr/bin/env bash
# Builds tablewise into OUT as an installed binary runs: the build is
# copied, written out and dropped from the page cache, so that its runs
# read it back from disk. The file the linker has just written stays cached
# in large folios that the kernel maps whole, which adds 15-20 MiB of the
# binary's clean pages to every run's RSS and runs its code on fewer,
# larger pages; the measurement scripts compare tablewise as users run it.
# Usage: bash data/testdata/build-installed.sh OUT
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$root" && go build -o "$out.build" ./cmd/tablewise)
install -m 755 "$out.build" "$out"
rm -f "$out.build"
sync "$out"
dd if="$out" iflag=nocache count=0 status=none
