// Package worker is the NATS side of the fleet: it subscribes to the
// subjects MCP servers publish on, hands each message to the packages that
// do the work, and publishes what comes back (clean output, replies,
// evidence). It is, with cmd/, the only package that imports nats.go.
//
// What it owns today:
//
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
