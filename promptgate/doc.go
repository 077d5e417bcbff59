// Package promptgate guards prompts/get and completion/complete results
// (seed G004) before the normal pass.
//
// Prompts (prompt.go): the request's prompt name must be allow-listed by
// the policy, the principal must hold the prompt's required scopes, every
// argument must be declared (unknown arguments are refused), required ones
// present, and each value must pass its validators (pattern, length, enum,
// required scope) and the checks every argument gets (no control or
// invisible characters, no forbidden role or instruction marker). The
// generated messages may carry only the roles the policy allows, and no
// text in them may carry a forbidden marker, read as a model would read it
// (NFKC, look-alike letters folded, case and spacing ignored).
//
// Completions (completion.go): every request is charged to the principal's
// budget first (Budget; the worker's is a NATS KV counter shared by the
// fleet), the completed argument must be one the policy lists, at most 100
// values go on, each visible to the principal under the policy, and total
// and hasMore are recomputed from what was kept, so a completion is never
// an enumeration oracle.
//
// Every refusal is a *Denial whose reason goes to evidence only; the
// public reply is wire.CodePromptRefused or wire.CodeCompletionRefused,
// whatever the reason. Strings that pass go through the normal pass
// (package pipeline) afterwards, like every string.
//
// What it does not own: the budget's storage (worker.KVBudget), the
// request context's transport (headers, package worker) and string
// sanitization (pipeline, scanners).
package promptgate
