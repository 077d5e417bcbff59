package pipeline

import (
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// False-positive control a policy steers: rules.allow keeps matches the
// operator has judged harmless, scoped by rule, value fingerprint, tool,
// server and JSON pointer, until an expiry; rules.minConfidence switches off
// the rules below a confidence level. Every kept match is recorded in
// evidence (Evidence.Suppressed) with the entry that kept it, never with
// its bytes.

// AllowEntry is one suppression of rules.allow. A secret match is kept
// (left in the text) when every field that is set matches it; at least one
// of Rule and Fingerprint must be set, so an entry never keeps every
// secret of a tool.
type AllowEntry struct {
	// Rule is a rule id ("generic-api-key"); empty: any rule.
	Rule string `json:"rule,omitempty"`
	// Fingerprint is the finding's fingerprint as evidence shows it (32
	// hex digits). Fingerprints are keyed (policy fingerprint.keyEnv or
	// keyFile): with the default per-process random key an entry with a
	// fingerprint matches within one process only.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Tool and Server match the tool name and server as evidence shows
	// them (exactly); empty: any.
	Tool   string `json:"tool,omitempty"`
	Server string `json:"server,omitempty"`
	// Path is a JSON pointer prefix of the string holding the match, as
	// evidence shows it ("/content/0/text", "/structuredContent/items");
	// it matches that pointer and those under it. Empty: any.
	Path string `json:"path,omitempty"`
	// Expires is an RFC 3339 time after which the entry keeps nothing;
	// empty: no expiry.
	Expires string `json:"expires,omitempty"`
	// Reason is the operator's note; it is not used.
	Reason string `json:"reason,omitempty"`

	fp      [16]byte
	expires time.Time
}

// Confidence levels of rules.minConfidence, lowest first.
var confidenceLevels = []string{"low", "medium", "high"}

func confidenceRank(c string) int {
	for i, l := range confidenceLevels {
		if l == c {
			return i
		}
	}
	return -1
}

// validateAllow checks rules.allow and rules.minConfidence and fills the
// entries' parsed fields.
func (r *Rules) validateAllow() error {
	if r.MinConfidence != "" && confidenceRank(r.MinConfidence) < 0 {
		return fmt.Errorf("%w: rules.minConfidence must be \"low\", \"medium\" or \"high\"", ErrPolicy)
	}
	if len(r.Allow) > maxAllowEntries {
		return fmt.Errorf("%w: rules.allow holds more than %d entries", ErrPolicy, maxAllowEntries)
	}
	// The parsed fields go into a copy: a Policy shared by engines is
	// never written.
	r.Allow = append([]AllowEntry(nil), r.Allow...)
	for i := range r.Allow {
		a := &r.Allow[i]
		if a.Rule == "" && a.Fingerprint == "" {
			return fmt.Errorf("%w: rules.allow[%d]: set rule or fingerprint", ErrPolicy, i)
		}
		if a.Fingerprint != "" {
			b, err := hex.DecodeString(a.Fingerprint)
			if err != nil || len(b) != 16 {
				return fmt.Errorf("%w: rules.allow[%d].fingerprint must be 32 hex digits", ErrPolicy, i)
			}
			copy(a.fp[:], b)
		}
		if a.Expires != "" {
			t, err := time.Parse(time.RFC3339, a.Expires)
			if err != nil {
				return fmt.Errorf("%w: rules.allow[%d].expires must be an RFC 3339 time", ErrPolicy, i)
			}
			a.expires = t
		}
		if a.Path != "" && a.Path[0] != '/' {
			return fmt.Errorf("%w: rules.allow[%d].path must be a JSON pointer (start with /)", ErrPolicy, i)
		}
	}
	return nil
}

// maxAllowEntries bounds rules.allow: every secret match is compared with
// each entry.
const maxAllowEntries = 10000

// belowConfidence lists the built-in secret rules whose confidence is below
// min, to be switched off.
func belowConfidence(min string) []string {
	if min == "" {
		return nil
	}
	want := confidenceRank(min)
	var out []string
	for _, info := range defaultRuleInfos() {
		if info.Kind == scanners.KindSecret && confidenceRank(info.Confidence) < want {
			out = append(out, info.ID)
		}
	}
	return out
}

var (
	ruleInfosOnce sync.Once
	ruleInfos     []scanners.RuleInfo
)

// defaultRuleInfos describes the built-in rules (from a default catalog
// built once).
func defaultRuleInfos() []scanners.RuleInfo {
	ruleInfosOnce.Do(func() {
		if c, err := scanners.NewCatalog(scanners.CatalogOptions{}); err == nil {
			ruleInfos = c.Rules()
		}
	})
	return ruleInfos
}

// SuppressionRecord is a match rules.allow kept: where, which rule, the
// fingerprint and the entry (its index in rules.allow). It never holds the
// matched bytes.
type SuppressionRecord struct {
	Rule        string `json:"rule"`
	Pointer     string `json:"pointer"`
	Offset      int64  `json:"offset"`
	Length      int    `json:"length"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Entry       int    `json:"entry"`
}

// maxSuppressionRecords bounds Evidence.Suppressed; more are counted in
// Evidence.SuppressedNotListed.
const maxSuppressionRecords = 256

// installAllow gives the pass's redactors the policy's suppress func.
func (p *pass) installAllow(r *scanners.Redactor) {
	if len(p.e.pol.Rules.Allow) == 0 || r == nil {
		return
	}
	r.SetSuppress(p.allowMatch)
}

// allowMatch is the suppress func: the first entry that matches the current
// string's tool, server and pointer and the match's rule and fingerprint.
func (p *pass) allowMatch(rule scanners.RuleID, fp [16]byte) bool {
	return p.allowEntry(rule, fp) >= 0
}

func (p *pass) allowEntry(rule scanners.RuleID, fp [16]byte) int {
	name := p.e.cat.RuleName(rule)
	now := time.Time{}
	ptr, havePtr := "", false
	for i := range p.e.pol.Rules.Allow {
		a := &p.e.pol.Rules.Allow[i]
		if a.Rule != "" && a.Rule != name || a.Fingerprint != "" && a.fp != fp ||
			a.Tool != "" && a.Tool != p.ev.Tool || a.Server != "" && a.Server != p.ev.Server {
			continue
		}
		if !a.expires.IsZero() {
			if now.IsZero() {
				now = time.Now()
			}
			if now.After(a.expires) {
				continue
			}
		}
		if a.Path != "" {
			if !havePtr {
				ptr, havePtr = p.pointer(), true
			}
			if !pathMatch(a.Path, ptr) {
				continue
			}
		}
		return i
	}
	return -1
}

// pathMatch reports whether the pointer ptr is path or under it. While
// adjacent text blocks are scanned joined (blockjoin.go) the pointer is the
// block's (/content/N), and evidence shows the text's (/content/N/text):
// a path naming the text matches its block then.
func pathMatch(path, ptr string) bool {
	return ptr == path || strings.HasPrefix(ptr, strings.TrimSuffix(path, "/")+"/") || ptr+"/text" == path
}

// recordSuppressed records a finding rules.allow kept.
func (p *pass) recordSuppressed(f *scanners.Finding) {
	p.ev.SuppressedCount++
	if len(p.ev.Suppressed) >= maxSuppressionRecords {
		return
	}
	p.ev.Suppressed = append(p.ev.Suppressed, SuppressionRecord{
		Rule:        p.e.cat.RuleName(f.Rule),
		Pointer:     p.pointer(),
		Offset:      f.Offset,
		Length:      f.Length,
		Fingerprint: hexFP(f.Fingerprint),
		Entry:       p.allowEntry(f.Rule, f.Fingerprint),
	})
}
