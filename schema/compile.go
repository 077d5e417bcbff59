package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Defaults of Limits.
const (
	// DefaultMaxSchemaBytes is the largest schema text Compile accepts: 1 MiB.
	DefaultMaxSchemaBytes = 1 << 20
	// DefaultMaxDepth is the deepest nesting of arrays and objects a schema
	// may have: 64. It is also the most the canonicalizer accepts
	// (jcs.DefaultMaxDepth), so larger values are lowered to 64.
	DefaultMaxDepth = jcs.DefaultMaxDepth
	// DefaultMaxEvaluations is the default Limits.MaxEvaluations: about
	// 0.1 to 0.3 s of evaluation; a typical value costs 2 to 10 per JSON
	// value it holds.
	DefaultMaxEvaluations = 4 << 20
)

// Limits bound what Compile accepts. The zero value means the defaults.
type Limits struct {
	// MaxSchemaBytes caps the schema text (default DefaultMaxSchemaBytes,
	// 1 MiB); larger schemas fail with CodeTooLarge.
	MaxSchemaBytes int
	// MaxDepth caps the nesting of arrays and objects in the schema text
	// (default DefaultMaxDepth, 64, which is also the maximum); deeper
	// schemas fail with CodeTooDeep.
	MaxDepth int
	// MaxEvaluations caps the schemas entered while validating one value
	// on the fast path (default DefaultMaxEvaluations). Some schemas apply
	// one subschema to the same value along several paths, which makes
	// evaluation exponential in the depth of the value; past the cap the
	// value is invalid (keyword "evaluationLimit"), never valid.
	MaxEvaluations int
	// AssertFormat makes "format" an assertion. Off by default: draft
	// 2020-12 defines "format" as an annotation, and the official test
	// suite's required cases expect exactly that.
	AssertFormat bool
}

func (l Limits) withDefaults() Limits {
	if l.MaxSchemaBytes <= 0 {
		l.MaxSchemaBytes = DefaultMaxSchemaBytes
	}
	if l.MaxDepth <= 0 || l.MaxDepth > DefaultMaxDepth {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxEvaluations <= 0 {
		l.MaxEvaluations = DefaultMaxEvaluations
	}
	return l
}

// rootURL is the base URI of every compiled schema. The .invalid top-level
// domain never resolves (RFC 6761), and the loader refuses every URL anyway;
// a hierarchical base makes relative references resolve as the suite expects.
const rootURL = "https://schema.mcp-sanitize.invalid/root.json"

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	s      *jsonschema.Schema
	fast   *fnode // nil: no fast path (see fast.go)
	nodes  map[*jsonschema.Schema]*fnode
	budget int // Limits.MaxEvaluations
	digest string
	size   int
	binary map[string]bool // Locations declaring base64 content (binary.go)
}

// Digest returns "sha256:" + the hex SHA-256 of the RFC 8785 canonical form
// of the schema text.
func (s *Schema) Digest() string { return s.digest }

// Size returns the length of the schema text Compile was given.
func (s *Schema) Size() int { return s.size }

// Digest returns the digest Compile would give raw (without compiling it),
// or an error when raw is not strict JSON or exceeds the limits.
func Digest(raw []byte, lim Limits) (string, error) {
	_, d, err := prepare(raw, lim.withDefaults())
	return d, err
}

// prepare checks the limits, decodes raw strictly and digests it.
func prepare(raw []byte, lim Limits) (doc any, digest string, err error) {
	if len(raw) > lim.MaxSchemaBytes {
		return nil, "", newErr(CodeTooLarge, ReasonSize)
	}
	doc, err = decodeWith(raw, lim.MaxDepth, CodeInvalid, CodeTooDeep)
	if err != nil {
		return nil, "", err
	}
	digest, err = digestOf(raw)
	if err != nil {
		return nil, "", err
	}
	return doc, digest, nil
}

func digestOf(raw []byte) (string, error) {
	canon, err := jcs.Canonicalize(raw)
	if err != nil {
		return "", newErr(CodeInvalid, ReasonSyntax)
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Compile compiles a JSON Schema. Draft 2020-12 applies when "$schema" is
// absent. References may only reach the schema itself and the official
// meta-schemas the library bundles: anything else is CodeRefDenied, a
// reference whose target does not exist is CodeRefUnresolved. Errors are
// *Error and carry no schema text.
func Compile(raw []byte, lim Limits) (*Schema, error) {
	return compile(raw, lim, nil)
}

// denyLoader is the loader of production compiles: it is only asked for
// URLs that are not bundled meta-schemas, and refuses every one. A remote
// loader (the test suite's) may stand behind it.
type denyLoader struct {
	remote func(url string) (any, error)
	denied bool
}

var errDenied = errors.New("reference denied")

func (l *denyLoader) Load(url string) (any, error) {
	if l.remote != nil {
		if doc, err := l.remote(url); err == nil {
			return doc, nil
		}
	}
	l.denied = true
	return nil, errDenied
}

func compile(raw []byte, lim Limits, remote func(string) (any, error)) (*Schema, error) {
	lim = lim.withDefaults()
	doc, digest, err := prepare(raw, lim)
	if err != nil {
		return nil, err
	}
	s, err := compileDoc(doc, lim, remote)
	if err != nil {
		return nil, err
	}
	return newSchema(s, doc, lim, digest, len(raw)), nil
}

func compileDoc(doc any, lim Limits, remote func(string) (any, error)) (s *jsonschema.Schema, err error) {
	// The library is well tested, but a compile must never take the
	// process down on a hostile schema: a panic is an invalid schema.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, newErr(CodeInvalid, ReasonCompile)
		}
	}()
	loader := &denyLoader{remote: remote}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader)
	if lim.AssertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource(rootURL, doc); err != nil {
		return nil, newErr(CodeInvalid, ReasonCompile)
	}
	s, err = c.Compile(rootURL)
	if err != nil {
		return nil, classify(err, loader.denied)
	}
	return s, nil
}

// classify maps a library compile error to a code without keeping its text.
func classify(err error, denied bool) *Error {
	if denied {
		return newErr(CodeRefDenied, ReasonExternalRef)
	}
	var (
		ptr     *jsonschema.JSONPointerNotFoundError
		anchor  *jsonschema.AnchorNotFoundError
		meta    *jsonschema.SchemaValidationError
		regex   *jsonschema.InvalidRegexError
		draft   *jsonschema.UnsupportedDraftError
		load    *jsonschema.LoadURLError
		scheme  *jsonschema.UnsupportedURLSchemeError
		metaURL *jsonschema.InvalidMetaSchemaURLError
	)
	switch {
	case errors.As(err, &ptr), errors.As(err, &anchor):
		return newErr(CodeRefUnresolved, ReasonMissingTarget)
	case errors.As(err, &load), errors.As(err, &scheme):
		return newErr(CodeRefDenied, ReasonExternalRef)
	case errors.As(err, &regex):
		return newErr(CodeInvalid, ReasonRegexp)
	case errors.As(err, &meta):
		return newErr(CodeInvalid, ReasonMetaSchema)
	case errors.As(err, &draft), errors.As(err, &metaURL):
		return newErr(CodeInvalid, ReasonDialect)
	}
	return newErr(CodeInvalid, ReasonCompile)
}
