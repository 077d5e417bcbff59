// Command sanitize-worker sanitizes the outputs of MCP servers: one message
// from a file or standard input (scan), or a stream of JSON-lines records
// (scan --jsonl), and manages the keys of sealed request state (keys).
//
// Usage:
//
//	sanitize-worker scan [flags] < result.json > clean.json
//	sanitize-worker scan --jsonl [flags] < records.jsonl > clean.jsonl
//	sanitize-worker keys new|rotate|list [flags]
//	sanitize-worker serve [flags]
//	sanitize-worker state|tools|args [flags]
//	sanitize-worker proxy [flags] -- <server command> [args...]
//	sanitize-worker proxy [flags] --upstream URL [--listen ADDR]
//	sanitize-worker version    (or --version)
//
// Exit codes: 0 the output was written (clean, sanitized or truncated);
// 3 the message was rejected and a sanitized error result was written in its
// place (scan of one message only); 2 usage error; 1 any other failure.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitRejected = 3
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"scan", "sanitize one MCP message, or a stream of JSON-lines records with --jsonl", runScan},
		{"keys", "manage the key ring that seals MRTR requestState (new, rotate, list)", runKeys},
		{"serve", "run the sanitization worker on NATS (embedded server by default)", runServe},
		{"tools", "manage the tool catalog (KV bucket mcp-tools) that holds each tool's schemas", runTools},
		{"args", "validate tools/call arguments against the tool's inputSchema", runArgs},
		{"proxy", "run in front of an MCP server (stdio child or Streamable HTTP upstream), sanitizing what it sends", runProxy},
		{"resources", "canonicalize resource URIs, make broker keys, sign and verify path-broker receipts", runResources},
		{"explain", "say which rules match a text where, and why each match is redacted or kept", runExplain},
		{"state", "serve mcp.state.seal and mcp.state.verify (sealed MRTR requestState) on NATS", runState},
		{"policy", "sign policies and roll them out to the fleet (keygen, sign, push, list, diff, rollback, shadow-report)", runPolicy},
		{"rescan", "replay archived records through a policy and a baseline and report the difference", runRescan},
		{"evidence", "verify the hash chain and signed checkpoints of evidence records (verify)", runEvidence},
		{"version", "print the module version, commit, Go version, guard and evidence versions (also --version)", runVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: sanitize-worker <command> [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'sanitize-worker <command> -h' for the flags of a command.")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(ctx, args[1:], stdin, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "sanitize-worker: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}
