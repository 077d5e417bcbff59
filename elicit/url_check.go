package elicit

import "github.com/mcp-sanitize/mcp-sanitize/statekeys"

// CheckURL applies the URL rules of URL-mode elicitation (https only, no
// user info, no parameter named like a secret, no value in which the
// catalog finds a secret, no long opaque random value) to one URL, outside
// MRTR: the kind guards of package pipeline check the URL of an
// elicitation/create request and those of a URL elicitation error with
// it. elicitationID, when not empty, is the one value allowed to look
// random. It returns statekeys.ReasonNone for an acceptable URL.
func CheckURL(raw, elicitationID string) statekeys.Reason {
	return checkElicitationURL(raw, elicitationID)
}
