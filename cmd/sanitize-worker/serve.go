package main

import (
	"context"
	"fmt"
	"io"
)

// runServe is being built (issue in progress); it refuses to run until then.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sanitize-worker serve: not available in this build")
	return exitFailure
}
