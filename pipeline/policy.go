package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/bounds"
	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/scanners"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"sigs.k8s.io/yaml"
)

// MetaPrefix is the reserved _meta key prefix (wire.MetaPrefix). Keys under
// it are written only by the sanitizer; a tool's own keys with this prefix
// are dropped so a tool cannot forge our labels.
const MetaPrefix = wire.MetaPrefix

// GuardVersion identifies this implementation of the guards in _meta and
// evidence (wire.GuardVersion).
const GuardVersion = wire.GuardVersion

// Action says what happens when a bound is crossed.
type Action string

const (
	// ActionTruncate cuts deterministically, marks the cut and adds a note
	// that tells the agent how to narrow the request.
	ActionTruncate Action = "truncate"
	// ActionReject replaces the whole result with a sanitized error result.
	ActionReject Action = "reject"
)

// Actions sets the bound action per region of a message.
type Actions struct {
	// Text governs the content blocks of a result (text, resource text,
	// the list of blocks). Default truncate.
	Text Action `json:"text,omitempty"`
	// Structured governs structuredContent. Default reject: a cut structure
	// would silently break the tool's outputSchema.
	Structured Action `json:"structured,omitempty"`
	// Other governs everything else: unknown members, the JSON-RPC
	// envelope, and every string of kinds without a specific shape.
	// Default truncate.
	Other Action `json:"other,omitempty"`
}

// Label configures the untrusted-output label of text blocks.
type Label struct {
	// Disabled turns the text prefix off; the _meta flags stay.
	Disabled bool `json:"disabled,omitempty"`
	// Template is prefixed to every text block of a tool result; "{tool}"
	// is replaced by the tool name (restricted to [A-Za-z0-9_.-/], at most 128
	// characters). Default: the seed's "Untrusted tool output from {tool}:\n".
	Template string `json:"template,omitempty"`
}

// SchemaPolicy configures tool results whose tool declares an outputSchema
// (MessageInfo.OutputSchema).
type SchemaPolicy struct {
	// Projection drops the properties of structuredContent that the schema
	// does not declare (recorded in evidence by pointer), so the model sees
	// only what the tool promised. Default true.
	Projection *bool `json:"projection,omitempty"`
}

// ErrorsPolicy rewrites tool execution errors (a CallToolResult with
// isError: true) and the JSON-RPC error objects of envelopes: the tool's raw
// text never reaches the output. The agent sees the public message mapped
// from the tool's internal code; else, under Mode keep-actionable, the
// tool's text sanitized by package errsan; else Default (errorpolicy.go).
type ErrorsPolicy struct {
	// Map maps internal codes ([A-Za-z0-9_.:-], at most 64 bytes) to public
	// messages. The code comes from structuredContent.code, or else from a
	// leading "CODE:" of the first text block (see docs/pipeline.md).
	Map map[string]string `json:"map,omitempty"`
	// Default is the public message of an unmapped error. Default: the
	// public message of code TOOL_ERROR.
	Default string `json:"default,omitempty"`
	// Disabled passes tool errors through like any other result (sanitized
	// and labelled, not rewritten). Default false.
	Disabled bool `json:"disabled,omitempty"`
	// Mode is what an unmapped error says: ErrorModeKeepActionable
	// ("keep-actionable", the default: the error text with paths, frames,
	// SQL, hosts, addresses, environment dumps, secrets and backend text
	// removed) or ErrorModeGeneric ("generic": Default).
	Mode string `json:"mode,omitempty"`
	// Modes overrides Mode for single internal codes (the same code syntax
	// as Map). A mapped code says its message whatever the mode.
	Modes map[string]string `json:"modes,omitempty"`
	// Data is what becomes of the data member of a JSON-RPC error object:
	// ErrorDataDrop ("drop", the default) or ErrorDataSanitize ("sanitize":
	// every string sanitized like a message, numbers, booleans and null
	// kept, nesting and size bounded). The data of a URL elicitation
	// required error (code -32042) is kept, each elicitation checked.
	Data string `json:"data,omitempty"`
}

