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

// CheckFormSchema applies the rules of a form's requestedSchema outside
// MRTR, without form policies: a flat object of primitive properties with
// the keywords of the MCP form schema, and no field that asks for
// sensitive data in its name, title, description or format (MCP: servers
// must not ask for sensitive data in form mode; URL mode is for that). The
// message is free text, as in the MRTR guard: a word such as "token" in it
// asks for nothing. The kind guard of elicitation/create uses it. It
// returns statekeys.ReasonNone, ReasonFormSchemaInvalid or
// ReasonFormDisguised and the field concerned ("" for the schema). field
// is a name the schema's pattern accepted, never free text.
func CheckFormSchema(schema map[string]any) (r statekeys.Reason, field string) {
	if _, e := checkFormSchema("", schema); e != nil {
		return e.Reason, e.Field
	}
	return statekeys.ReasonNone, ""
}
