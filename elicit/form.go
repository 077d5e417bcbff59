package elicit

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"slices"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Form-mode elicitation guard (seed G005).
//
// A form request is accepted only when a signed form policy covers it: the
// policy (signed with Ed25519 over its RFC 8785 canonical form by a reviewer
// whose public key the fleet trusts) names the SHA-256 of the canonical
// requested schema, an expiry, a response byte cap, and for each field a
// data class and a purpose. The schema must be the flat form schema of the
// MCP spec, no field may belong to a prohibited data class, and no field may
// ask for sensitive data in disguise (see sensitive.go).

// Limits of the form guard.
const (
	// DefaultMaxFormFields is a rule's field cap when it sets none.
	DefaultMaxFormFields = 16
	// HardMaxFormFields is the field cap no rule can exceed.
	HardMaxFormFields = 64
	// HardMaxResponseBytes is the response cap no rule can exceed.
	HardMaxResponseBytes = 64 << 10
	// maxPolicyBytes caps a signed policy document.
	maxPolicyBytes = 256 << 10
	// maxFormText caps titles, descriptions, purposes and messages.
	maxFormText = 4096
)

// FormPolicyVersion is the version of the form policy document.
const FormPolicyVersion = 1

var (
	fieldNamePattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	dataClassPattern = lazyre.New(`^[a-z][a-z0-9_]{0,63}$`)
	hexDigestPattern = lazyre.New(`^[0-9a-f]{64}$`)
	policyIDPattern  = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)
)

// SignedFormPolicy is statekeys.SignedFormPolicy: a policy as it travels
// with a seal request or in configuration.
type SignedFormPolicy = statekeys.SignedFormPolicy

// FormPolicy is a verified form policy.
type FormPolicy struct {
	Version  int                 `json:"version"`
	PolicyID string              `json:"policyId"`
	Forms    map[string]FormRule `json:"forms"`
}

// FormRule approves one form schema.
type FormRule struct {
	// SchemaSHA256 is the lower-case hex SHA-256 of the RFC 8785 form of the
	// requestedSchema this rule approves.
	SchemaSHA256 string `json:"schemaSha256"`
	// ExpiresAt ends the approval; it is checked when the form is requested
	// and again when its response returns.
	ExpiresAt time.Time `json:"expiresAt"`
	// MaxResponseBytes caps the canonical size of the response content
	// (1..HardMaxResponseBytes).
	MaxResponseBytes int `json:"maxResponseBytes"`
	// MaxFields caps the number of fields; 0 means DefaultMaxFormFields.
	MaxFields int `json:"maxFields,omitempty"`
	// Fields gives every field of the schema a data class and a purpose.
	Fields map[string]FieldRule `json:"fields"`
}

// FieldRule classifies one form field.
type FieldRule struct {
	DataClass string `json:"dataClass"`
	Purpose   string `json:"purpose"`
}

// SignFormPolicy signs a policy document for reviewer tooling and tests.
// The document is checked as VerifyFormPolicy would check it.
func SignFormPolicy(priv ed25519.PrivateKey, keyID string, policy []byte) (statekeys.SignedFormPolicy, error) {
	c, err := jcs.Canonicalize(policy)
	if err != nil {
		return statekeys.SignedFormPolicy{}, formRefused(statekeys.ReasonFormPolicyInvalid, "", "")
	}
	if _, e := decodeFormPolicy(c); e != nil {
		return statekeys.SignedFormPolicy{}, e
	}
	sig := ed25519.Sign(priv, c)
	return statekeys.SignedFormPolicy{Policy: c, KeyID: keyID, Signature: base64.RawURLEncoding.EncodeToString(sig)}, nil
}

