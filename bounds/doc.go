// Package bounds counts the shape of a JSON document as it streams past and
// says when a configured limit is crossed: depth, nodes, array items, object
// entries, characters per string, characters per text block and total output
// bytes.
//
// It knows nothing of JSON syntax, MCP or policy files: events in (enter a
// container, add a value, add characters), verdicts out. What to do about a
// verdict (truncate or reject) is the caller's decision.
package bounds
