package peertest_test

import (
	"testing"
)

// TestPeers drives the real servers (see collect) and checks what holds
// on every response today: no planted secret, tag or invisible character
// is left in any sanitized response, and every planted item did reach
// some raw response, so that the check is not vacuous. The plan calls
// every tool the servers list (requireCovered).
func TestPeers(t *testing.T) {
	c := collect(t)
	reached := map[string]bool{}
	for _, x := range c.exchanges {
		for _, f := range c.planted.found(x.raw) {
			reached[f] = true
		}
	}
	for _, f := range c.planted.found(plantedMessage(c.planted)) {
		if !reached[f] {
			t.Errorf("%s reached no raw response: the plan does not exercise it", f)
		}
	}
	run(t, c, "planted", checkPlanted)
}

// TestPeersFidelity holds the checks of issue 18's Proof: every sanitized
// response valid against the official schema of the negotiated revision;
// nothing but the documented transforms changed (peertest.Compare); no
// needless error; errors that keep their actionable text and lose paths and
// frames (docs/peers.md).
func TestPeersFidelity(t *testing.T) {
	c := collect(t)
	sc := loadMCPSchemas(t, c.rev)
	t.Run("schema", func(t *testing.T) { run(t, c, "schema", checkSchema(sc, t)) })
	t.Run("fidelity", func(t *testing.T) { run(t, c, "fidelity", checkFidelity) })
	t.Run("needless-error", func(t *testing.T) { run(t, c, "needless-error", checkNeedless) })
	t.Run("error-text", func(t *testing.T) { run(t, c, "error-text", checkErrorText) })
}
