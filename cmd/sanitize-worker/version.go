package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "sanitize-worker version: takes no arguments")
		return exitUsage
	}
	fmt.Fprintf(stdout, "guard %s\nevidence %s\n", wire.GuardVersion, wire.EvidenceVersion)
	return exitOK
}
