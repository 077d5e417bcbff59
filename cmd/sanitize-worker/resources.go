package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
)

// `sanitize-worker resources` is the operator's tooling of the resources
// guard (docs/resources.md): canonicalize URIs under a policy, make a
// broker key, sign a receipt as a broker would (for tests and the worked
// example) and check one as the worker does.

const resourcesUsage = `usage: sanitize-worker resources <subcommand> [flags]

subcommands:
  uri       print the canonical form, root id and relative path of each URI argument
            under --policy, or the reason it is refused (exit 1)
  keygen    write a new Ed25519 broker key (seed, base64url) to --out (mode 0600) and
            print its public key for the policy's resources.brokerKeys
  sign      sign a path-broker receipt for --content read as --uri under --policy
            (what a broker does; for tests and the worked example) and print it
  verify    check the receipt on stdin against --content and --uri under --policy,
            as the worker does (signature, every binding, times, digest); exit 1 if refused

Run 'sanitize-worker resources <subcommand> -h' for the flags.
`

func runResources(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "sanitize-worker resources: missing subcommand\n\n"+resourcesUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("resources "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	policy := fs.String("policy", "", "policy `FILE` with a resources section (JSON or YAML)")
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, resourcesUsage)
		return exitOK
	case "uri":
		if err := fs.Parse(rest); err != nil {
			return usageExit(err)
		}
		g, code := loadGate(*policy, stderr)
		if g == nil {
			return code
		}
		rc := exitOK
		for _, u := range fs.Args() {
			c, err := g.URIs().Parse(u)
			if err != nil {
				fmt.Fprintf(stdout, "refused\t%s\n", reasonOf(err))
				rc = exitFailure
				continue
			}
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", c.Canonical, c.RootID, c.RelativePath)
		}
		return rc
	case "keygen":
		out := fs.String("out", "", "`FILE` to write the private key seed to (must not exist)")
		id := fs.String("id", "broker-1", "key `ID`")
		if err := fs.Parse(rest); err != nil {
			return usageExit(err)
		}
		if *out == "" {
			fmt.Fprintln(stderr, "sanitize-worker resources keygen: --out is required")
			return exitUsage
		}
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return exitFailure
		}
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "sanitize-worker resources keygen: cannot create the key file (it must not exist)")
			return exitFailure
		}
		_, werr := fmt.Fprintln(f, base64.RawURLEncoding.EncodeToString(priv.Seed()))
		if cerr := f.Close(); werr != nil || cerr != nil {
			return exitFailure
		}
		fmt.Fprintf(stdout, "brokerKeys:\n  %s: %s\n", *id, base64.RawURLEncoding.EncodeToString(pub))
		return exitOK
	case "sign", "verify":
		uri := fs.String("uri", "", "resource `URI` the content was read for")
		content := fs.String("content", "", "content `FILE` (the bytes the result carries)")
		key := fs.String("key", "", "sign: broker key `FILE` (from keygen)")
		id := fs.String("id", "broker-1", "sign: key `ID`")
		ttl := fs.Duration("ttl", time.Minute, "sign: receipt lifetime")
		profile := fs.String("platform", "linux-openat2-v1", "sign: platform profile")
		if err := fs.Parse(rest); err != nil {
			return usageExit(err)
		}
		p, g, code := loadPolicyGate(*policy, stderr)
		if g == nil {
			return code
		}
		u, err := g.URIs().Parse(*uri)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker resources %s: --uri refused: %s\n", sub, reasonOf(err))
			return exitFailure
		}
		data, err := readCapped(*content, p.Resources.MaxResourceBytes)
		if err != nil {
			fmt.Fprintf(stderr, "sanitize-worker resources %s: cannot read --content\n", sub)
			return exitFailure
		}
		sum := sha256.Sum256(data)
		if sub == "sign" {
			priv, err := readSeed(*key)
			if err != nil {
				fmt.Fprintln(stderr, "sanitize-worker resources sign: --key is not a key file from keygen")
				return exitUsage
			}
			now := time.Now().UTC().Truncate(time.Second)
			st, _ := os.Stat(*content)
			s, err := receipt.Sign(priv, *id, receipt.Receipt{
				AdapterBuildSha256: p.Resources.AdapterBuildSha256, BytesSha256: hex.EncodeToString(sum[:]),
				Control: receipt.Control, IssuedAt: now.Format(time.RFC3339), ExpiresAt: now.Add(*ttl).Format(time.RFC3339),
				ObjectIdentity: receipt.ObjectIdentity{FileID: fileID(st), LinkCount: 1, Size: int64(len(data)), Type: receipt.TypeRegular, VolumeID: "example"},
				Operation:      receipt.OperationRead, Outcome: receipt.OutcomePass, PlatformProfile: *profile,
				PolicyVersion: p.Version, RelativePath: u.RelativePath, RootID: u.RootID, SchemaVersion: receipt.SchemaVersion,
			})
			if err != nil {
				fmt.Fprintln(stderr, "sanitize-worker resources sign: cannot sign")
				return exitFailure
			}
			fmt.Fprintf(stdout, "%s\n", s)
			return exitOK
		}
		signed, err := io.ReadAll(io.LimitReader(stdin, receipt.MaxReceiptBytes+1))
		if err != nil {
			return exitFailure
		}
		r, err := g.VerifyReceipt(signed, u, int64(len(data)), sum)
		if err != nil {
			fmt.Fprintf(stdout, "refused\t%s\n", reasonOf(err))
			return exitFailure
		}
		fmt.Fprintf(stdout, "ok\treceiptSha256=%s\n", r.ReceiptSha256)
		return exitOK
	}
	fmt.Fprintf(stderr, "sanitize-worker resources: unknown subcommand %q\n\n%s", sub, resourcesUsage)
	return exitUsage
}

func usageExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

func loadGate(path string, stderr io.Writer) (*resgate.Gate, int) {
	_, g, code := loadPolicyGate(path, stderr)
	return g, code
}

func loadPolicyGate(path string, stderr io.Writer) (*pipeline.Policy, *resgate.Gate, int) {
	if path == "" {
		fmt.Fprintln(stderr, "sanitize-worker resources: --policy is required")
		return nil, nil, exitUsage
	}
	p, err := pipeline.LoadPolicy(path)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker resources: %v\n", err)
		return nil, nil, exitFailure
	}
	if p.Resources == nil {
		fmt.Fprintln(stderr, "sanitize-worker resources: the policy has no resources section")
		return nil, nil, exitFailure
	}
	g, err := resgate.Compile(p.Resources, p.Version)
	if err != nil {
		fmt.Fprintf(stderr, "sanitize-worker resources: %v\n", err)
		return nil, nil, exitFailure
	}
	return p, g, exitOK
}

// reasonOf is the stable reason of a refusal (never input).
func reasonOf(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	if i := strings.Index(s, " in segment"); i >= 0 {
		s = s[:i]
	}
	return s
}

func readCapped(path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = resgate.DefaultMaxResourceBytes
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errors.New("too large")
	}
	return b, nil
}

func readSeed(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 256 {
		return nil, errors.New("bad key file")
	}
	seed, err := base64.RawURLEncoding.Strict().DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, errors.New("bad key file")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// fileID is an opaque identity of the example's file: a digest of its
// size and modification time (a broker uses the inode or file id).
func fileID(st os.FileInfo) string {
	if st == nil {
		return "unknown"
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%d", st.Size(), st.ModTime().UnixNano()))
	return hex.EncodeToString(h[:8])
}
