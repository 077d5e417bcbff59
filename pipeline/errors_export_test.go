package pipeline

// RewriteRPCError is the rewriting of a held JSON-RPC error value, for the
// reference model.
func RewriteRPCError(e *Engine, held []byte) []byte {
	b, _, _ := e.rewriteRPCError(held)
	return b
}
