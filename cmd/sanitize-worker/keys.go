package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// DefaultKeyRingFile is where `keys` reads and writes the key ring unless
// --file says otherwise.
const DefaultKeyRingFile = "/etc/mcp-sanitize/statekeys.json"

const keysUsage = `usage: sanitize-worker keys <subcommand> [flags]

subcommands:
  new      create a key ring with one active key (refuses to replace one without --force)
  rotate   make a new key active; the previous active key keeps opening (state "verify");
           with --stage, add the new key as "staged" (opens, does not seal); a later rotate promotes it
  retire   stop a key from opening anything (--id); the active key cannot be retired
  list     print id, state and creation time of each key (never key material)

flags (all subcommands):
  --file FILE   key ring file (default ` + DefaultKeyRingFile + `), written with mode 0600
`

// runKeys implements `sanitize-worker keys new|rotate|retire|list`.
// Exit codes: 0 ok, 2 usage error, 1 any other failure. Nothing it prints
// contains key material.
func runKeys(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "sanitize-worker keys: missing subcommand\n\n"+keysUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, keysUsage)
		return exitOK
	case "new", "rotate", "retire", "list":
	default:
		fmt.Fprintf(stderr, "sanitize-worker keys: unknown subcommand %q\n\n%s", sub, keysUsage)
		return exitUsage
	}
	fs := flag.NewFlagSet("keys "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("file", DefaultKeyRingFile, "key ring `FILE`")
	var force, stage, asJSON *bool
	var id *string
	switch sub {
	case "new":
		force = fs.Bool("force", false, "replace an existing key ring file (every state it sealed stops opening)")
	case "rotate":
		stage = fs.Bool("stage", false, "add the new key as staged (opens, does not seal); a later rotate promotes it")
	case "retire":
		id = fs.String("id", "", "`ID` of the key to retire")
	case "list":
		asJSON = fs.Bool("json", false, "print a JSON array instead of a table")
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sanitize-worker keys %s: unexpected argument %q\n", sub, fs.Arg(0))
		return exitUsage
	}
	if *file == "" {
		fmt.Fprintf(stderr, "sanitize-worker keys %s: --file must not be empty\n", sub)
		return exitUsage
	}
	if sub == "retire" && *id == "" {
		fmt.Fprintln(stderr, "sanitize-worker keys retire: --id is required")
		return exitUsage
	}
	fail := func(what string, err error) int {
		msg := what
		if err != nil {
			msg += ": " + err.Error()
			if r := statekeys.ReasonOf(err); r != statekeys.ReasonNone {
				msg += " (" + string(r) + ")"
			}
		}
		fmt.Fprintf(stderr, "sanitize-worker keys %s: %s\n", sub, msg)
		return exitFailure
	}
	now := time.Now().UTC()

	if sub == "list" {
		r, err := statekeys.FileSource{Path: *file}.Load(ctx)
		if err != nil {
			return fail("cannot read "+*file+" (missing, not mode 0600/0640, or malformed)", err)
		}
		return listKeys(r, *asJSON, stdout)
	}

	unlock, err := lockRingFile(*file)
	if err != nil {
		return fail("cannot lock "+*file+" (another keys command running? remove "+*file+".lock if stale)", nil)
	}
	defer unlock()

	var next *statekeys.Ring
	switch sub {
	case "new":
		if _, err := os.Lstat(*file); err == nil && !*force {
			return fail(*file+" exists; use --force to replace it (every state it sealed stops opening)", nil)
		}
		if next, err = statekeys.GenerateRing(nil, now); err != nil {
			return fail("cannot generate a key", err)
		}
		fmt.Fprintf(stdout, "created %s with active key %s\n", *file, next.Active().ID)
	case "rotate":
		cur, err := statekeys.FileSource{Path: *file}.Load(ctx)
		if err != nil {
			return fail("cannot read "+*file+" (missing, not mode 0600/0640, or malformed)", err)
		}
		var info statekeys.KeyInfo
		if next, info, err = cur.Rotate(nil, now, *stage); err != nil {
			return fail("cannot rotate", err)
		}
		if *stage {
			fmt.Fprintf(stdout, "staged key %s (opens now, seals after the next rotate); active key is still %s\n", info.ID, cur.Active().ID)
		} else {
			fmt.Fprintf(stdout, "active key is now %s; %s keeps opening as verify\n", info.ID, cur.Active().ID)
		}
	case "retire":
		cur, err := statekeys.FileSource{Path: *file}.Load(ctx)
		if err != nil {
			return fail("cannot read "+*file+" (missing, not mode 0600/0640, or malformed)", err)
		}
		if next, err = cur.Retire(*id); err != nil {
			return fail(fmt.Sprintf("cannot retire %q (unknown id, or the active key: rotate first)", *id), nil)
		}
		fmt.Fprintf(stdout, "retired key %s\n", *id)
	}
	if err := next.WriteFile(*file); err != nil {
		return fail("cannot write "+*file, err)
	}
	return exitOK
}

func listKeys(r *statekeys.Ring, asJSON bool, stdout io.Writer) int {
	keys := r.Keys()
	if asJSON {
		b, err := json.MarshalIndent(keys, "", "  ")
		if err != nil {
			return exitFailure
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tCREATED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.ID, k.State, k.Created.UTC().Format(time.RFC3339))
	}
	tw.Flush()
	return exitOK
}

// lockRingFile takes an exclusive lock on path by creating path.lock, so two
// keys commands cannot lose each other's rotation.
func lockRingFile(path string) (func(), error) {
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	return func() { os.Remove(lock) }, nil
}
