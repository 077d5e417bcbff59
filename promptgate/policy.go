package promptgate

import (
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"
)

// PromptsPolicy is the "prompts" part of the policy file.
type PromptsPolicy struct {
	// Prompts are the allow-listed prompts by name; any other name is
	// refused.
	Prompts map[string]PromptRule `json:"prompts"`
	// AllowedRoles are the roles a generated message may have (default
	// user and assistant, the roles of MCP).
	AllowedRoles []string `json:"allowedRoles,omitempty"`
	// ForbiddenMarkers replace DefaultForbiddenMarkers when not empty.
	ForbiddenMarkers []string `json:"forbiddenMarkers,omitempty"`
	// AllowRoleHeaders accepts lines that start with a role name and a
	// colon ("system:") in arguments and messages; refused by default.
	AllowRoleHeaders bool `json:"allowRoleHeaders,omitempty"`
	// MaxArgumentChars caps every argument (DefaultMaxArgumentChars).
	MaxArgumentChars int `json:"maxArgumentChars,omitempty"`
	// MaxResultBytes caps the prompts/get result read
	// (DefaultMaxPromptResultBytes).
	MaxResultBytes int64 `json:"maxResultBytes,omitempty"`
}

// PromptRule is one allow-listed prompt.
type PromptRule struct {
	// RequiredScopes must all be held by the principal.
	RequiredScopes []string `json:"requiredScopes,omitempty"`
	// Arguments are the declared arguments; any other is refused.
	Arguments map[string]ArgumentRule `json:"arguments,omitempty"`
}

// ArgumentRule validates one argument value (a string, as MCP prompt
// arguments are).
type ArgumentRule struct {
	Required bool `json:"required,omitempty"`
	// Pattern is an RE2 expression the whole value must match.
	Pattern string `json:"pattern,omitempty"`
	// MinLength and MaxLength bound the value in characters.
	MinLength int `json:"minLength,omitempty"`
	MaxLength int `json:"maxLength,omitempty"`
	// Enum, when not empty, lists the only values accepted.
	Enum []string `json:"enum,omitempty"`
	// RequiredScopes must be held by the principal for the argument to be
	// given at all.
	RequiredScopes []string `json:"requiredScopes,omitempty"`
	// AllowNewlines accepts line breaks in the value (refused by default:
	// a line break is how a value starts a new role or instruction line).
	AllowNewlines bool `json:"allowNewlines,omitempty"`
}

// CompletionsPolicy is the "completions" part of the policy file.
type CompletionsPolicy struct {
	// Arguments lists the arguments that may be completed, by reference:
	// "prompt:<name>/<argument>" or "resource:<uri template>/<argument>".
	// Any other is refused.
	Arguments map[string]CompletionRule `json:"arguments"`
	// MaxValues caps the values of one result (at most and by default 100,
	// the MCP limit).
	MaxValues int `json:"maxValues,omitempty"`
	// MaxValueChars caps one value and the typed input
	// (DefaultMaxValueChars); a longer value is dropped.
	MaxValueChars int `json:"maxValueChars,omitempty"`
	// Budget is the per-principal budget.
	Budget BudgetPolicy `json:"budget"`
	// MaxResultBytes caps the result read (DefaultMaxCompletionResultBytes).
	MaxResultBytes int64 `json:"maxResultBytes,omitempty"`
}

// CompletionRule says which values of one argument a principal may see.
type CompletionRule struct {
	// RequiredScopes must all be held to complete the argument at all.
	RequiredScopes []string `json:"requiredScopes,omitempty"`
	// Pattern is an RE2 expression every value must match (whole value).
	Pattern string `json:"pattern,omitempty"`
	// Visible, when not empty, makes a value visible only if it matches
	// the pattern of a rule whose scope the principal holds ("*": any
	// principal).
	Visible []VisibleRule `json:"visible,omitempty"`
}

// VisibleRule is one scope's view of an argument's values.
type VisibleRule struct {
	Scope   string `json:"scope"`
	Pattern string `json:"pattern"`
}

// BudgetPolicy is a sliding-window budget per principal and tenant: at
// most Limit requests in any interval of Window's length (Window, in
// sliding.go).
type BudgetPolicy struct {
	// Limit is the completion requests one principal may make per window
	// (required, > 0).
	Limit int64 `json:"limit"`
	// Window is a Go duration (default "1m").
	Window string `json:"window,omitempty"`
}

// Defaults.
const (
	DefaultMaxArgumentChars         = 1024
	DefaultMaxPromptResultBytes     = 1 << 20
	DefaultMaxValueChars            = 256
	DefaultMaxCompletionResultBytes = 256 << 10
	MaxCompletionValues             = 100
	DefaultBudgetWindow             = time.Minute
	maxPatternBytes                 = 1024
)

// ErrPolicy is what an invalid prompts or completions policy wraps.
var ErrPolicy = errors.New("promptgate: invalid policy")

// compilePattern anchors and compiles an RE2 pattern ("" gives nil).
func compilePattern(p string) (*regexp.Regexp, error) {
	if p == "" {
		return nil, nil
	}
	if len(p) > maxPatternBytes || !utf8.ValidString(p) {
		return nil, fmt.Errorf("%w: pattern too long", ErrPolicy)
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern does not compile", ErrPolicy)
	}
	return re, nil
}

// hasScopes reports whether have holds every scope of need.
func hasScopes(have, need []string) bool {
	for _, n := range need {
		found := false
		for _, h := range have {
			if h == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
