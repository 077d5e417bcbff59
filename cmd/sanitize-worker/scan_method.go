package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// methodUsage is the help of scan --method.
func methodUsage() string {
	return "MCP `METHOD` of the message: of the request a result answers (tools/list, initialize, ...) or of the server's own request or notification (sampling/createMessage, notifications/progress, ...); picks the kind (" +
		strings.Join(wire.KnownMethods(), ", ") + "; any other method: generic) unless --kind names one"
}

// kindUsage is the help of scan --kind: every kind.
func kindUsage() string {
	names := make([]string, 0, len(pipeline.Kinds()))
	for _, k := range pipeline.Kinds() {
		names = append(names, string(k))
	}
	return "message `KIND`: " + strings.Join(names, ", ") + " (or --method)"
}

// scanKind decides the kind of scan from --kind and --method: --method
// picks the kind of its method (wire.KindForMethod) unless --kind was
// given too, which must then be that kind (or any kind for a method the
// table does not know).
func scanKind(fs *flag.FlagSet, kindFlag, method string, stderr io.Writer) (pipeline.Kind, bool) {
	kindSet := false
	fs.Visit(func(f *flag.Flag) { kindSet = kindSet || f.Name == "kind" })
	if method != "" && !kindSet {
		k := wire.KindForMethod(method)
		if _, ok := pipeline.ParseKind(string(k)); !ok {
			fmt.Fprintf(stderr, "sanitize-worker scan: --method %q has no kind of its own here; name one with --kind, or a method of: %s\n",
				method, strings.Join(wire.KnownMethods(), ", "))
			return "", false
		}
		return k, true
	}
	kind, ok := pipeline.ParseKind(kindFlag)
	if !ok {
		unknownValue(stderr, "scan", "kind", kindFlag, kindNames())
		return "", false
	}
	if method != "" {
		if k := wire.KindForMethod(method); k != wire.KindGeneric && k != kind {
			fmt.Fprintf(stderr, "sanitize-worker scan: --method %q is kind %s, not --kind %s\n", method, k, kind)
			return "", false
		}
	}
	return kind, true
}
