package elicit

import (
	"encoding/json"
	"github.com/mcp-sanitize/mcp-sanitize/internal/jcs"
	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
	"math"
	"net/url"
	"strings"
)

// URL-mode elicitation guard (seeds G005, G006).
//
// URL mode is where sensitive input belongs: the user leaves the MCP client
// for a browser page the server controls. The URL itself must not carry
// credentials or secrets (it is shown to the user, logged by the client and
// stored in history), so it must be https, have no user info, no query or
// fragment parameter named like a secret, and no value that looks like a
// token. The request must carry an elicitationId, which the sealed state
// binds together with the identity; on retry the server reports who
// completed the browser flow, and Verify accepts it only for the same
// identity.

// MaxURLBytes caps an elicitation URL.
const MaxURLBytes = 2048

var elicitationIDPattern = lazyre.New(`^[A-Za-z0-9_-]{8,128}$`)

// Query and fragment parameter names that carry secrets.
var secretParamNames = set(
	"token", "access_token", "id_token", "refresh_token", "auth_token", "bearer",
	"code", "key", "apikey", "api_key", "secret", "client_secret", "password",
	"passwd", "pwd", "sig", "signature", "x-amz-signature", "x-amz-credential",
	"x-amz-security-token", "x-goog-signature", "x-goog-credential", "session",
	"sessionid", "session_id", "sid", "auth", "authorization", "jwt",
	"assertion", "otp", "ticket", "credential", "credentials",
)

// URLApproval is what an accepted URL-mode request yields.
type URLApproval struct {
	ElicitationID string
}

// CheckURLRequest checks the params of a URL-mode elicitation/create request
// (ElicitRequestURLParams plus the elicitationId this fleet requires).
func CheckURLRequest(params json.RawMessage) (*URLApproval, error) {
	v, err := jcs.Parse(params, jcs.DefaultMaxDepth)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, urlRefused(statekeys.ReasonURLInvalid, "")
	}
	id, _ := m["elicitationId"].(string)
	a, e := checkURL(statekeys.Elicitation{Params: m, ElicitationID: id})
	if e != nil {
		return nil, e
	}
	return a, nil
}

func checkURL(ir statekeys.Elicitation) (*URLApproval, *statekeys.Error) {
	if ir.Params["mode"] != "url" {
		return nil, urlRefused(statekeys.ReasonURLInvalid, ir.Key)
	}
	msg, _ := ir.Params["message"].(string)
	if !validText(msg, maxFormText) {
		return nil, urlRefused(statekeys.ReasonURLInvalid, ir.Key)
	}
	if !elicitationIDPattern.MatchString(ir.ElicitationID) {
		return nil, urlRefused(statekeys.ReasonURLNoID, ir.Key)
	}
	raw, _ := ir.Params["url"].(string)
	if r := checkElicitationURL(raw, ir.ElicitationID); r != statekeys.ReasonNone {
		return nil, urlRefused(r, ir.Key)
	}
	return &URLApproval{ElicitationID: ir.ElicitationID}, nil
}

// checkElicitationURL returns statekeys.ReasonNone when raw is an acceptable URL.
func checkElicitationURL(raw, elicitationID string) statekeys.Reason {
	if !validText(raw, MaxURLBytes) || strings.ContainsAny(raw, " \\") {
		return statekeys.ReasonURLInvalid
	}
	u, err := url.Parse(raw)
	if err != nil {
		return statekeys.ReasonURLInvalid
	}
	if u.Scheme != "https" {
		return statekeys.ReasonURLNotHTTPS
	}
	if u.Opaque != "" {
		return statekeys.ReasonURLInvalid
	}
	if u.User != nil {
		return statekeys.ReasonURLCredentials
	}
	if u.Hostname() == "" {
		return statekeys.ReasonURLInvalid
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		s, err := url.PathUnescape(seg)
		if err != nil {
			return statekeys.ReasonURLInvalid
		}
		if s != elicitationID && secretValue(s) {
			return statekeys.ReasonURLSecret
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return statekeys.ReasonURLInvalid
	}
	if r := checkParams(q, elicitationID); r != statekeys.ReasonNone {
		return r
	}
	if u.Fragment != "" {
		if strings.Contains(u.Fragment, "=") {
			fq, err := url.ParseQuery(u.Fragment)
			if err != nil {
				return statekeys.ReasonURLInvalid
			}
			if r := checkParams(fq, elicitationID); r != statekeys.ReasonNone {
				return r
			}
		} else if secretValue(u.Fragment) {
			return statekeys.ReasonURLSecret
		}
	}
	return statekeys.ReasonNone
}

func checkParams(q url.Values, elicitationID string) statekeys.Reason {
	for k, vs := range q {
		lk := strings.ToLower(k)
		if secretParamNames[lk] {
			return statekeys.ReasonURLSecret
		}
		if _, hit := sensitiveText(k); hit {
			return statekeys.ReasonURLSecret
		}
		for _, v := range vs {
			if v != elicitationID && (secretValue(v) || longHex(v)) {
				return statekeys.ReasonURLSecret
			}
		}
	}
	return statekeys.ReasonNone
}

// secretValue reports whether s looks like a credential: the scanners'
// catalog finds a secret in it (secrets.go), or it is a long high-entropy
// string (at least 32 characters of a token alphabet with at least 4.2 bits
// of entropy per character; a UUID has less). The second test is not a
// detector of credentials but a rule of this guard: a URL shown to the
// user carries no opaque random value at all, whatever made it.
func secretValue(s string) bool {
	if catalogSecret(s) {
		return true
	}
	if len(s) < 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~') {
			return false
		}
	}
	return shannon(s) >= 4.2
}

func shannon(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// longHex reports a hex string of 40 or more characters: the shape of many
// API tokens, whose entropy per character stays under the threshold above.
// It applies to query and fragment values, not to path segments (where
// commit ids and digests are ordinary).
func longHex(s string) bool {
	if len(s) < 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
