package scanners

import "testing"

// A filler word marks a hand-written body; the same letters inside a
// random body are a coincidence, and that secret must still be redacted.
func TestPlaceholderFillerWords(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"AG2ZLPLXFAKETJM2", false},                  // a random AWS key id body with FAKE inside
		{"q7Tz9hereXk2LmP0vB4nR8sW1yC6dF3g", false},  // mixed-case body, "here" inside
		{"Wq7YOURz9Xk2LmP0vB4nR8sW1yC6dF3gH", false}, // a short word in the middle
		{"IOSFODNN7EXAMPLE", true},                   // a long word anywhere
		{"Q7lZ9xK2redactedM0vB4nR8sW1yC6d", true},    // a long word anywhere
		{"YOURKEYHERE0a9b8c7d6e5f4", true},           // short words at the start
		{"a9b8c7d6e5f4g3h2_fake", true},              // after a separator
		{"k2Lm9Qz7Xw4Vb8Nc1Rt6Ys3Pd5-HERE", true},    // at the end, after a separator
		{"q7Tz9Xk2LmP0vB4nR8sW1yC6dF3gHere", false},  // at the end, but in mixed case
		{"q7Tz9Xk2LmP0vB4nR8sW1yC6dF3gH5jK", false},  // random
		{"xxxxxxxxxxxxxxxxxxxx", true},               // repetition
		{"abcdefghijklmnopqrst", true},               // an ascending run
	} {
		if got := placeholderBody([]byte(tc.body)); got != tc.want {
			t.Errorf("placeholderBody(%q) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