// BinaryPolicy says what happens to a content block whose binary data
// breaks the binary rules (docs/pipeline.md, "Binary content"): a mimeType
// outside AllowedMIME, bytes that are not the declared type, a type that
// came too late to be held for.
type BinaryPolicy struct {
	// Disallowed is "replace" (default: the block is replaced by a text
	// block that says what was removed and why, the rest of the result is
	// delivered, evidence lists the block) or "reject" (the whole result
	// is replaced by an error result, INVALID_CONTENT or BOUND_EXCEEDED).
	Disallowed string `json:"disallowed,omitempty"`
}

// The values of BinaryPolicy.Disallowed.
const (
	BinaryReplace = "replace"
	BinaryReject  = "reject"
)

// BinaryHoldBytesLimit is the id, in Policy.Limits, of the bound on the
// output of one content block held until its binary data is known to be
// kept: base64 data that comes before its mimeType, up to the check of
// its first bytes. A block whose type is still unknown when its held
// output crosses the limit is replaced (reason binary-hold-bytes), or the
// result rejected under binary.disallowed "reject".
const BinaryHoldBytesLimit = string(wire.ReasonBinaryHoldBytes)

// DefaultBinaryHoldBytes is the default of the binary-hold-bytes limit.
// It holds a block whose base64 data is as large as the default
// binary-bytes allows (20 MiB decoded, 26.7 MiB of base64) with its other
// members; lower it to bound the memory of a pass.
const DefaultBinaryHoldBytes = 28 << 20

// StructuredBytesLimit is the id, in Policy.Limits, of the bound on what a
// pass holds for a tool result with an outputSchema: the raw and the
// sanitized structuredContent (each) and the sanitized content held with
// them. Crossing it rejects (BOUND_EXCEEDED / structured-bytes).
const StructuredBytesLimit = string(wire.ReasonStructuredBytes)

// DefaultStructuredBytes is the default of the structured-bytes limit.
const DefaultStructuredBytes = 4 << 20

// CustomRule is a policy-level secret rule: keywords that trigger it and a
// body pattern checked around each keyword hit (see scanners.CustomRule).
type CustomRule struct {
	ID          string   `json:"id"`
	Keywords    []string `json:"keywords"`
	Pattern     string   `json:"pattern"`
	Description string   `json:"description,omitempty"`
}

// Rules configures the scanner catalog.
type Rules struct {
	Disabled     []string     `json:"disabled,omitempty"`
	Custom       []CustomRule `json:"custom,omitempty"`
	Allowlist    []string     `json:"allowlist,omitempty"`
	SecretMarker string       `json:"secretMarker,omitempty"`
	TagMarker    string       `json:"tagMarker,omitempty"`
	DisableTags  bool         `json:"disableTags,omitempty"`
	// InvalidChecksum says what happens to a match whose built-in checksum
	// fails: "redact" (default) or "keep" (left in the text).
	InvalidChecksum string `json:"invalidChecksum,omitempty"`
	// DisableDecoding switches off the search for secrets inside base64,
	// hex and percent-encoded runs (default on; docs/detection-encoded.md).
	DisableDecoding bool `json:"disableDecoding,omitempty"`
	// Allow lists suppressions: secret matches kept in the text and
	// recorded in evidence (allow.go).
	Allow []AllowEntry `json:"allow,omitempty"`
	// MinConfidence switches off the built-in secret rules below a
	// confidence level: "low" (default: all rules), "medium" or "high"
	// (docs/rules.md lists each rule's). The seed's shapes are high.
	MinConfidence string `json:"minConfidence,omitempty"`
}

// Fingerprint says where the HMAC key for finding fingerprints comes from.
// With neither set, a random key is drawn per process: fingerprints then
// correlate repeats within one process only.
type Fingerprint struct {
	// KeyEnv names an environment variable holding the key (at least 16
	// bytes; hex or base64 are used as given).
	KeyEnv string `json:"keyEnv,omitempty"`
	// KeyFile names a file holding the key.
	KeyFile string `json:"keyFile,omitempty"`
}

