package promptgate

// Reasons (kebab-case, for evidence only).
const (
	ReasonNoRequest         = "prompt-no-request"         // no or malformed prompts/get params
	ReasonUnknownName       = "prompt-unknown-name"       // a prompt name the policy does not list
	ReasonScope             = "prompt-scope"              // the principal lacks a required scope
	ReasonUnknownArgument   = "prompt-unknown-argument"   // an argument the prompt does not declare
	ReasonMissingArgument   = "prompt-missing-argument"   // a required argument is absent
	ReasonInvalidArgument   = "prompt-invalid-argument"   // not a string, or a validator failed
	ReasonArgumentInjection = "prompt-argument-injection" // control, invisible or marker in an argument
	ReasonMalformed         = "prompt-malformed"          // not a prompts/get result
	ReasonRole              = "prompt-role"               // a message role the policy does not allow
	ReasonMarker            = "prompt-marker"             // a forbidden marker in a generated message
	ReasonTooLarge          = "prompt-too-large"          // the result is larger than the guard reads

	ReasonCompletionNoRequest   = "completion-no-request"         // no or malformed completion/complete params
	ReasonCompletionNoPrincipal = "completion-no-principal"       // no principal to charge
	ReasonBudgetSpent           = "completion-budget-spent"       // the principal's budget is spent
	ReasonBudgetUnavailable     = "completion-budget-unavailable" // no budget store, or it failed
	ReasonCompletionUnknown     = "completion-unknown-argument"   // a ref or argument the policy does not list
	ReasonCompletionScope       = "completion-scope"              // the principal lacks the argument's scope
	ReasonCompletionInput       = "completion-invalid-input"      // the typed value or context fails the checks
	ReasonCompletionMalformed   = "completion-malformed"          // not a completion/complete result
	ReasonCompletionTooLarge    = "completion-too-large"          // the result is larger than the guard reads
)

// Reasons lists every reason.
func Reasons() []string {
	return []string{ReasonNoRequest, ReasonUnknownName, ReasonScope, ReasonUnknownArgument, ReasonMissingArgument,
		ReasonInvalidArgument, ReasonArgumentInjection, ReasonMalformed, ReasonRole, ReasonMarker, ReasonTooLarge,
		ReasonCompletionNoRequest, ReasonCompletionNoPrincipal, ReasonBudgetSpent, ReasonBudgetUnavailable,
		ReasonCompletionUnknown, ReasonCompletionScope, ReasonCompletionInput, ReasonCompletionMalformed,
		ReasonCompletionTooLarge}
}

// Denial is a refused result; Reason is for evidence only.
type Denial struct{ Reason string }

func (d *Denial) Error() string { return "promptgate: denied: " + d.Reason }

func deny(r string) *Denial { return &Denial{Reason: r} }