// VerifyFormPolicy checks the signature of s against the trusted reviewer
// keys and decodes the policy. Expiry is per rule and checked on use.
func VerifyFormPolicy(s statekeys.SignedFormPolicy, trusted map[string]ed25519.PublicKey) (*FormPolicy, error) {
	if len(s.Policy) == 0 || len(s.Policy) > maxPolicyBytes {
		return nil, formRefused(statekeys.ReasonFormPolicyInvalid, "", "")
	}
	pub, ok := trusted[s.KeyID]
	if !ok || len(pub) != ed25519.PublicKeySize {
		return nil, formRefused(statekeys.ReasonFormPolicyForged, "", "")
	}
	// The re-encoding check gives a signature one spelling: the decoder
	// skips CR and LF.
	sig, err := base64.RawURLEncoding.Strict().DecodeString(s.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize || base64.RawURLEncoding.EncodeToString(sig) != s.Signature {
		return nil, formRefused(statekeys.ReasonFormPolicyForged, "", "")
	}
	c, err := jcs.Canonicalize(s.Policy)
	if err != nil {
		return nil, formRefused(statekeys.ReasonFormPolicyInvalid, "", "")
	}
	if !ed25519.Verify(pub, c, sig) {
		return nil, formRefused(statekeys.ReasonFormPolicyForged, "", "")
	}
	p, e := decodeFormPolicy(c)
	if e != nil {
		return nil, e
	}
	return p, nil
}

func decodeFormPolicy(c []byte) (*FormPolicy, *statekeys.Error) {
	bad := formRefused(statekeys.ReasonFormPolicyInvalid, "", "")
	var p FormPolicy
	if err := strictUnmarshal(c, &p); err != nil {
		return nil, bad
	}
	if p.Version != FormPolicyVersion || !policyIDPattern.MatchString(p.PolicyID) || len(p.Forms) == 0 {
		return nil, bad
	}
	for id, r := range p.Forms {
		if !policyIDPattern.MatchString(id) || !hexDigestPattern.MatchString(r.SchemaSHA256) ||
			r.ExpiresAt.IsZero() || r.MaxResponseBytes <= 0 || r.MaxResponseBytes > HardMaxResponseBytes ||
			r.MaxFields < 0 || r.MaxFields > HardMaxFormFields || len(r.Fields) == 0 {
			return nil, bad
		}
		for name, f := range r.Fields {
			if !fieldNamePattern.MatchString(name) || !dataClassPattern.MatchString(f.DataClass) ||
				!validText(f.Purpose, maxFormText) {
				return nil, bad
			}
		}
	}
	return &p, nil
}

// FormApproval is statekeys.FormApproval: what a covered form request
// yields, everything needed to validate its response later.
type FormApproval = statekeys.FormApproval

// CheckFormRequest checks the params of a form-mode elicitation/create
// request (ElicitRequestFormParams) against verified policies at time now.
func CheckFormRequest(params json.RawMessage, policies []*FormPolicy, now time.Time) (*FormApproval, error) {
	v, err := jcs.Parse(params, jcs.DefaultMaxDepth)
	if err != nil {
		return nil, formRefused(statekeys.ReasonFormSchemaInvalid, "", "")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, formRefused(statekeys.ReasonFormSchemaInvalid, "", "")
	}
	if mode, present := m["mode"]; present && mode != "form" {
		return nil, formRefused(statekeys.ReasonFormSchemaInvalid, "", "")
	}
	schema, _ := m["requestedSchema"].(map[string]any)
	c, err := jcs.Append(nil, schema)
	if schema == nil || err != nil {
		return nil, formRefused(statekeys.ReasonFormSchemaInvalid, "", "")
	}
	ir := statekeys.Elicitation{Params: m, Schema: schema, SchemaDigest: sha256Hex(c)}
	a, e := checkForm(ir, policies, now)
	if e != nil {
		return nil, e
	}
	return a, nil
}

// checkForm runs the whole form guard on one parsed input request.
func checkForm(ir statekeys.Elicitation, policies []*FormPolicy, now time.Time) (*FormApproval, *statekeys.Error) {
	msg, _ := ir.Params["message"].(string)
	if !validText(msg, maxFormText) {
		return nil, formRefused(statekeys.ReasonFormMessage, ir.Key, "")
	}
	fields, e := checkFormSchema(ir.Key, ir.Schema)
	if e != nil {
		return nil, e
	}
	if len(policies) == 0 {
		return nil, formRefused(statekeys.ReasonFormNoPolicy, ir.Key, "")
	}
	var expired bool
	for _, p := range policies {
		ids := make([]string, 0, len(p.Forms))
		for id := range p.Forms {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			r := p.Forms[id]
			if r.SchemaSHA256 != ir.SchemaDigest {
				continue
			}
			if !now.Before(r.ExpiresAt) {
				expired = true
				continue
			}
			maxFields := r.MaxFields
			if maxFields == 0 {
				maxFields = DefaultMaxFormFields
			}
			if len(fields) > maxFields {
				return nil, formRefused(statekeys.ReasonFormSchemaInvalid, ir.Key, "")
			}
			for _, f := range fields {
				fr, ok := r.Fields[f]
				if !ok {
					return nil, formRefused(statekeys.ReasonFormFieldUnlisted, ir.Key, f)
				}
				if ProhibitedDataClasses[fr.DataClass] {
					return nil, formRefused(statekeys.ReasonFormProhibitedData, ir.Key, f)
				}
			}
			return &FormApproval{
				PolicyID:         p.PolicyID,
				FormID:           id,
				SchemaDigest:     ir.SchemaDigest,
				MaxResponseBytes: r.MaxResponseBytes,
				ExpiresAt:        r.ExpiresAt,
			}, nil
		}
	}
	if expired {
		return nil, formRefused(statekeys.ReasonPolicyExpired, ir.Key, "")
	}
	return nil, formRefused(statekeys.ReasonFormNotCovered, ir.Key, "")
}

// Allowed keywords of the flat form schema (MCP PrimitiveSchemaDefinition).
var (
	topKeywords     = set("$schema", "type", "properties", "required", "title", "description")
	stringKeywords  = set("type", "title", "description", "default", "format", "minLength", "maxLength", "enum", "enumNames", "oneOf")
	numberKeywords  = set("type", "title", "description", "default", "minimum", "maximum")
	booleanKeywords = set("type", "title", "description", "default")
	arrayKeywords   = set("type", "title", "description", "default", "items", "minItems", "maxItems")
	stringFormats   = set("date", "date-time", "email", "uri")
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// checkFormSchema checks that schema is a flat object of primitive
// properties (string-enum arrays only) and that nothing in it asks for
// sensitive data. It returns the field names, sorted.
func checkFormSchema(key string, schema map[string]any) ([]string, *statekeys.Error) {
	invalid := func(field string) *statekeys.Error { return formRefused(statekeys.ReasonFormSchemaInvalid, key, field) }
	disguised := func(field string) *statekeys.Error { return formRefused(statekeys.ReasonFormDisguised, key, field) }
	for k, v := range schema {
		if !topKeywords[k] {
			return nil, invalid("")
		}
		if k == "title" || k == "description" {
			s, ok := v.(string)
			if !ok || len(s) > maxFormText {
				return nil, invalid("")
			}
			if _, hit := sensitiveText(s); hit {
				return nil, disguised("")
			}
		}
	}
	if schema["type"] != "object" {
		return nil, invalid("")
	}
	if s, present := schema["$schema"]; present && s != "https://json-schema.org/draft/2020-12/schema" {
		return nil, invalid("")
	}
	props, ok := schema["properties"].(map[string]any)
	if !ok || len(props) == 0 || len(props) > HardMaxFormFields {
		return nil, invalid("")
	}
	fields := make([]string, 0, len(props))
	for name := range props {
		if !fieldNamePattern.MatchString(name) {
			return nil, invalid("")
		}
		fields = append(fields, name)
	}
	slices.Sort(fields)
	for _, name := range fields {
		if _, hit := sensitiveText(name); hit {
			return nil, disguised(name)
		}
		fs, ok := props[name].(map[string]any)
		if !ok {
			return nil, invalid(name)
		}
		if r := checkField(fs); r != statekeys.ReasonNone {
			return nil, formRefused(r, key, name)
		}
	}
	if req, present := schema["required"]; present {
		arr, ok := req.([]any)
		if !ok {
			return nil, invalid("")
		}
		seen := map[string]bool{}
		for _, x := range arr {
			s, ok := x.(string)
			if !ok || seen[s] || props[s] == nil {
				return nil, invalid("")
			}
			seen[s] = true
		}
	}
	return fields, nil
}

// checkField checks one property schema; it returns statekeys.ReasonNone,
// statekeys.ReasonFormDisguised or statekeys.ReasonFormSchemaInvalid.
func checkField(fs map[string]any) statekeys.Reason {
	// Texts shown to the user: any of them may disguise a request.
	for _, k := range []string{"title", "description", "format"} {
		if v, present := fs[k]; present {
			s, ok := v.(string)
			if !ok || len(s) > maxFormText {
				return statekeys.ReasonFormSchemaInvalid
			}
			if _, hit := sensitiveText(s); hit {
				return statekeys.ReasonFormDisguised
			}
		}
	}
	typ, _ := fs["type"].(string)
	var allowed map[string]bool
	switch typ {
	case "string":
		allowed = stringKeywords
	case "number", "integer":
		allowed = numberKeywords
	case "boolean":
		allowed = booleanKeywords
	case "array":
		allowed = arrayKeywords
	default:
		return statekeys.ReasonFormSchemaInvalid
	}
	for k := range fs {
		if !allowed[k] {
			return statekeys.ReasonFormSchemaInvalid
		}
	}
	for k, v := range fs {
		switch k {
		case "format":
			if !stringFormats[v.(string)] {
				return statekeys.ReasonFormSchemaInvalid
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			if !nonNegativeInt(v) {
				return statekeys.ReasonFormSchemaInvalid
			}
		case "minimum", "maximum":
			if _, ok := v.(json.Number); !ok {
				return statekeys.ReasonFormSchemaInvalid
			}
		case "enum", "enumNames":
			if r := checkStringList(v); r != statekeys.ReasonNone {
				return r
			}
		case "oneOf":
			if r := checkOptions(v); r != statekeys.ReasonNone {
				return r
			}
		case "items":
			items, ok := v.(map[string]any)
			if !ok {
				return statekeys.ReasonFormSchemaInvalid
			}
			if r := checkItems(items); r != statekeys.ReasonNone {
				return r
			}
		case "default":
			switch typ {
			case "string":
				if _, ok := v.(string); !ok {
					return statekeys.ReasonFormSchemaInvalid
				}
			case "number", "integer":
				if _, ok := v.(json.Number); !ok {
					return statekeys.ReasonFormSchemaInvalid
				}
			case "boolean":
				if _, ok := v.(bool); !ok {
					return statekeys.ReasonFormSchemaInvalid
				}
			case "array":
				if r := checkStringList(v); r != statekeys.ReasonNone {
					return r
				}
			}
		}
	}
	if typ == "array" && fs["items"] == nil {
		return statekeys.ReasonFormSchemaInvalid
	}
	return statekeys.ReasonNone
}

// checkItems: {type: string, enum: [...]} or {anyOf: [{const, title}]}.
func checkItems(items map[string]any) statekeys.Reason {
	if _, ok := items["anyOf"]; ok {
		for k := range items {
			if k != "anyOf" && k != "type" {
				return statekeys.ReasonFormSchemaInvalid
			}
		}
		if t, present := items["type"]; present && t != "string" {
			return statekeys.ReasonFormSchemaInvalid
		}
		return checkOptions(items["anyOf"])
	}
	for k := range items {
		if k != "type" && k != "enum" {
			return statekeys.ReasonFormSchemaInvalid
		}
	}
	if items["type"] != "string" || items["enum"] == nil {
		return statekeys.ReasonFormSchemaInvalid
	}
	return checkStringList(items["enum"])
}

func checkStringList(v any) statekeys.Reason {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 || len(arr) > 256 {
		return statekeys.ReasonFormSchemaInvalid
	}
	for _, x := range arr {
		s, ok := x.(string)
		if !ok || len(s) > maxFormText {
			return statekeys.ReasonFormSchemaInvalid
		}
		if _, hit := sensitiveText(s); hit {
			return statekeys.ReasonFormDisguised
		}
	}
	return statekeys.ReasonNone
}

func checkOptions(v any) statekeys.Reason {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 || len(arr) > 256 {
		return statekeys.ReasonFormSchemaInvalid
	}
	for _, x := range arr {
		o, ok := x.(map[string]any)
		if !ok || len(o) != 2 {
			return statekeys.ReasonFormSchemaInvalid
		}
		c, ok1 := o["const"].(string)
		t, ok2 := o["title"].(string)
		if !ok1 || !ok2 || len(c) > maxFormText || len(t) > maxFormText {
			return statekeys.ReasonFormSchemaInvalid
		}
		if _, hit := sensitiveText(t); hit {
			return statekeys.ReasonFormDisguised
		}
	}
	return statekeys.ReasonNone
}

func nonNegativeInt(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	i, err := n.Int64()
	return err == nil && i >= 0
}

// Elicitation responses.

// ElicitationResponse is a validated ElicitResult. Content is the RFC 8785
// canonical form of the accepted content, present only for an accepted
// form.
type ElicitationResponse struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// parseElicitResult checks the shape of an ElicitResult: only action,
// content and _meta; a known action; content only with accept.
func parseElicitResult(v any) (string, map[string]any, statekeys.Reason) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", nil, statekeys.ReasonResponseInvalid
	}
	for k := range m {
		if k != "action" && k != "content" && k != "_meta" {
			return "", nil, statekeys.ReasonResponseInvalid
		}
	}
	if meta, present := m["_meta"]; present {
		if _, ok := meta.(map[string]any); !ok {
			return "", nil, statekeys.ReasonResponseInvalid
		}
	}
	action, _ := m["action"].(string)
	switch action {
	case statekeys.ActionAccept, statekeys.ActionDecline, statekeys.ActionCancel:
	default:
		return "", nil, statekeys.ReasonResponseAction
	}
	c, present := m["content"]
	if !present {
		return action, nil, statekeys.ReasonNone
	}
	if action != statekeys.ActionAccept {
		return "", nil, statekeys.ReasonResponseInvalid
	}
	content, ok := c.(map[string]any)
	if !ok {
		return "", nil, statekeys.ReasonResponseInvalid
	}
	return action, content, statekeys.ReasonNone
}

// validateFormResponse validates one ElicitResult for a form against the
// requested schema (compiled) and the approval's cap and expiry.
func validateFormResponse(v any, sch *jsonschema.Schema, maxBytes int, policyExpiry, now time.Time) (ElicitationResponse, statekeys.Reason) {
	action, content, r := parseElicitResult(v)
	if r != statekeys.ReasonNone {
		return ElicitationResponse{}, r
	}
	if action != statekeys.ActionAccept {
		return ElicitationResponse{Action: action}, statekeys.ReasonNone
	}
	if !now.Before(policyExpiry) {
		return ElicitationResponse{}, statekeys.ReasonPolicyExpired
	}
	if content == nil {
		return ElicitationResponse{}, statekeys.ReasonResponseInvalid
	}
	for _, x := range content {
		switch y := x.(type) {
		case string, bool, json.Number:
		case []any:
			for _, e := range y {
				if _, ok := e.(string); !ok {
					return ElicitationResponse{}, statekeys.ReasonResponseSchema
				}
			}
		default:
			return ElicitationResponse{}, statekeys.ReasonResponseSchema
		}
	}
	c, err := jcs.Append(nil, content)
	if err != nil {
		return ElicitationResponse{}, statekeys.ReasonResponseInvalid
	}
	if len(c) > maxBytes {
		return ElicitationResponse{}, statekeys.ReasonResponseTooLarge
	}
	if err := sch.Validate(content); err != nil {
		return ElicitationResponse{}, statekeys.ReasonResponseSchema
	}
	return ElicitationResponse{Action: action, Content: c}, statekeys.ReasonNone
}

// ValidateFormResponse validates an ElicitResult (raw JSON) for a form
// request whose schema was approved as a. It is the standalone form of the
// check Verify runs on each form entry of inputResponses.
func ValidateFormResponse(raw json.RawMessage, requestedSchema json.RawMessage, a *FormApproval, now time.Time) (ElicitationResponse, error) {
	if a == nil || len(raw) > a.MaxResponseBytes+4096 {
		return ElicitationResponse{}, &statekeys.Error{Code: statekeys.CodeResponseRefused, Reason: statekeys.ReasonResponseTooLarge}
	}
	sv, err := jcs.Parse(requestedSchema, jcs.DefaultMaxDepth)
	schema, ok := sv.(map[string]any)
	if err != nil || !ok {
		return ElicitationResponse{}, &statekeys.Error{Code: statekeys.CodeResponseRefused, Reason: statekeys.ReasonSchemaChanged}
	}
	c, err := jcs.Append(nil, schema)
	if err != nil || !equalDigest(sha256Hex(c), a.SchemaDigest) {
		return ElicitationResponse{}, &statekeys.Error{Code: statekeys.CodeResponseRefused, Reason: statekeys.ReasonSchemaChanged}
	}
	sch, err := defaultSchemaCache.compile(a.SchemaDigest, schema)
	if err != nil {
		return ElicitationResponse{}, &statekeys.Error{Code: statekeys.CodeResponseRefused, Reason: statekeys.ReasonSchemaChanged}
	}
	v, err := jcs.Parse(raw, 8)
	if err != nil {
		return ElicitationResponse{}, &statekeys.Error{Code: statekeys.CodeResponseRefused, Reason: statekeys.ReasonResponseInvalid}
	}
	resp, r := validateFormResponse(v, sch, a.MaxResponseBytes, a.ExpiresAt, now)
	if r != statekeys.ReasonNone {
		return ElicitationResponse{}, &statekeys.Error{Code: statekeys.CodeResponseRefused, Reason: r}
	}
	return resp, nil
}

// Schema compilation, with every external reference denied.

type denyLoader struct{}

var errExternalRef = errors.New("elicit: external schema references are disabled")

func (denyLoader) Load(string) (any, error) { return nil, errExternalRef }

const schemaCacheSize = 512

type schemaCache struct {
	mu sync.Mutex
	m  map[string]*jsonschema.Schema
}

var defaultSchemaCache = &schemaCache{m: map[string]*jsonschema.Schema{}}

// compile compiles the validation schema for a form: the requested schema
// with additionalProperties false, draft 2020-12, format assertions on, and
// a loader that refuses every external reference. Results are cached by
// schema digest (bounded; the cache is dropped when full).
func (c *schemaCache) compile(digest string, schema map[string]any) (*jsonschema.Schema, error) {
	c.mu.Lock()
	if s, ok := c.m[digest]; ok {
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	doc := make(map[string]any, len(schema)+1)
	for k, v := range schema {
		if k == "$schema" {
			continue
		}
		doc[k] = v
	}
	doc["additionalProperties"] = false
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(denyLoader{})
	comp.AssertFormat()
	const loc = "urn:mcp-sanitize:elicit:form"
	if err := comp.AddResource(loc, doc); err != nil {
		return nil, err
	}
	s, err := comp.Compile(loc)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= schemaCacheSize {
		clear(c.m)
	}
	c.m[digest] = s
	c.mu.Unlock()
	return s, nil
}

// strictUnmarshal decodes strict I-JSON into v with exact member names
// (strictjson.Unmarshal): unknown members, members in another letter case,
// duplicates, invalid UTF-8 and trailing data are refused. Errors carry no
// input.
func strictUnmarshal(data []byte, v any) error {
	if strictjson.Unmarshal(data, jcs.DefaultMaxDepth, v) != nil {
		return jcs.ErrInvalid
	}
	return nil
}
