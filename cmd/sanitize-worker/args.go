package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcp-sanitize/mcp-sanitize/argsgate"
	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// `sanitize-worker args` is the argument gate of seed 001 on the command
// line: offline against an --input-schema file, or against the tool catalog
// with --server.

const argsUsageHead = `usage: sanitize-worker args --tool T --input-schema FILE [flags] < args.json
       sanitize-worker args --server S [--tool T] [--nats-url URL] [flags] < args.json

Checks tools/call arguments against the tool's inputSchema before the tool
runs. Standard input (or --in) holds the arguments object or a whole
tools/call request (then --tool may be left out: the request names the tool).
With --input-schema the schema comes from a file and nothing is contacted;
with --server it comes from the tool catalog (KV bucket mcp-tools).

Standard output receives {"valid":true}, or the MCP tool execution error (a
CallToolResult with isError true) whose text names the tool, the parameter,
the expected shape and a corrected example call; codes ARGS_MALFORMED,
ARGS_MISSING, ARGS_TYPE, ARGS_UNKNOWN_PROPERTY, ARGS_INVALID,
ARGS_SCHEMA_UNUSABLE, ARGS_UNKNOWN_TOOL, ARGS_UNAVAILABLE.

Exit codes: 0 valid; 3 invalid (the error result was written); 2 usage error;
1 any other failure (I/O, NATS, catalog unavailable).

flags:
`

// runArgs implements `sanitize-worker args`.
func runArgs(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runArgsEnv(ctx, args, os.LookupEnv, stdin, stdout, stderr)
}

func runArgsEnv(ctx context.Context, args []string, lookup func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("args", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), argsUsageHead)
		fs.PrintDefaults()
	}
	var nf natsClientFlags
	nf.register(fs)
	var server, tool, schemaFile, in string
	var maxBytes, maxEcho int
	fs.StringVar(&tool, "tool", "", "`TOOL` name (required unless the input is a tools/call request)")
	fs.StringVar(&schemaFile, "input-schema", "", "the tool's inputSchema `FILE` (offline)")
	fs.StringVar(&server, "server", "", "`SERVER` whose tool is looked up in the catalog")
	fs.StringVar(&in, "in", "", "read the arguments from `FILE` (default standard input)")
	fs.IntVar(&maxBytes, "max-bytes", argsgate.DefaultMaxArgsBytes, "largest input accepted")
	fs.IntVar(&maxEcho, "max-echo", argsgate.DefaultMaxEcho, "characters of an argument value echoed in the error (-1: none)")
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sanitize-worker args: "+format+"\n", a...)
		fmt.Fprintln(stderr, "Run 'sanitize-worker args -h' for the flags.")
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case schemaFile == "" && server == "":
		return usageErr("give --input-schema FILE (offline) or --server S (tool catalog)")
	case schemaFile != "" && server != "":
		return usageErr("--input-schema and --server are alternatives; give one")
	case schemaFile != "" && tool == "":
		return usageErr("--tool is required with --input-schema")
	case server != "" && wire.CheckToken(server) != nil:
		return usageErr("--server must be 1 to 64 of [A-Za-z0-9_-]")
	}
	if tool != "" {
		if _, err := toolcat.ToolToken(tool); err != nil {
			return usageErr("--tool must be a tool name of 1 to 128 bytes of UTF-8")
		}
	}
	if maxBytes < 2 || maxBytes > 64<<20 {
		return usageErr("--max-bytes must be 2..%d", 64<<20)
	}
	if maxEcho == 0 || maxEcho < -1 || maxEcho > 4096 {
		return usageErr("--max-echo must be 1..4096, or -1 for none")
	}
	if server != "" {
		if err := nf.check(fs, lookup); err != nil {
			return usageErr("%v", err)
		}
	}

	r := stdin
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker args: cannot open --in %s\n", in)
			return exitFailure
		}
		defer f.Close()
		r = f
	}
	body, err := readLimited(r, maxBytes)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker args: %v\n", err)
		return exitFailure
	}
	gate, err := argsgate.New(argsgate.Options{MaxArgsBytes: maxBytes, MaxEcho: maxEcho})
	if err != nil {
		fmt.Fprintln(stderr, "sanitize-worker args: cannot build the gate")
		return exitFailure
	}

	var res *argsgate.Result
	if schemaFile != "" {
		raw, err := os.ReadFile(schemaFile)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker args: cannot read --input-schema %s\n", schemaFile)
			return exitFailure
		}
		if len(raw) > schema.DefaultMaxSchemaBytes {
			fmt.Fprintf(stderr, "sanitize-worker args: --input-schema is larger than %d bytes\n", schema.DefaultMaxSchemaBytes)
			return exitFailure
		}
		res, _ = gate.CheckCall(tool, body, func(string) ([]byte, error) { return raw, nil })
	} else {
		cctx, cancel := context.WithTimeout(ctx, nf.timeout)
		defer cancel()
		cat, nc, err := nf.openCatalog(cctx, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker args: %v\n", err)
			return exitFailure
		}
		defer nc.Close()
		defer cat.Close()
		res, _ = gate.CheckCallSchema(tool, body, func(name string) (*argsgate.Schema, error) {
			e, err := cat.Get(cctx, server, name)
			switch {
			case err == nil:
				return &argsgate.Schema{Raw: e.InputSchema, Compiled: e.Input}, nil
			case errors.Is(err, toolcat.ErrNotFound), errors.Is(err, toolcat.ErrName):
				return nil, argsgate.ErrUnknownTool
			}
			return nil, err
		})
	}
	if _, err := stdout.Write(append(res.Reply(), '\n')); err != nil {
		return exitFailure
	}
	switch {
	case res.Valid:
		return exitOK
	case res.Code == argsgate.CodeUnavailable:
		fmt.Fprintln(stderr, "sanitize-worker args: the tool catalog is unavailable")
		return exitFailure
	}
	return exitRejected
}
