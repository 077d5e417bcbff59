#!/bin/sh
# scancompare.sh BEFORE [AFTER]: runs `sanitize-worker scan --jsonl` of two
# builds (BEFORE, and AFTER or this tree's) on the same records and fails
# unless their output and evidence are byte-identical (evidence with its
# durationNanos, wall-clock time, blanked). The records: the harness's mix
# (bench/mixdump, seeds 1 and 2, 3000 records), a listing-dominated mix
# (only the records with an outputSchema, seed 3 of 6000) and a malformed
# tail (a blank line, a line that is not JSON, an unknown framing, a
# duplicate member); each with --workers 1 and 2, to a regular file and to
# a pipe (the live path that flushes). MCP_SANITIZE_FINGERPRINT_KEY is set
# so that fingerprints are the same in both runs.
set -eu
before=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
after=${2:-}
if [ -z "$after" ]; then
	after=$dir/after
	go build -o "$after" ./cmd/sanitize-worker
fi
export MCP_SANITIZE_FINGERPRINT_KEY=0123456789abcdef0123456789abcdef
printf 'version: harness\nlimits:\n  text-chars: 1000000000\n  string-chars: 1000000000\n  output-bytes: 1000000000\n' >"$dir/policy.yaml"
go run ./bench/mixdump -seed 1 >"$dir/mix1.jsonl"
go run ./bench/mixdump -seed 2 >"$dir/mix2.jsonl"
go run ./bench/mixdump -seed 3 -records 6000 -part schema >"$dir/list.jsonl"
{
	head -n 50 "$dir/mix2.jsonl"
	printf '\n'
	printf 'not json\n'
	printf '{"tool":"t","outputSchema":null,"framing":"nope","result":{"content":[]}}\n'
	printf '{"tool":"t","tool":"u","outputSchema":null,"result":{"content":[]}}\n'
	printf '{"tool":"t","outputSchema":{"type":"object","properties":{"a":{"type":12}}},"result":{"content":[],"structuredContent":{"a":1}}}\n'
	head -n 20 "$dir/mix1.jsonl"
} >"$dir/bad.jsonl"
fail=0
for in in mix1 mix2 list bad; do
	for w in 1 2; do
		for mode in file pipe; do
			for side in before after; do
				eval bin=\$$side
				o=$dir/$in.$w.$mode.$side
				if [ "$mode" = file ]; then
					"$bin" scan --jsonl --workers "$w" --policy "$dir/policy.yaml" --in "$dir/$in.jsonl" \
						--out "$o.out" --evidence "$o.ev" 2>"$o.err" || true
				else
					"$bin" scan --jsonl --workers "$w" --policy "$dir/policy.yaml" --evidence "$o.ev" \
						<"$dir/$in.jsonl" 2>"$o.err" | cat >"$o.out" || true
				fi
				sed 's/"durationNanos":[0-9]*/"durationNanos":0/g' "$o.ev" >"$o.evn"
			done
			b=$dir/$in.$w.$mode.before a=$dir/$in.$w.$mode.after
			if cmp -s "$b.out" "$a.out" && cmp -s "$b.evn" "$a.evn" && cmp -s "$b.err" "$a.err"; then
				echo "same: $in --workers $w ($mode): $(wc -c <"$a.out") output bytes, $(wc -l <"$a.evn") evidence lines"
			else
				echo "DIFFERENT: $in --workers $w ($mode)"
				fail=1
			fi
		done
	done
done
exit $fail