// Policy is everything that decides how a message is sanitized. The zero
// Policy is not used directly: DefaultPolicy and LoadPolicy fill defaults.
type Policy struct {
	// Version is recorded in _meta and evidence. Default "default".
	Version string `json:"version,omitempty"`
	// Limits by bound id (see package bounds); unset bounds keep their
	// defaults.
	Limits map[string]int64 `json:"limits,omitempty"`
	// Actions per region.
	Actions Actions `json:"actions,omitempty"`
	// InvalidUTF8 is "replace" (default: each invalid byte sequence or lone
	// surrogate escape becomes U+FFFD and is counted) or "reject".
	InvalidUTF8 string `json:"invalidUTF8,omitempty"`
	// DisableNFKC skips Unicode NFKC (invisible characters are still
	// removed). Default false.
	DisableNFKC bool `json:"disableNFKC,omitempty"`
	// DisableConfusableFold keeps Cyrillic, Greek and Armenian look-alikes of
	// Latin letters in mixed-script words ("<ѕystem>" with a Cyrillic ѕ is
	// folded to "<system>" by default, then neutralized). Default false.
	DisableConfusableFold bool `json:"disableConfusableFold,omitempty"`
	// Normalization is what the output keeps: "nfkc" (default: the
	// normalized text is written) or "lossless" (normalization still drives
	// detection, but the original characters are written wherever nothing
	// was redacted or neutralized; lossless.go).
	Normalization string `json:"normalization,omitempty"`
	// Label of text blocks.
	Label Label `json:"label,omitempty"`
	// AllowedMIME lists the media types allowed for image, audio and blob
	// data. Default: common image and audio types and application/pdf.
	AllowedMIME []string `json:"allowedMIME,omitempty"`
	// Rules of the scanner catalog.
	Rules Rules `json:"rules,omitempty"`
	// Fingerprint key source.
	Fingerprint Fingerprint `json:"fingerprint,omitempty"`
	// ChunkBytes is the read size of the pass. Default 64 KiB.
	ChunkBytes int `json:"chunkBytes,omitempty"`
	// MaxFindings caps the findings listed one by one in evidence; counts
	// per rule stay exact. Default 1000.
	MaxFindings int `json:"maxFindings,omitempty"`
	// Schema configures results of tools that declare an outputSchema.
	Schema SchemaPolicy `json:"schema,omitempty"`
	// Errors rewrites tool execution errors.
	Errors ErrorsPolicy `json:"errors,omitempty"`
	// Binary says what happens to a disallowed binary content block.
	Binary BinaryPolicy `json:"binary,omitempty"`
	// Digest is the hash of the input and output digests in evidence:
	// "auto" (default: SHA-256 up to 4 KiB, BLAKE3 above, whichever is
	// faster), "blake3" or "sha256" (for FIPS-bound deployments; it costs
	// about a fifth of the pass on large messages). Each digest names its
	// algorithm ("sha256:<hex>", "blake3:<hex>").
	Digest string `json:"digest,omitempty"`
	// Pinning is what a tools/list does with a tool whose definition
	// differs from its pin (guard_pins.go, docs/pinning.md): "warn"
	// (default: forwarded, flagged in evidence), "hold" (kept out of the
	// list until approved; so is a tool whose pin could not be checked)
	// or "off". It applies when the caller gives a PinStore.
	Pinning string `json:"pinning,omitempty"`
	// Notifications bounds the notifications of one server
	// (NotificationPolicy; applied by the worker and the proxy).
	Notifications NotificationPolicy `json:"notifications,omitempty"`
	// Resources configures the resources/read guard of G003 (package
	// resgate, docs/resources.md); nil leaves resource results to the
	// generic pass alone.
	Resources *resgate.Policy `json:"resources,omitempty"`
	// Prompts configures the prompts/get guard of G004 (package
	// promptgate): allow-listed names, argument validators, roles and
	// forbidden markers.
	Prompts *promptgate.PromptsPolicy `json:"prompts,omitempty"`
	// Completions configures the completion/complete guard of G004:
	// completable arguments, visibility and the per-principal budget.
	Completions *promptgate.CompletionsPolicy `json:"completions,omitempty"`
}

