package main

import (
	"context"
	"fmt"
	"io"
)

// runTools is being built (issue in progress); it refuses to run until then.
func runTools(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sanitize-worker tools: not available in this build")
	return exitFailure
}
