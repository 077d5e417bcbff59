#!/bin/sh
# cgrecords.sh FILE [N M]: instructions of one records.Run (what
# `scan --jsonl --workers 1` runs) over a file of scan records (or
# mix:600:schema and the like, see bench/cgprobe), counted by
# callgrind over the whole of bench/cgprobe -records: (count at N runs -
# count at M runs) / (N - M), so reading the file and building the engine
# cancel. Load-independent; valgrind hides AVX-512, so this is the AVX2
# path. Defaults: N 4, M 1. CGPROBE=path uses a probe built elsewhere (to
# compare two commits).
set -eu
file=$1 n=${2:-4} m=${3:-1}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=${CGPROBE:-}
if [ -z "$bin" ]; then
	bin=$dir/cgprobe
	go build -o "$bin" ./bench/cgprobe
fi
count() {
	# A run under valgrind is retried if it fails (a Go process under
	# valgrind now and then dies of SIGILL: valgrind 3.19 does not know the
	# rdtscp the runtime uses in lock2 under contention).
	for try in 1 2 3 4 5 6; do
		if GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
			--callgrind-out-file="$dir/cg.$1" "$bin" -records "$file" -n "$1" >"$dir/log" 2>&1; then
			callgrind_annotate "$dir/cg.$1" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
			return
		fi
	done
	tail -n 5 "$dir/log" >&2
	exit 1
}
a=$(count "$n")
b=$(count "$m")
echo "$(basename "$file") $(( (a - b) / (n - m) )) instructions a run"
