package jsonlex

// Error is a syntax error the lexer reports with a Fail token. Its String
// form is a stable id.
type Error uint8

const (
	ErrNone                 Error = iota
	ErrExpectedValue              // a byte that starts no value, where a value is due
	ErrExpectedKey                // a byte other than a quote where a member name is due
	ErrExpectedColon              // a byte other than ':' after a member name
	ErrExpectedCommaOrClose       // a byte other than ',' or the close after a value
	ErrTrailingData               // a byte other than whitespace after the top-level value
	ErrBadLiteral                 // a misspelt true, false or null
	ErrBadNumber                  // a number that breaks the grammar
	ErrNumberTooLong              // a number longer than Lexer.MaxNumber bytes
	ErrControlInString            // an unescaped control character in a string
	ErrBadEscape                  // a backslash sequence JSON does not define
	ErrUnexpectedEOF              // the input ended inside a value
	ErrEmptyInput                 // the input held whitespace only
	numErrors
)

var errNames = [numErrors]string{
	ErrNone:                 "",
	ErrExpectedValue:        "expected-value",
	ErrExpectedKey:          "expected-key",
	ErrExpectedColon:        "expected-colon",
	ErrExpectedCommaOrClose: "expected-comma-or-close",
	ErrTrailingData:         "trailing-data",
	ErrBadLiteral:           "bad-literal",
	ErrBadNumber:            "bad-number",
	ErrNumberTooLong:        "number-length",
	ErrControlInString:      "control-in-string",
	ErrBadEscape:            "bad-escape",
	ErrUnexpectedEOF:        "unexpected-eof",
	ErrEmptyInput:           "empty-input",
}

// String returns the stable id of e.
func (e Error) String() string {
	if e < numErrors {
		return errNames[e]
	}
	return "jsonlex-error"
}