// DefaultLabelTemplate is the seed's G001 label.
const DefaultLabelTemplate = "Untrusted tool output from {tool}:\n"

var defaultMIME = []string{
	"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/avif",
	"audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/webm",
	"audio/flac", "audio/aac", "audio/mp4",
	"application/pdf",
}

// DefaultPolicy returns the policy used with no policy file.
func DefaultPolicy() *Policy {
	p := &Policy{}
	p.fillDefaults()
	return p
}

func (p *Policy) fillDefaults() {
	if p.Version == "" {
		p.Version = "default"
	}
	if p.Actions.Text == "" {
		p.Actions.Text = ActionTruncate
	}
	if p.Actions.Structured == "" {
		p.Actions.Structured = ActionReject
	}
	if p.Actions.Other == "" {
		p.Actions.Other = ActionTruncate
	}
	if p.InvalidUTF8 == "" {
		p.InvalidUTF8 = "replace"
	}
	if p.Normalization == "" {
		p.Normalization = NormalizationNFKC
	}
	if p.Label.Template == "" {
		p.Label.Template = DefaultLabelTemplate
	}
	if p.AllowedMIME == nil {
		p.AllowedMIME = append([]string(nil), defaultMIME...)
	}
	if p.ChunkBytes == 0 {
		p.ChunkBytes = 64 << 10
	}
	if p.MaxFindings == 0 {
		p.MaxFindings = 1000
	}
	if p.Schema.Projection == nil {
		on := true
		p.Schema.Projection = &on
	}
	if p.Digest == "" {
		p.Digest = DigestAuto
	}
	if p.Binary.Disallowed == "" {
		p.Binary.Disallowed = BinaryReplace
	}
	if p.Errors.Default == "" {
		p.Errors.Default = CodeToolError.PublicMessage()
	}
	p.Errors.fillDefaults()
}

// ErrPolicy is wrapped by every policy validation error.
var ErrPolicy = errors.New("invalid policy")

// versionRE and errorCodeRE are the syntax of a policy version and of an
// error code: 1 to 64 of [A-Za-z0-9._:-].
var (
	versionRE   = idSyntax(`^[A-Za-z0-9._:-]{1,64}$`)
	errorCodeRE = idSyntax(`^[A-Za-z0-9_.:-]{1,64}$`)
)

// idSyntax is a pattern of the form ^[A-Za-z0-9._:-]{1,64}$ (the class in
// any order), matched by hand: compiled, the {1,64} is 64 copies of the
// class, about 0.45 M instructions for each pattern at every start of a
// process that validates a policy. TestIDSyntaxMatchesRegexp compares it
// with the compiled pattern. String returns the pattern, for messages.
type idSyntax string

func (p idSyntax) String() string { return string(p) }

// MatchString reports whether s is 1 to 64 bytes of [A-Za-z0-9._:-].
func (p idSyntax) MatchString(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.' || c == '_' || c == ':' || c == '-':
		default:
			return false
		}
	}
	return true
}

// limits resolves the bound limits, validating ids and values.
func (p *Policy) limits() (bounds.Limits, error) {
	l := bounds.Defaults()
	for k, v := range p.Limits {
		if k == StructuredBytesLimit || k == BinaryHoldBytesLimit || k == BlockJoinBytesLimit || k == KindGuardBytesLimit {
			continue // limits of the pipeline, checked by structuredBytes and binaryHoldBytes
		}
		b, ok := bounds.Parse(k)
		if !ok {
			return l, fmt.Errorf("%w: limits: unknown bound %q (known: %s)", ErrPolicy, k, boundIDs())
		}
		l[b] = v
	}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("%w: limits: %v", ErrPolicy, err)
	}
	return l, nil
}

func boundIDs() string {
	var s []string
	for _, b := range bounds.All() {
		s = append(s, b.String())
	}
	s = append(s, StructuredBytesLimit, BinaryHoldBytesLimit, BlockJoinBytesLimit, KindGuardBytesLimit)
	return strings.Join(s, ", ")
}

