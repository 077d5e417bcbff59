#!/usr/bin/env bash
# Side-by-side comparison of sanitize-worker with the seed's own reference
# guards (G001 text guard, G002 structured gate, in JavaScript) on one
# generated corpus, on this machine: throughput, peak RSS and what planted
# items survive each side. See docs/seed-comparison.md.
#
#   bash bench/compare-seed.sh
#
# Environment: RECORDS (8000), SIZE bytes per record (8192), SEED (1),
# RUNS per measurement (3, the median wall time is reported), SEED_JS (the
# seed-js folder, default ../shared/reference/seed-js from the repository),
# KEEP=1 keeps the work directory (corpus, manifest, outputs).
#
# The corpus holds fake credentials only (built by bench.Generate from the
# seed); it is written to a temporary directory, never to the tree.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
RECORDS=${RECORDS:-8000}
SIZE=${SIZE:-8192}
SEED=${SEED:-1}
RUNS=${RUNS:-3}
SEED_JS=${SEED_JS:-$ROOT/../shared/reference/seed-js}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare-seed.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
	echo "work directory (kept): $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi

echo "== build"
go build -o "$WORK/sanitize-worker" ./cmd/sanitize-worker
go build -o "$WORK/corpus" ./bench/corpus
go build -o "$WORK/check" ./bench/corpus/check

echo "== machine"
echo "go:    $(go version)"
if command -v node >/dev/null; then echo "node:  $(node --version)"; else echo "node:  not found"; fi
echo "cpu:   $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
echo "os:    $(uname -srm)"
echo "tree:  $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"

echo "== corpus"
"$WORK/corpus" -seed "$SEED" -records "$RECORDS" -size "$SIZE" -out "$WORK/corpus.jsonl" -manifest "$WORK/manifest.jsonl"
BYTES=$(stat -c %s "$WORK/corpus.jsonl")
echo "corpus: $RECORDS records, $BYTES bytes ($(awk -v b="$BYTES" 'BEGIN{printf "%.1f", b/1e6}') MB), all shapes, 3 secrets + 2 tags + 2 invisible runs planted per record"

# Neither side may truncate: survivors must reflect detection, not cutting.
export SEED_MAX_TEXT_CHARS=1000000000
cat >"$WORK/policy.yaml" <<'POLICY'
version: compare-seed
limits:
  text-chars: 1000000000
  string-chars: 1000000000
  output-bytes: 1000000000
fingerprint:
  keyEnv: COMPARE_SEED_FINGERPRINT_KEY
POLICY
# A fixed key for the evidence run: not a secret, the evidence is discarded.
export COMPARE_SEED_FINGERPRINT_KEY=compare-seed-benchmark-key-not-secret
echo "no truncation: SEED_MAX_TEXT_CHARS=$SEED_MAX_TEXT_CHARS for the seed; our policy raises text-chars, string-chars and output-bytes to 10^9"

TIME=/usr/bin/time
[[ -x $TIME ]] || TIME=""
[[ -n $TIME ]] || echo "note: /usr/bin/time not found, peak RSS not measured"

# measure LABEL STDOUT-FILE COMMAND...: RUNS runs; prints each run and a
# summary row (median wall seconds, MB/s = input bytes / wall, max RSS).
SUMMARY=()
measure() {
	local label=$1 stdout=$2
	shift 2
	local walls=() rss_max=0 i t0 t1 wall rss
	for ((i = 1; i <= RUNS; i++)); do
		t0=$(date +%s%N)
		if [[ -n $TIME ]]; then
			"$TIME" -f %M -o "$WORK/rss" "$@" >"$stdout"
			rss=$(tail -n1 "$WORK/rss")
		else
			"$@" >"$stdout"
			rss=0
		fi
		t1=$(date +%s%N)
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
		walls+=("$wall")
		((rss > rss_max)) && rss_max=$rss
		printf '  %-28s run %d: %6.3f s  %7.1f MB/s  peak RSS %6.1f MiB\n' "$label" "$i" "$wall" \
			"$(awk -v b="$BYTES" -v s="$wall" 'BEGIN{print b/1e6/s}')" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
	done
	local med
	med=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	SUMMARY+=("$(printf '| %s | %.3f | %.1f | %.1f |' "$label" "$med" \
		"$(awk -v b="$BYTES" -v s="$med" 'BEGIN{print b/1e6/s}')" "$(awk -v k="$rss_max" 'BEGIN{print k/1024}')")")
}

SIDES=()
SEED_OK=1
echo "== seed reference guards (JavaScript)"
if [[ ! -f $SEED_JS/run.mjs ]]; then
	echo "seed-js not found at $SEED_JS: skipping the seed side (set SEED_JS to its folder)"
	SEED_OK=0
