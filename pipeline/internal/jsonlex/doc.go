// Package jsonlex is a resumable JSON lexer that knows JSON only (RFC 8259):
// it reports tokens and string segments with their input offsets to a loop
// in its caller, one call of Lexer.Next at a time, and its state survives any
// chunk boundary, inside a string, an escape, a surrogate pair, a UTF-8
// sequence, a number or a literal. The zero Lexer is ready.
//
// It decodes strings into segments (Text runs as they are in the input,
// Escape bytes, Rune for \u escapes, Invalid for invalid UTF-8 and lone
// surrogates) but decides nothing about them: what a string means, how
// invalid UTF-8 is handled, what is kept and what is written are its
// caller's (the pipeline's shape layer and string chain). It holds no
// buffer of the input and allocates only one bit per open container;
// bounds on depth and size are its caller's, except MaxNumber, the longest
// number token.
//
// A caller may read the plain bytes of a string itself, with its own fast
// path, while StringIdle reports that nothing is pending, end the string
// with CloseQuote, and hand the rest to Next: the pipeline does so with its
// vector kernel.
package jsonlex
