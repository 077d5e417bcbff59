package main

import (
	"flag"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// The hooks of the resource, prompt and completion guards in `serve`
// (docs/resources.md): a policy with "resources" asks the authorization
// hook on --authz-subject; a policy with "completions" charges the
// fleet-wide budget in the KV bucket mcp-budgets. Without them those
// guards refuse every result (fail closed). Both are always wired, since a
// signed policy pushed to the fleet later may need them: the authorizer
// costs nothing until asked, and the budget opens its bucket on the first
// charge.

// guardFlags are the settings of the guards' hooks.
type guardFlags struct {
	authzSubject string
	authzTimeout time.Duration
}

func (g *guardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.authzSubject, "authz-subject", wire.SubjectResourceAuthz, "`SUBJECT` of the resource authorization hook (NATS request/reply, docs/resources.md), asked when a policy has resources")
	fs.DurationVar(&g.authzTimeout, "authz-timeout", worker.DefaultAuthzTimeout, "deadline of one authorization request (an outage refuses the resource)")
}

// options returns the worker options of the hooks.
func (g *guardFlags) options(nc *nats.Conn, replicas int) ([]worker.ServeOption, error) {
	a, err := worker.NewNATSAuthorizer(nc, g.authzSubject, g.authzTimeout)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	b, err := worker.NewKVBudget(js, worker.KVBudgetOptions{Replicas: replicas})
	if err != nil {
		return nil, err
	}
	return []worker.ServeOption{worker.WithAuthorizer(a), worker.WithCompletionBudget(b)}, nil
}
