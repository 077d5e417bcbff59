package pipeline

import "github.com/mcp-sanitize/mcp-sanitize/pipeline/internal/jsonlex"

// The member path.
//
// A structured result is mostly members of small objects: a name, a colon
// and a short string or a number, then a comma and the next name. feed
// gives each of those tokens a turn of its loop and a call of the lexer's
// Next, whose state switch and dispatch cost more than the work on a
// short name or value. members reads the tokens of consecutive members
// with the lexer's steps (jsonlex/steps.go), which do what Next does for
// exactly these tokens, and makes the same calls feed makes for them, in
// the same order and with the same offsets: lexString for the name and a
// string value (the whole-string path, wholestring.go, where it applies),
// beginValue, number for a number, afterValue and beginKey for the comma
// and the next name. Anything else (a value that is an object, an array
// or a literal, a string or number cut by the chunk's end, whitespace the
// steps do not skip, a syntax error) goes back to feed's loop at the byte
// where the steps stopped, with the lexer in the state Next left it in.
// The engine's noMembers switch (and noShadow) turns it off, so the
// differential tests compare it with feed's loop.

// members goes on from the opening quote of a member name, read by feed at
// b[i-1] (beginKey done), and returns the index feed goes on from.
func (p *pass) members(b []byte, i int) int {
	if p.noMembers {
		return i
	}
	for {
		if i = p.lexString(b, i); p.fail != nil || p.lx.InString() {
			return i
		}
		k, j := p.lx.ColonValue(b, i)
		switch k {
		case jsonlex.BeginString:
			p.beginValue(b, k, p.lx.Off())
			if i = j; p.fail != nil {
				return i
			}
			if i = p.lexString(b, i); p.fail != nil || p.lx.InString() {
				return i
			}
		case jsonlex.BeginNumber:
			p.beginValue(b, k, p.lx.Off())
			if i = j; p.fail != nil {
				return i
			}
			if k, j = p.lx.ShortNumber(b, i); k != jsonlex.Number {
				return i
			}
			i = j
			p.number()
		default:
			return i
		}
		if p.fail != nil {
			return i
		}
		ok, j := p.lx.Comma(b, i)
		if !ok {
			return i
		}
		i = j
		p.afterValue(b, p.lx.Off())
		p.nameCtx = true // lx.Object: a comma in an object
		if ok, j = p.lx.Name(b, i); !ok || p.fail != nil {
			return i
		}
		i = j
		p.beginKey(p.lx.Off())
	}
}
