package main

import (
	"context"
	"flag"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// The hooks of the resource, prompt and completion guards in `serve`
// (docs/resources.md): a policy with "resources" asks the authorization
// hook on --authz-subject; a policy with "completions" charges the
// fleet-wide budget in the KV bucket mcp-budgets. Without them those
// guards refuse every result (fail closed), so they are wired whenever a
// loaded policy needs them.

// guardFlags are the settings of the guards' hooks.
type guardFlags struct {
	authzSubject string
	authzTimeout time.Duration
}

func (g *guardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.authzSubject, "authz-subject", wire.SubjectResourceAuthz, "`SUBJECT` of the resource authorization hook (NATS request/reply, docs/resources.md), asked when a policy has resources")
	fs.DurationVar(&g.authzTimeout, "authz-timeout", worker.DefaultAuthzTimeout, "deadline of one authorization request (an outage refuses the resource)")
}

// options returns the worker options of the hooks the engines need.
func (g *guardFlags) options(ctx context.Context, nc *nats.Conn, replicas int, engines ...*pipeline.Engine) ([]worker.ServeOption, error) {
	var needAuthz, needBudget bool
	for _, e := range engines {
		p := e.Policy()
		needAuthz = needAuthz || p.Resources != nil
		needBudget = needBudget || p.Completions != nil
	}
	var opts []worker.ServeOption
	if needAuthz {
		a, err := worker.NewNATSAuthorizer(nc, g.authzSubject, g.authzTimeout)
		if err != nil {
			return nil, err
		}
		opts = append(opts, worker.WithAuthorizer(a))
	}
	if needBudget {
		js, err := jetstream.New(nc)
		if err != nil {
			return nil, err
		}
		bctx, cancel := context.WithTimeout(ctx, serveStartTimeout)
		defer cancel()
		b, err := worker.OpenKVBudget(bctx, js, worker.KVBudgetOptions{Replicas: replicas})
		if err != nil {
			return nil, err
		}
		opts = append(opts, worker.WithCompletionBudget(b))
	}
	return opts, nil
}

// sortedEngines returns the named engines in name order.
func sortedEngines(named map[string]*pipeline.Engine) []*pipeline.Engine {
	var out []*pipeline.Engine
	for _, k := range sortedKeys(named) {
		out = append(out, named[k])
	}
	return out
}