// structuredBytes returns the structured-bytes limit.
func (p *Policy) structuredBytes() (int64, error) {
	v, ok := p.Limits[StructuredBytesLimit]
	if !ok {
		return DefaultStructuredBytes, nil
	}
	if v <= 0 || v > 1<<30 {
		return 0, fmt.Errorf("%w: limits: %s must be between 1 and 1073741824", ErrPolicy, StructuredBytesLimit)
	}
	return v, nil
}

// binaryHoldBytes returns the binary-hold-bytes limit.
func (p *Policy) binaryHoldBytes() (int64, error) {
	v, ok := p.Limits[BinaryHoldBytesLimit]
	if !ok {
		return DefaultBinaryHoldBytes, nil
	}
	if v <= 0 || v > 1<<30 {
		return 0, fmt.Errorf("%w: limits: %s must be between 1 and 1073741824", ErrPolicy, BinaryHoldBytesLimit)
	}
	return v, nil
}

// validPublicMessage checks a public message of the errors policy: text an
// agent reads, so no control characters and a bounded length.
func validPublicMessage(m string) bool {
	if m == "" || len(m) > 1024 || !utf8.ValidString(m) {
		return false
	}
	for _, r := range m {
		if r < 0x20 && r != '\n' || r == 0x7f {
			return false
		}
	}
	return true
}

// Validate fills defaults and checks every field, returning an error that
// names the field.
func (p *Policy) Validate() error {
	p.fillDefaults()
	if !versionRE.MatchString(p.Version) {
		return fmt.Errorf("%w: version must match %s", ErrPolicy, versionRE)
	}
	if _, err := p.limits(); err != nil {
		return err
	}
	if _, err := p.kindGuardBytes(); err != nil {
		return err
	}
	if err := checkPinning(p.Pinning); err != nil {
		return err
	}
	if err := p.Notifications.validate(); err != nil {
		return err
	}
	if _, err := p.structuredBytes(); err != nil {
		return err
	}
	if _, err := p.binaryHoldBytes(); err != nil {
		return err
	}
	if d := p.Binary.Disallowed; d != BinaryReplace && d != BinaryReject {
		return fmt.Errorf("%w: binary.disallowed must be %q or %q", ErrPolicy, BinaryReplace, BinaryReject)
	}
	for code, m := range p.Errors.Map {
		if !errorCodeRE.MatchString(code) {
			return fmt.Errorf("%w: errors.map: code %q must match %s", ErrPolicy, code, errorCodeRE)
		}
		if !validPublicMessage(m) {
			return fmt.Errorf("%w: errors.map[%s]: a message is 1 to 1024 bytes of UTF-8 text without control characters (newline allowed)", ErrPolicy, code)
		}
	}
	if !validPublicMessage(p.Errors.Default) {
		return fmt.Errorf("%w: errors.default: a message is 1 to 1024 bytes of UTF-8 text without control characters (newline allowed)", ErrPolicy)
	}
	if err := p.Errors.validateModes(); err != nil {
		return err
	}
	for name, a := range map[string]Action{"text": p.Actions.Text, "structured": p.Actions.Structured, "other": p.Actions.Other} {
		if a != ActionTruncate && a != ActionReject {
			return fmt.Errorf("%w: actions.%s must be %q or %q, not %q", ErrPolicy, name, ActionTruncate, ActionReject, a)
		}
	}
	if p.Digest != DigestAuto && p.Digest != DigestBLAKE3 && p.Digest != DigestSHA256 {
		return fmt.Errorf("%w: digest must be %q, %q or %q", ErrPolicy, DigestAuto, DigestBLAKE3, DigestSHA256)
	}
	if p.InvalidUTF8 != "replace" && p.InvalidUTF8 != "reject" {
		return fmt.Errorf("%w: invalidUTF8 must be \"replace\" or \"reject\"", ErrPolicy)
	}
	if p.Normalization != NormalizationNFKC && p.Normalization != NormalizationLossless {
		return fmt.Errorf("%w: normalization must be %q or %q", ErrPolicy, NormalizationNFKC, NormalizationLossless)
	}
	if len(p.Label.Template) > 512 {
		return fmt.Errorf("%w: label.template longer than 512 bytes", ErrPolicy)
	}
	for _, m := range p.AllowedMIME {
		if m == "" || strings.ContainsAny(m, " \t\r\n;") || !strings.Contains(m, "/") {
			return fmt.Errorf("%w: allowedMIME: %q is not a media type", ErrPolicy, m)
		}
	}
	if p.ChunkBytes < 512 || p.ChunkBytes > 16<<20 {
		return fmt.Errorf("%w: chunkBytes must be between 512 and 16777216", ErrPolicy)
	}
	if p.MaxFindings < 0 || p.MaxFindings > 1_000_000 {
		return fmt.Errorf("%w: maxFindings must be between 0 and 1000000", ErrPolicy)
	}
	if c := p.Rules.InvalidChecksum; c != "" && c != "redact" && c != "keep" {
		return fmt.Errorf("%w: rules.invalidChecksum must be \"redact\" or \"keep\"", ErrPolicy)
	}
	if err := p.Rules.validateAllow(); err != nil {
		return err
	}
	if p.Fingerprint.KeyEnv != "" && p.Fingerprint.KeyFile != "" {
		return fmt.Errorf("%w: fingerprint: set keyEnv or keyFile, not both", ErrPolicy)
	}
	if _, err := compileGuards(p); err != nil {
		return err
	}
	return nil
}