elif ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "node or npm not available: skipping the seed side; only our side is measured"
	SEED_OK=0
else
	cp -r "$SEED_JS" "$WORK/seed-js"
	rm -rf "$WORK/seed-js/node_modules"
	if ! (cd "$WORK/seed-js" && npm install --no-audit --no-fund --loglevel=error >"$WORK/npm.log" 2>&1); then
		echo "npm install failed (see below): skipping the seed side"
		tail -n 20 "$WORK/npm.log"
		SEED_OK=0
	else
		echo "seed-js copied from $SEED_JS, npm install done (ajv $(cd "$WORK/seed-js" && node -p 'require("ajv/package.json").version'))"
	fi
fi
if [[ $SEED_OK == 1 ]]; then
	measure "seed-js (node run.mjs)" "$WORK/seed-report.txt" \
		bash -c 'cd "$1" && node run.mjs "$2" "$3"' _ "$WORK/seed-js" "$WORK/corpus.jsonl" "$WORK/seed-out.jsonl"
	echo "  run.mjs's own report (last run; its timer covers the guard loop only, not reading the file): $(cat "$WORK/seed-report.txt")"
	SIDES+=("seed=$WORK/seed-out.jsonl")
fi

echo "== ours (sanitize-worker scan --jsonl)"
for w in 1 2; do
	measure "ours --workers $w" /dev/null \
		"$WORK/sanitize-worker" scan --jsonl --workers "$w" --policy "$WORK/policy.yaml" \
		--in "$WORK/corpus.jsonl" --out "$WORK/ours-w$w.jsonl"
done
measure "ours --workers 2 + evidence" /dev/null \
	"$WORK/sanitize-worker" scan --jsonl --workers 2 --policy "$WORK/policy.yaml" \
	--in "$WORK/corpus.jsonl" --out "$WORK/ours-ev.jsonl" --evidence "$WORK/evidence.jsonl"
if ! cmp -s "$WORK/ours-w1.jsonl" "$WORK/ours-w2.jsonl"; then
	echo "WARNING: ours with 1 and 2 workers wrote different outputs"
fi
SIDES=("ours=$WORK/ours-w2.jsonl" "${SIDES[@]}")

echo
echo "== throughput (median of $RUNS runs; MB/s = $BYTES input bytes / 10^6 / wall seconds of the whole process, start-up and I/O included)"
echo "| side | wall s | MB/s | peak RSS MiB |"
echo "|---|---:|---:|---:|"
printf '%s\n' "${SUMMARY[@]}"

echo
echo "== survivors (a plant survives when one of its needles occurs in a decoded string or key of its record's output line)"
"$WORK/check" -manifest "$WORK/manifest.jsonl" "${SIDES[@]}"
if [[ $SEED_OK == 0 ]]; then
	echo
	echo "the seed side was skipped (see above)"
	exit 0
fi

# Probes outside the corpus: hand-made one-block records on which the two
# sides' rules differ (low-entropy sk- strings, tags whose name only starts
# with one of the seed's tag names). No credential is written: the sk-
# strings are runs of letters.
echo
echo "== probes (one text block each; what each side leaves of it, label removed)"
az=abcdefghijklmnopqrstuvwxyz
probes=(
	"<tool_call>{}</tool_call>"
	"<user_query>q</user_query>"
	"<important_note>n</important_note>"
	"<assistant_response>a</assistant_response>"
	"</ system>"
	"<systemd>"
	"<toolbox>"
	"sk-${az}abcd"
	"task-runner-${az}"
	"sk-learn-pipeline-configuration-2024"
)
: >"$WORK/probes.jsonl"
for p in "${probes[@]}"; do
	printf '{"tool":"probe","outputSchema":null,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$p" >>"$WORK/probes.jsonl"
done
"$WORK/sanitize-worker" scan --jsonl --workers 1 --policy "$WORK/policy.yaml" --in "$WORK/probes.jsonl" --out "$WORK/probes-ours.jsonl"
(cd "$WORK/seed-js" && node run.mjs "$WORK/probes.jsonl" "$WORK/probes-seed.jsonl" >/dev/null)
node -e '
const fs = require("node:fs");
const [inp, ours, seed] = process.argv.slice(1).map(f => fs.readFileSync(f, "utf8").trim().split("\n").map(l => JSON.parse(l)));
const body = t => t.slice(t.indexOf(":\n") + 2);
console.log("| probe | ours | seed |\n|---|---|---|");
inp.forEach((r, i) => console.log("| `" + r.result.content[0].text + "` | " +
  body(ours[i].result.content[0].text) + " | " + body(seed[i].content[0].text) + " |"));
' "$WORK/probes.jsonl" "$WORK/probes-ours.jsonl" "$WORK/probes-seed.jsonl"
