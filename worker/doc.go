// Package worker is the NATS side of the fleet: it subscribes to the
// subjects MCP servers publish on, hands each message to the packages that
// do the work, and publishes what comes back (clean output, replies,
// evidence). Of the packages that import nats.go it is the one that runs
// the services; client, payload and toolcat import it too, for the reasons
// docs/architecture.md gives ("The NATS boundary"), and internal/archtest
// enforces that list.
//
// What it owns today:
//
//   - Service (serve*.go): the sanitization service, inline request/reply
//     on mcp.sanitize.<kind> in one queue group and the durable pull
//     consumer on MCP_RAW, publishing clean outputs, evidence and DLQ
//     entries with Nats-Msg-Id deduplication; EnsureStreams and
//     EnsureConsumer (streams.go); Metrics (metrics.go). docs/nats.md.
//   - StateService (state.go): the request/reply subjects mcp.state.seal and
//     mcp.state.verify over package statekeys, in one queue group, with
//     evidence published on mcp.evidence.<tenant>.
//   - KVStore and KVKeySource (state_kv.go): the JetStream KV single-use
//     store (create-if-absent with a per-key TTL) and the KV-kept key ring
//     that is watched so rotation needs no restart.
//
// What it does not own: sealing, verification and elicitation rules
// (statekeys), the sanitizing pass (pipeline), flag parsing (cmd).
package worker
