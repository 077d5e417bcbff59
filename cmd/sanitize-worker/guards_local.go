package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/promptgate"
	"github.com/mcp-sanitize/mcp-sanitize/proxy"
	"github.com/mcp-sanitize/mcp-sanitize/resgate"
)

// The request context of the resource, prompt and completion guards in
// `proxy` and `scan` (docs/resources.md, "Proxy and scan"): who the
// process acts for (--principal, --tenant is the command's own,
// --scopes), which resources it may read without an authorization service
// (--allow-resource, an allow-list of canonical URI prefixes; none refuses
// every resource) and, for scan, the request a result answers
// (--request-params). The completion budget of such a process is
// in-process (promptgate.MemoryBudget): it holds per process only.

// localGuardFlags are those flags.
type localGuardFlags struct {
	principal, scopes string
	allow             listFlag
	requestParams     string // scan only
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (g *localGuardFlags) register(fs *flag.FlagSet, scan bool) {
	fs.StringVar(&g.principal, "principal", "", "`ID` of the principal the guards act for: asked of the authorization hook, charged for completions (docs/resources.md)")
	fs.StringVar(&g.scopes, "scopes", "", "the principal's `SCOPES`, separated by spaces or commas (prompt and completion rules may require them)")
	fs.Var(&g.allow, "allow-resource", "canonical URI `PREFIX` a resources/read may name (an exact URI, or a prefix ending in /; repeatable); without one, a policy with resources refuses every resource in this process")
	if scan {
		fs.StringVar(&g.requestParams, "request-params", "", "the params of the request the result answers: inline `JSON` or @FILE (resources/read {\"uri\"}, prompts/get {\"name\",\"arguments\"}, completion/complete {\"ref\",\"argument\"})")
	}
}

// scopeList splits --scopes.
func (g *localGuardFlags) scopeList() ([]string, error) {
	f := strings.FieldsFunc(g.scopes, func(r rune) bool { return r == ' ' || r == ',' })
	if len(f) > 64 {
		return nil, errors.New("--scopes: at most 64")
	}
	for _, s := range f {
		if !printableASCII(s, 128) {
			return nil, errors.New("--scopes: printable ASCII, at most 128 bytes each")
		}
	}
	return f, nil
}

func printableASCII(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// check validates the flags before anything starts (fleet: --nats-url).
func (g *localGuardFlags) check(fleet bool) error {
	var err error
	if fleet {
		_, err = g.fleetContext()
	} else {
		_, err = g.context(nil, nil)
	}
	return err
}

// context builds the guard context of this process; the warning says
// what a policy with guards will refuse for want of a hook.
func (g *localGuardFlags) context(pol *pipeline.Policy, log *slog.Logger) (*proxy.GuardContext, error) {
	if g.principal != "" && !printableASCII(g.principal, 256) {
		return nil, errors.New("--principal: printable ASCII without spaces, at most 256 bytes")
	}
	sc, err := g.scopeList()
	if err != nil {
		return nil, err
	}
	gc := &proxy.GuardContext{Principal: g.principal, Scopes: sc, Budget: promptgate.NewMemoryBudget(0)}
	if len(g.allow) > 0 {
		a, err := resgate.NewPrefixAuthorizer(g.allow)
		if err != nil {
			return nil, fmt.Errorf("--allow-resource: %v (give canonical URIs: sanitize-worker resources uri)", err)
		}
		gc.Authorizer = a
	}
	if pol != nil && log != nil {
		if pol.Resources != nil && gc.Authorizer == nil {
			log.Warn("the policy guards resources and no --allow-resource is given: every resources/read is refused")
		}
		if (pol.Completions != nil || pol.Prompts != nil) && g.principal == "" {
			log.Warn("the policy guards prompts or completions and no --principal is given: such results are refused")
		}
	}
	return gc, nil
}

// fleetContext is the context sent to the fleet (principal and scopes;
// the workers hold the hooks).
func (g *localGuardFlags) fleetContext() (*proxy.GuardContext, error) {
	if len(g.allow) > 0 {
		return nil, errors.New("--allow-resource goes with the engine in this process; with --nats-url the workers' authorization hook applies")
	}
	return g.context(nil, nil)
}

// maxRequestParamsFile bounds --request-params @FILE.
const maxRequestParamsFile = proxy.MaxRequestParamsBytes

// params reads --request-params (inline JSON or @FILE), compacted.
func (g *localGuardFlags) params() ([]byte, error) {
	v := g.requestParams
	if v == "" {
		return nil, nil
	}
	raw := []byte(v)
	if name, ok := strings.CutPrefix(v, "@"); ok {
		f, err := os.Open(name)
		if err != nil {
			return nil, errors.New("--request-params: cannot open the file")
		}
		defer f.Close()
		if raw, err = io.ReadAll(io.LimitReader(f, maxRequestParamsFile+1)); err != nil {
			return nil, errors.New("--request-params: cannot read the file")
		}
	}
	var b bytes.Buffer
	if len(raw) > maxRequestParamsFile || json.Compact(&b, raw) != nil || b.Len() == 0 || b.Bytes()[0] != '{' {
		return nil, fmt.Errorf("--request-params: a JSON object of at most %d bytes", maxRequestParamsFile)
	}
	return b.Bytes(), nil
}

// scanInput is the guard input of one scanned message.
func (g *localGuardFlags) scanInput(pol *pipeline.Policy, tenant string, log *slog.Logger) (*pipeline.GuardInput, error) {
	gc, err := g.context(pol, log)
	if err != nil {
		return nil, err
	}
	p, err := g.params()
	if err != nil {
		return nil, err
	}
	return &pipeline.GuardInput{Principal: gc.Principal, Tenant: tenant, Scopes: gc.Scopes, Request: p,
		Authorizer: gc.Authorizer, Budget: gc.Budget}, nil
}
