#!/usr/bin/env bash
# The project's test command (README.md "Run the tests"): format, vet, the
# race-enabled test suite, the deployment manifests (deploy/validate, its own
# module), then every fuzz target for a fixed count.
# FUZZ_COUNT overrides the per-target count (default 20000 executions).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 -timeout 30m ./...

echo "== deploy/validate (kustomize render, strict decoding of every object)"
(cd deploy/validate && go vet ./... && go test -count=1 -timeout 10m ./...)

echo "== fuzz targets (${FUZZ_COUNT:-20000} executions each)"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "-- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZ_COUNT:-20000}x" "$pkg"
  done
done
echo "== all tests passed"
