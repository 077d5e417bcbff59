#!/bin/bash
# cgslot.sh [SET [N M]]: instructions of one inline worker message (what an
# inline slot runs without the NATS round trips: worker's
# TestSlotProbe/slotLoop), counted by callgrind inside slotProbeLoop:
# (count at N messages - count at M) / (N - M). SET is 4KiB (natsbench's
# five shapes at 4 KiB, ten documents) or mix (the harness's mix up to
# 8 KiB) or tiny (one 100-byte tool result: the fixed cost). Load-independent; run it from the repository root. Valgrind runs
# the AVX2 paths (and SHA-256 without SHA-NI). Defaults: 4KiB 21 1.
# Under valgrind the test binary dies of SIGILL at start now and then: a
# count is retried until its run passes.
set -eu
set=${1:-4KiB} n=${2:-21} m=${3:-1}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/w.test" ./worker/
count() {
	for _ in 1 2 3 4 5 6 7 8; do
		if SLOT_PROBE_SET=$set SLOT_PROBE_N=$1 GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
			--callgrind-out-file="$dir/cg.$1" --toggle-collect='*slotProbeLoop' \
			"$dir/w.test" -test.run TestSlotProbe >"$dir/log" 2>&1 && grep -q '^PASS' "$dir/log"; then
			callgrind_annotate "$dir/cg.$1" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
			return
		fi
	done
	echo "cgslot: no passing run in 8 tries" >&2
	exit 1
}
a=$(count "$n")
b=$(count "$m")
echo "$set $(( (a - b) / (n - m) )) instructions a message"
