package pipeline

import (
	"fmt"

	"github.com/mcp-sanitize/mcp-sanitize/errsan"
)

// Modes of ErrorsPolicy.Mode and ErrorsPolicy.Modes.
const (
	// ErrorModeKeepActionable delivers an unmapped error's own text with
	// the internals removed (package errsan), or Default when nothing
	// actionable is left. The default.
	ErrorModeKeepActionable = "keep-actionable"
	// ErrorModeGeneric delivers Default for every unmapped error.
	ErrorModeGeneric = "generic"
)

// What ErrorsPolicy.Data does with the data member of a JSON-RPC error.
const (
	// ErrorDataDrop drops data (the default).
	ErrorDataDrop = "drop"
	// ErrorDataSanitize keeps data reduced to sanitized strings, numbers,
	// booleans and null (rpcerror.go).
	ErrorDataSanitize = "sanitize"
)

// MaxErrorTextBytes bounds the sanitized error text delivered in place of a
// tool's or a JSON-RPC error's message (the bound of a policy's public
// messages).
const MaxErrorTextBytes = 1024

func (e *ErrorsPolicy) fillDefaults() {
	if e.Mode == "" {
		e.Mode = ErrorModeKeepActionable
	}
	if e.Data == "" {
		e.Data = ErrorDataDrop
	}
}

func validErrorMode(m string) bool { return m == ErrorModeKeepActionable || m == ErrorModeGeneric }

// validateModes checks Mode, Modes and Data.
func (e *ErrorsPolicy) validateModes() error {
	if !validErrorMode(e.Mode) {
		return fmt.Errorf("%w: errors.mode must be %q or %q", ErrPolicy, ErrorModeKeepActionable, ErrorModeGeneric)
	}
	for code, m := range e.Modes {
		if !errorCodeRE.MatchString(code) {
			return fmt.Errorf("%w: errors.modes: code %q must match %s", ErrPolicy, code, errorCodeRE)
		}
		if !validErrorMode(m) {
			return fmt.Errorf("%w: errors.modes[%s] must be %q or %q", ErrPolicy, code, ErrorModeKeepActionable, ErrorModeGeneric)
		}
	}
	if e.Data != ErrorDataDrop && e.Data != ErrorDataSanitize {
		return fmt.Errorf("%w: errors.data must be %q or %q", ErrPolicy, ErrorDataDrop, ErrorDataSanitize)
	}
	return nil
}

// modeFor is the mode of an error with internal code code ("" for none).
func (e *ErrorsPolicy) modeFor(code string) string {
	if m, ok := e.Modes[code]; ok && code != "" {
		return m
	}
	return e.Mode
}

// newErrSanitizer builds the engine's error sanitizer. It has no Redactor:
// the text it gets has been through the string chain (secrets redacted,
// tags neutralized), whose markers it counts. Without a Redactor it is safe
// for concurrent use by every pass.
func newErrSanitizer(p *Policy) (*errsan.Sanitizer, error) {
	s, err := errsan.New(errsan.Options{MaxBytes: MaxErrorTextBytes, MaxInput: maxErrText,
		SecretMarker: secretMarkerPrefix(p.Rules.SecretMarker)})
	if err != nil {
		return nil, fmt.Errorf("pipeline: error sanitizer: %w", err)
	}
	return s, nil
}

// errsanCounts gives the non-zero counts of rep by kind name, nil when
// there are none.
func errsanCounts(rep *errsan.Report) map[string]int64 {
	var m map[string]int64
	for k, n := range rep.Counts {
		if n > 0 {
			if m == nil {
				m = make(map[string]int64, 4)
			}
			m[errsan.Kind(k).String()] = int64(n)
		}
	}
	return m
}
