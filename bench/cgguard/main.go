// Command cgguard runs one resources/read result through Engine.Sanitize a
// given number of times in its main goroutine, through the pass alone or
// through the resources guard (resgate) and the pass, so that an
// instruction count taken inside its loop is the cost of those calls alone
// (as bench/cgprobe does for BenchmarkSanitize):
//
//	valgrind --tool=callgrind --toggle-collect='main.loop' cgguard -mode local -n 41
//
// Modes: pass (no guard), https (URI and one authorization), local (URI,
// two authorizations and an Ed25519 receipt over the content). The content
// is -size bytes of English text. docs/resources.md has the figures.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/receipt"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
	"github.com/mcp-sanitize/mcp-sanitize/resuri"
)

func main() {
	mode := flag.String("mode", "local", "pass, https or local")
	size := flag.Int("size", 4096, "content bytes")
	n := flag.Int("n", 11, "Sanitize calls inside loop (after one outside it)")
	flag.Parse()
	adapter := strings.Repeat("ab", 32)
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pol := &pipeline.Policy{Version: "cg-1", Resources: &resgate.Policy{
		Schemes:            []resuri.Scheme{{Name: "aidefend-file", Kind: resuri.KindRoot}, {Name: "https", Kind: resuri.KindHTTPS}},
		Roots:              map[string]resgate.Root{"docs": {RootID: "root-docs", MIMEType: "text/plain"}},
		AdapterBuildSha256: adapter,
		BrokerKeys:         map[string]string{"b1": base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))},
	}}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", *size/45+1)[:*size]
	item := map[string]any{"uri": "https://example.com/guide/intro", "mimeType": "text/plain", "text": text}
	uri := "https://example.com/guide/intro"
	if *mode == "local" {
		uri = "aidefend-file://docs/guide/intro.txt"
		sum := sha256.Sum256([]byte(text))
		now := time.Now().UTC()
		rec, err := receipt.Sign(priv, "b1", receipt.Receipt{AdapterBuildSha256: adapter, BytesSha256: hex.EncodeToString(sum[:]),
			Control: receipt.Control, IssuedAt: now.Add(-time.Second).Format(time.RFC3339), ExpiresAt: now.Add(4 * time.Minute).Format(time.RFC3339),
			ObjectIdentity: receipt.ObjectIdentity{FileID: "1", LinkCount: 1, Size: int64(len(text)), Type: "regular", VolumeID: "v"},
			Operation:      "read", Outcome: "PASS", PlatformProfile: "linux", PolicyVersion: "cg-1", RelativePath: "guide/intro.txt",
			RootID: "root-docs", SchemaVersion: receipt.SchemaVersion})
		if err != nil {
			fmt.Fprintln(os.Stderr, "cgguard: sign:", err)
			os.Exit(1)
		}
		item["uri"] = uri
		item["_meta"] = map[string]any{resgate.MetaReceipt: json.RawMessage(rec)}
	}
	doc, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"contents": []any{item}}})
	info := pipeline.MessageInfo{Kind: pipeline.KindResourceResult, Guard: &pipeline.GuardInput{Principal: "alice",
		Request: []byte(`{"uri":"` + uri + `"}`),
		Authorizer: resgate.AuthorizerFunc(func(context.Context, resgate.AuthzRequest) (resgate.Decision, error) {
			return resgate.Decision{Outcome: resgate.OutcomeAllow}, nil
		})}}
	if *mode == "pass" {
		pol = nil
	} else if *mode != "https" && *mode != "local" {
		fmt.Fprintln(os.Stderr, "cgguard: -mode is pass, https or local")
		os.Exit(2)
	}
	e, err := pipeline.NewEngine(pol)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cgguard:", err)
		os.Exit(1)
	}
	var out pipeline.Buffer
	// One call outside the loop builds what the first call builds.
	if ev, err := e.Sanitize(context.Background(), bytes.NewReader(doc), &out, info); err != nil || ev.Outcome == pipeline.OutcomeRejected {
		fmt.Fprintln(os.Stderr, "cgguard: the message was refused:", ev.Reason)
		os.Exit(1)
	}
	loop(e, doc, &out, info, *n)
}

//go:noinline
func loop(e *pipeline.Engine, doc []byte, out *pipeline.Buffer, info pipeline.MessageInfo, n int) {
	for range n {
		out.Reset()
		e.Sanitize(context.Background(), bytes.NewReader(doc), out, info)
	}
}