func (p *Policy) catalogOptions() scanners.CatalogOptions {
	o := scanners.CatalogOptions{
		Disabled:     p.Rules.Disabled,
		Allowlist:    p.Rules.Allowlist,
		SecretMarker: p.Rules.SecretMarker,
		TagMarker:    p.Rules.TagMarker,
		DisableTags:  p.Rules.DisableTags,

		KeepInvalidChecksum: p.Rules.InvalidChecksum == "keep",
		DisableDecoding:     p.Rules.DisableDecoding,
		// Keeping look-alikes keeps them for detection too.
		DisableSkeleton: p.DisableConfusableFold,
	}
	for _, c := range p.Rules.Custom {
		o.Custom = append(o.Custom, scanners.CustomRule{ID: c.ID, Keywords: c.Keywords, Pattern: c.Pattern, Description: c.Description})
	}
	if below := belowConfidence(p.Rules.MinConfidence); len(below) > 0 {
		o.Disabled = append(append([]string(nil), o.Disabled...), below...)
	}
	return o
}

// fingerprintKey resolves the HMAC key. ok is false when no source is set
// and the caller should draw a random key.
func (p *Policy) fingerprintKey() (key []byte, ok bool, err error) {
	switch {
	case p.Fingerprint.KeyEnv != "":
		v := os.Getenv(p.Fingerprint.KeyEnv)
		if len(v) < 16 {
			return nil, false, fmt.Errorf("%w: fingerprint.keyEnv: variable %s is unset or shorter than 16 bytes", ErrPolicy, p.Fingerprint.KeyEnv)
		}
		return []byte(v), true, nil
	case p.Fingerprint.KeyFile != "":
		b, err := os.ReadFile(p.Fingerprint.KeyFile)
		if err != nil {
			return nil, false, fmt.Errorf("%w: fingerprint.keyFile: cannot read the key file", ErrPolicy)
		}
		b = bytes.TrimSpace(b)
		if len(b) < 16 {
			return nil, false, fmt.Errorf("%w: fingerprint.keyFile: key shorter than 16 bytes", ErrPolicy)
		}
		return b, true, nil
	}
	return nil, false, nil
}

// ParsePolicy decodes a policy from JSON or YAML (YAML is a superset; the
// field names are the same) and validates it. Unknown fields are errors.
func ParsePolicy(data []byte) (*Policy, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: not JSON or YAML: %v", ErrPolicy, err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	p := &Policy{}
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadPolicy reads a policy file (.json, .yaml or .yml).
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read %s: %v", ErrPolicy, filepath.Base(path), errors.Unwrap(err))
	}
	if len(b) > 4<<20 {
		return nil, fmt.Errorf("%w: %s is larger than 4 MiB", ErrPolicy, filepath.Base(path))
	}
	return ParsePolicy(b)
}
