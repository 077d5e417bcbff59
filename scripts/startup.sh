#!/bin/sh
# startup.sh [RUNS [REPEATS]]: start-up of `sanitize-worker scan` of one
# small tool result against a hello-world Go process built by the same Go,
# both ways docs/benchmarks.md reports it:
#
#   - instructions of the whole process (callgrind; load-independent, but
#     the garbage collector's share moves with scheduling, so REPEATS runs
#     each, sorted; valgrind hides AVX-512);
#   - CPU time (user + system of all threads, perf stat's task-clock) and
#     page faults, the mean of RUNS runs, the two processes alternating.
#
# Defaults: RUNS 50, REPEATS 5. SW=path measures a binary built elsewhere
# (another commit) instead of this tree's. BEFORE=path adds a comparison
# that a loaded machine does not blur as much: RUNS turns, each running
# hello world, then BEFORE and the binary measured, on the AVX-512 path and
# on the AVX2 path (GODEBUG=cpu.avx512f=off), once each in turn; it prints
# the minimum, first quartile and median CPU time and the mean page faults
# of each (the scans run under env(1), which adds its exec to theirs).
set -eu
runs=${1:-50} repeats=${2:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$dir/hello.go"
(cd "$dir" && go mod init hello >/dev/null 2>&1 && go build -o hello .)
sw=${SW:-}
if [ -z "$sw" ]; then
	sw=$dir/sw
	go build -o "$sw" ./cmd/sanitize-worker
fi
echo '{"content":[{"type":"text","text":"ok: 3 files changed"}]}' >"$dir/small.json"

count() {
	# A Go process under valgrind 3.19 now and then dies of SIGILL (the
	# runtime's rdtscp in lock2); such a run is retried.
	i=0
	while [ "$i" -lt "$repeats" ]; do
		if GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file=/dev/null "$@" >"$dir/log" 2>&1 && ! grep -q SIGILL "$dir/log"; then
			awk '/I +refs/ {gsub(",", "", $NF); print $NF}' "$dir/log"
			i=$((i + 1))
		fi
	done | sort -n | tr '\n' ' '
}
if command -v valgrind >/dev/null; then
	echo "instructions, hello world: $(count "$dir/hello")"
	echo "instructions, scan:        $(count "$sw" scan --in "$dir/small.json" --out /dev/null)"
fi
stat() {
	perf stat -r "$runs" -e task-clock,page-faults "$@" 2>&1 >/dev/null |
		awk '/task-clock/ {t = $1} /page-faults/ {p = $1} END {printf "%s ms CPU, %s page faults", t, p}'
}
for round in 1 2 3; do
	echo "round $round: hello $(stat "$dir/hello") | scan $(stat "$sw" scan --in "$dir/small.json" --out /dev/null) | load $(cut -d' ' -f1-3 /proc/loadavg)"
done

if [ -n "${BEFORE:-}" ]; then
	i=0
	while [ "$i" -lt "$runs" ]; do
		j=0
		for spec in hello "X=1 $BEFORE" "X=1 $sw" "GODEBUG=cpu.avx512f=off $BEFORE" "GODEBUG=cpu.avx512f=off $sw"; do
			j=$((j + 1))
			if [ "$spec" = hello ]; then
				set -- "$dir/hello"
			else
				set -- env $spec scan --in "$dir/small.json" --out /dev/null
			fi
			perf stat -x, -e task-clock,page-faults "$@" 2>&1 >/dev/null |
				awk -F, '/task-clock/ {t = $1} /page-faults/ {p = $1} END {print t, p}' >>"$dir/turns.$j"
		done
		i=$((i + 1))
	done
	j=0
	for name in "hello world" "before, AVX-512" "this, AVX-512" "before, AVX2" "this, AVX2"; do
		j=$((j + 1))
		sort -n "$dir/turns.$j" | awk -v name="$name" '{t[NR] = $1; p += $2}
			END {printf "%-16s min %.1f p25 %.1f median %.1f ms CPU, %d page faults\n", name, t[1], t[int(NR / 4) + 1], t[int(NR / 2) + 1], p / NR}'
	done
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
fi
