package wire

// Outcome summarizes a pass. It is the value of HeaderOutcome and of the
// evidence record's "outcome".
type Outcome string

// Outcomes.
const (
	// OutcomeClean: nothing was changed but the labels.
	OutcomeClean Outcome = "clean"
	// OutcomeSanitized: something was removed, redacted or neutralized.
	OutcomeSanitized Outcome = "sanitized"
	// OutcomeTruncated: the result was cut to its bounds (code OUTPUT_TRUNCATED).
	OutcomeTruncated Outcome = "truncated"
	// OutcomeRejected: an error result replaced the message.
	OutcomeRejected Outcome = "rejected"
)
