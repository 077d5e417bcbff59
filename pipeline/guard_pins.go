package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Tool definitions pinned (docs/pinning.md). The digest of a tool is the
// SHA-256 of the RFC 8785 (JCS) form of its sanitized definition (the
// tools/list item as the client gets it, our _meta labels aside: they are
// on the result, never on a tool): the same definition gives the same
// digest on every worker whatever the member order or number spelling
// the server used. A PinStore keeps one pin per <server>.<tool>; the
// worker's store (worker/pins.go) keeps them fleet-wide in the mcp-tools
// bucket. Every tools/list is checked, so the list a client asks for after
// notifications/tools/list_changed is checked like the first.

// PinState is a store's verdict on one tool definition.
type PinState string

// The verdicts.
const (
	// PinFirst: the tool had no pin; this definition is now pinned (trust
	// on first use).
	PinFirst PinState = "pinned"
	// PinMatch: the definition is the pinned one.
	PinMatch PinState = "match"
	// PinChanged: the definition differs from the pinned one (a rug pull,
	// or an update not yet approved). Policy pinning decides: warn
	// forwards it flagged, hold keeps it out of the list.
	PinChanged PinState = "changed"
	// PinUnverified: the store could not be asked; under pinning: hold
	// the tool is kept out of the list (fail closed).
	PinUnverified PinState = "unverified"
)

// PinVerdict is what a PinStore says of a definition.
type PinVerdict struct {
	State PinState
	// Pinned is the pinned digest when State is PinChanged.
	Pinned string
}

// PinStore keeps one pinned digest per <server>.<tool>. Pin compares a
// definition with its pin and pins it when there is none, atomically: of
// two callers that race to pin different definitions of one tool, one
// gets PinFirst and the other PinChanged, so every worker of a fleet
// gives the same verdict whichever saw the first list. def is the
// canonical definition (RFC 8785), kept beside the pin so that a changed
// definition can be shown and approved later. Pin must be safe for
// concurrent use; its error text never reaches evidence.
type PinStore interface {
	Pin(ctx context.Context, server, tool, digest string, def []byte) (PinVerdict, error)
}

// PinRecord is one tool's pinning verdict in evidence.
type PinRecord struct {
	// Tool is the tool's name, restricted like Evidence.Tool.
	Tool string `json:"tool"`
	// Digest is "sha256:<hex>" of the tool's sanitized definition (RFC
	// 8785).
	Digest string `json:"digest"`
	// Verdict is a PinState.
	Verdict PinState `json:"verdict"`
	// Pinned is the pinned digest, when the definition differs from it.
	Pinned string `json:"pinnedDigest,omitempty"`
	// Held is true when the tool was kept out of the list.
	Held bool `json:"held,omitempty"`
}

// maxPinRecords bounds the pin records of one list in evidence; every
// tool is still checked.
const maxPinRecords = 256

// Pinning modes (Policy.Pinning).
const (
	PinningWarn = "warn" // a changed definition is forwarded, flagged in evidence (default)
	PinningHold = "hold" // a changed or unverified definition is kept out of the list
	PinningOff  = "off"  // no pinning even when a store is given
)

// checkPinning validates Policy.Pinning ("" is warn).
func checkPinning(s string) error {
	switch s {
	case "", PinningWarn, PinningHold, PinningOff:
		return nil
	}
	return fmt.Errorf("%w: pinning must be warn, hold or off", ErrPolicy)
}

// ToolDigest returns the canonical form (RFC 8785) of a tool definition
// as the pass sanitized it and its "sha256:<hex>" digest.
func ToolDigest(def map[string]any) (canon []byte, digest string, err error) {
	canon, err = jcs.Append(nil, def)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(canon)
	return canon, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// pinTools checks every tool of the list against MessageInfo.Pins and,
// under pinning: hold, removes the changed and unverified ones.
func (g *guardRun) pinTools(names []string) {
	mode := g.e.pol.Pinning
	// The store decides what an empty server means (the fleet's refuses
	// it as a key: unverified; a process's own pins need none).
	if g.info.Pins == nil || mode == PinningOff {
		return
	}
	hold := mode == PinningHold
	// The definitions are canonicalized from the strict decoder's form
	// (what ToolDigest takes), never from a re-encoding.
	body := g.strictBody()
	list, _ := body["tools"].([]any)
	if g.fail != nil || len(list) != len(names) {
		g.failReason(string(wire.ReasonKindDecode), "/tools")
		return
	}
	var kept []any
	for i, x := range list {
		t, _ := x.(map[string]any)
		canon, digest, err := ToolDigest(t)
		if err != nil {
			// A decoded value always canonicalizes; fail closed all the same.
			g.fail = &Error{Code: CodeInternal, Reason: string(wire.ReasonInternalFault), Pointer: g.base + "/tools/" + strconv.Itoa(i)}
			return
		}
		v, err := g.info.Pins.Pin(g.ctx, g.info.Server, names[i], digest, canon)
		if err != nil {
			v = PinVerdict{State: PinUnverified}
		}
		held := hold && (v.State == PinChanged || v.State == PinUnverified)
		if held {
			g.rec.Held++
		} else {
			kept = append(kept, t)
		}
		if len(g.rec.Pins) < maxPinRecords {
			g.rec.Pins = append(g.rec.Pins, PinRecord{Tool: safeLabel(names[i]), Digest: digest,
				Verdict: v.State, Pinned: v.Pinned, Held: held})
		}
	}
	if g.rec.Held > 0 {
		if kept == nil {
			kept = []any{}
		}
		body["tools"] = kept
		g.changed = true
	}
}

// MemoryPins is a PinStore of one process (trust on first use for as long
// as the process runs): what a proxy without the fleet's bucket uses, so
// that a definition changed within a session (a tools/list after
// notifications/tools/list_changed) is still caught. It keeps at most max
// pins; a tool beyond them is unverified (held under pinning: hold). It is
// safe for concurrent use.
type MemoryPins struct {
	mu   sync.Mutex
	max  int
	pins map[string]string
}

// DefaultMemoryPins bounds the pins of a MemoryPins by default.
const DefaultMemoryPins = 4096

// NewMemoryPins returns an empty MemoryPins of at most max pins (0 or
// less: DefaultMemoryPins).
func NewMemoryPins(max int) *MemoryPins {
	if max <= 0 {
		max = DefaultMemoryPins
	}
	return &MemoryPins{max: max, pins: map[string]string{}}
}

// errPinsFull is MemoryPins' refusal of a tool beyond its bound.
var errPinsFull = &Error{Code: CodeBoundExceeded, Reason: string(wire.ReasonToolHeld)}

// Pin implements PinStore.
func (m *MemoryPins) Pin(_ context.Context, server, tool, digest string, _ []byte) (PinVerdict, error) {
	key := strconv.Itoa(len(server)) + ":" + server + "." + tool
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pins[key]
	switch {
	case ok && p == digest:
		return PinVerdict{State: PinMatch}, nil
	case ok:
		return PinVerdict{State: PinChanged, Pinned: p}, nil
	case len(m.pins) >= m.max:
		return PinVerdict{}, errPinsFull
	}
	m.pins[key] = digest
	return PinVerdict{State: PinFirst}, nil
}
