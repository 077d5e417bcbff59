package pipeline

import "github.com/mcp-sanitize/mcp-sanitize/wire"

// The binary rules for the reference sanitizer (reference_binary_test.go).

func TextMIME(m string) bool                { return textMIME([]byte(m)) }
func SigKnown(m string) bool                { return sigKnown([]byte(m)) }
func SigMatch(m string, b []byte) bool      { return sigMatch([]byte(m), b) }
func BinaryNote(reason, mime string) string { return binaryNote(wireReason(reason), mime) }

func wireReason(s string) wire.Reason { return wire.Reason(s) }

func SigAny(b []byte) bool { return sigAny(b) }
