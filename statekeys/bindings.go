package statekeys

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/internal/strictjson"
	"slices"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
)

// Methods that may return an InputRequiredResult and so have their request
// state sealed here.
const (
	MethodToolsCall     = "tools/call"
	MethodPromptsGet    = "prompts/get"
	MethodResourcesRead = "resources/read"
)

// Input request methods (MCP 2026-07-28 InputRequest).
const (
	inputElicit   = "elicitation/create"
	inputSampling = "sampling/createMessage"
	inputRoots    = "roots/list"
)

// Kinds of input binding.
const (
	kindForm     = "form"
	kindURL      = "url"
	kindSampling = "sampling"
	kindRoots    = "roots"
)

// Limits on identity and operation fields. They are fixed, not options:
// they define what a valid binding is.
const (
	maxSubjectBytes  = 1024
	maxClientIDBytes = 256
	maxNameBytes     = 2048
)

var (
	tenantPattern   = lazyre.New(`^[A-Za-z0-9_-]{1,64}$`)
	inputKeyPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`)
)

// Identity is who started the original request. The MCP server vouches for
// it (it authenticated the user and the client); Subject is sealed only as a
// SHA-256 digest.
type Identity struct {
	// Subject is the authenticated principal (user id, token subject).
	Subject string `json:"subject"`
	// Tenant is the active tenant; it must be a valid NATS subject token
	// ([A-Za-z0-9_-]{1,64}) because evidence is published under it.
	Tenant string `json:"tenant"`
	// ClientID identifies the MCP client (OAuth client id or equivalent).
	ClientID string `json:"clientId"`
}

// Operation is the original request the InputRequiredResult answers.
type Operation struct {
	// Method is tools/call, prompts/get or resources/read.
	Method string `json:"method"`
	// Name is the tool name, the prompt name, or the resource URI.
	Name string `json:"name"`
	// Arguments are the request's arguments object; absent means {}.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// payload is what a token seals. Field names are short because every byte
// travels to the client and back.
type payload struct {
	V   int            `json:"v"`
	Sub string         `json:"sub"` // hex SHA-256 of Identity.Subject
	Ten string         `json:"ten"` // Identity.Tenant
	Cli string         `json:"cli"` // hex SHA-256 of Identity.ClientID
	Mth string         `json:"mth"` // Operation.Method
	Nam string         `json:"nam"` // hex SHA-256 of Operation.Name
	Arg string         `json:"arg"` // hex SHA-256 of canonical arguments
	Inp []inputBinding `json:"inp,omitempty"`
	Iat int64          `json:"iat"` // unix milliseconds
	Exp int64          `json:"exp"` // unix milliseconds
	Fid string         `json:"fid"` // flow id: the single-use key
	Non string         `json:"non"` // 128-bit random nonce
	App []byte         `json:"app,omitempty"`
}

const payloadVersion = 1

// inputBinding binds one entry of inputRequests.
type inputBinding struct {
	Key  string `json:"k"`
	Kind string `json:"t"`
	Req  string `json:"r"`            // hex SHA-256 of the canonical input request
	Sch  string `json:"s,omitempty"`  // form: hex SHA-256 of canonical requestedSchema
	Max  int    `json:"m,omitempty"`  // form: max response bytes from the signed policy
	Pex  int64  `json:"p,omitempty"`  // form: policy rule expiry, unix milliseconds
	Pol  string `json:"pi,omitempty"` // form: policy id and form id
	Eid  string `json:"e,omitempty"`  // url: elicitationId
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func equalDigest(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func validText(s string, max int) bool {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func (id Identity) validate() Reason {
	if !validText(id.Subject, maxSubjectBytes) || !tenantPattern.MatchString(id.Tenant) ||
		!validText(id.ClientID, maxClientIDBytes) {
		return ReasonIdentityInvalid
	}
	return ReasonNone
}

func methodAllowed(m string) bool {
	return m == MethodToolsCall || m == MethodPromptsGet || m == MethodResourcesRead
}

// argumentsDigest returns the hex SHA-256 of the RFC 8785 form of args,
// which must be a JSON object (absent means {}).
func argumentsDigest(args json.RawMessage, maxBytes int) (string, Reason) {
	if len(args) == 0 {
		return sha256Hex([]byte("{}")), ReasonNone
	}
	if len(args) > maxBytes {
		return "", ReasonArgumentsInvalid
	}
	v, err := jcs.Parse(args, jcs.DefaultMaxDepth)
	if err != nil {
		return "", ReasonArgumentsInvalid
	}
	if _, ok := v.(map[string]any); !ok {
		return "", ReasonArgumentsInvalid
	}
	c, err := jcs.Append(nil, v)
	if err != nil {
		return "", ReasonArgumentsInvalid
	}
	return sha256Hex(c), ReasonNone
}

// inputRequest is one parsed entry of inputRequests.
type inputRequest struct {
	key       string
	kind      string
	reqDigest string
	params    map[string]any
	// form
	schema       map[string]any
	schemaDigest string
	// url
	elicitationID string
}

// elicitation returns the parsed elicitation for the Guard.
func (ir *inputRequest) elicitation() Elicitation {
	return Elicitation{Key: ir.key, Params: ir.params, Schema: ir.schema, SchemaDigest: ir.schemaDigest, ElicitationID: ir.elicitationID}
}

// parseInputRequests parses the inputRequests map of an
// InputRequiredResult. Absent or null means none. Entries come back sorted
// by key.
func parseInputRequests(raw json.RawMessage, maxBytes, maxEntries int) ([]inputRequest, *Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bad := func(key string) *Error {
		return &Error{Code: CodeInvalidRequest, Reason: ReasonInputInvalid, InputKey: key}
	}
	if len(raw) > maxBytes {
		return nil, bad("")
	}
	v, err := jcs.Parse(raw, jcs.DefaultMaxDepth)
	if err != nil {
		return nil, bad("")
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) > maxEntries {
		return nil, bad("")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !inputKeyPattern.MatchString(k) {
			return nil, bad("")
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]inputRequest, 0, len(keys))
	for _, k := range keys {
		obj, ok := m[k].(map[string]any)
		if !ok {
			return nil, bad(k)
		}
		method, _ := obj["method"].(string)
		params, _ := obj["params"].(map[string]any)
		c, err := jcs.Append(nil, obj)
		if err != nil {
			return nil, bad(k)
		}
		ir := inputRequest{key: k, reqDigest: sha256Hex(c), params: params}
		switch method {
		case inputElicit:
			if params == nil {
				return nil, bad(k)
			}
			mode, present := params["mode"]
			switch {
			case !present || mode == "form":
				ir.kind = kindForm
				ir.schema, _ = params["requestedSchema"].(map[string]any)
				if ir.schema == nil {
					return nil, &Error{Code: CodeFormRefused, Reason: ReasonFormSchemaInvalid, InputKey: k}
				}
				sc, err := jcs.Append(nil, ir.schema)
				if err != nil {
					return nil, bad(k)
				}
				ir.schemaDigest = sha256Hex(sc)
			case mode == "url":
				ir.kind = kindURL
				ir.elicitationID, _ = params["elicitationId"].(string)
			default:
				return nil, bad(k)
			}
		case inputSampling:
			if params == nil {
				return nil, bad(k)
			}
			ir.kind = kindSampling
		case inputRoots:
			ir.kind = kindRoots
		default:
			return nil, bad(k)
		}
		out = append(out, ir)
	}
	return out, nil
}

// fieldNamePattern is what a form field name must look like to be named in
// Evidence (package elicit refuses any other name in a form).
var fieldNamePattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// decodePayload decodes an opened token's payload, refusing unknown fields
// and trailing data. The payload has authenticated (only this package
// writes it, with encoding/json), so it is read with encoding/json alone,
// which keeps Verify at one parse of it; every text from outside goes
// through strictUnmarshal.
func decodePayload(data []byte, p *payload) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return jcs.ErrInvalid
	}
	if dec.More() {
		return jcs.ErrInvalid
	}
	return nil
}

// strictUnmarshal decodes strict I-JSON into v with exact member names
// (strictjson.Unmarshal), refusing unknown members, other letter case,
// duplicates, invalid UTF-8 and trailing data. Errors carry no input.
func strictUnmarshal(data []byte, v any) error {
	if strictjson.Unmarshal(data, jcs.DefaultMaxDepth, v) != nil {
		return jcs.ErrInvalid
	}
	return nil
}
