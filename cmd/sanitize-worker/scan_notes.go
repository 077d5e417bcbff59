package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// fingerprintKeyEnv is the environment variable scan takes the fingerprint
// key from when the policy names no key source: the way to configure a key
// without writing a policy file.
const fingerprintKeyEnv = "MCP_SANITIZE_FINGERPRINT_KEY"

// fingerprintNote is printed once per process, however many scans it runs.
var fingerprintNote sync.Once

// useFingerprintKeyEnv makes pol read its fingerprint key from
// fingerprintKeyEnv when the policy names no source and the variable is set
// (a value shorter than 16 bytes is then a usage error, as in a policy).
func useFingerprintKeyEnv(pol *pipeline.Policy, lookup func(string) (string, bool)) {
	if pol.Fingerprint.KeyEnv != "" || pol.Fingerprint.KeyFile != "" {
		return
	}
	if _, ok := lookup(fingerprintKeyEnv); ok {
		pol.Fingerprint.KeyEnv = fingerprintKeyEnv
	}
}

// noteRandomFingerprintKey says once per process that evidence fingerprints
// use a random key, and how to configure one (which silences it).
func noteRandomFingerprintKey(stderr io.Writer) {
	fingerprintNote.Do(func() {
		fmt.Fprintf(stderr, "sanitize-worker scan: note: no fingerprint key configured, so the fingerprints in the evidence match only within this run; "+
			"to correlate them across runs set %s to a secret of 16 bytes or more (for example: export %s=$(head -c 32 /dev/urandom | base64)) "+
			"or the policy's fingerprint.keyEnv or keyFile\n", fingerprintKeyEnv, fingerprintKeyEnv)
	})
}

// unknownValue is the usage error of a flag whose value is not one of
// valid: it lists them.
func unknownValue(stderr io.Writer, cmd, flag, got string, valid []string) int {
	fmt.Fprintf(stderr, "sanitize-worker %s: unknown --%s %q; valid values: %s\n", cmd, flag, got, strings.Join(valid, ", "))
	return exitUsage
}

// kindNames lists the message kinds for unknownValue.
func kindNames() []string {
	var names []string
	for _, k := range pipeline.Kinds() {
		names = append(names, string(k))
	}
	return names
}

// lookupEnv is os.LookupEnv; tests replace it.
var lookupEnv = os.LookupEnv
