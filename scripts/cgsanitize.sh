#!/bin/sh
# cgsanitize.sh CORPUS SIZE [N M]: instructions of one Engine.Sanitize call
# on a BenchmarkSanitize configuration, counted by callgrind inside
# bench/cgprobe's loop: (count at N calls - count at M calls) / (N - M).
# Load-independent (the figure does not move with other work on the
# machine); run it from the repository root, for two commits compare two
# checkouts. Defaults: N 41, M 1 (4 KiB); use 11 1 for 64 KiB, 4 1 for 1 MiB.
set -eu
corpus=$1 size=$2 n=${3:-41} m=${4:-1}
bin=$(mktemp -d)/cgprobe
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./bench/cgprobe
count() {
	# Three runs, the largest count: callgrind now and then loses the
	# toggle of main.loop for one whole Sanitize call (its shadow call
	# stack, confused by a goroutine stack switch, shows a Sanitize'2
	# called from runtime code), which moves a single-run figure by one
	# call in ten (the -10 % / +10 % "modes" of the same binary). A run
	# that dies (valgrind 3.19 and the runtime's rdtscp: SIGILL) counts 0.
	best=0
	for try in 1 2 3; do
		out=$(dirname "$bin")/cg.$1.$try
		if GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
			--callgrind-out-file="$out" --toggle-collect='main.loop' \
			"$bin" -corpus "$corpus" -size "$size" -n "$1" >/dev/null 2>&1; then
			c=$(callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
			[ "${c:-0}" -gt "$best" ] && best=$c
		fi
	done
	[ "$best" -gt 0 ] || { echo "cgsanitize: every callgrind run failed" >&2; exit 1; }
	echo "$best"
}
a=$(count "$n")
b=$(count "$m")
echo "$corpus $size $(( (a - b) / (n - m) )) instructions a call"
