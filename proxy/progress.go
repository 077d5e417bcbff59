package proxy

import "github.com/mcp-sanitize/mcp-sanitize/wire"

// Progress tokens are kept like ids. A client that asks for progress
// names the request by a token of its own (params._meta.progressToken), and
// the server's notifications/progress carry it back: a pass that rewrote it
// (a string token can look like a credential assignment to the secret
// rules) would leave the client unable to pair the progress with its
// request. The proxy remembers the token of each request in flight, and
// when a progress notification names one of them, the token the client
// wrote is put back in the sanitized notification. A token the client did
// not send is left as the pass made it.

// maxProgressToken bounds the tokens remembered (the raw JSON).
const maxProgressToken = 256

// progressTokenOf is the raw progress token of a request's params, or nil.
func progressTokenOf(params []byte) []byte {
	var tok []byte
	topMembers(params, func(key, val []byte) bool {
		if string(key) != "_meta" {
			return true
		}
		topMembers(val, func(k, v []byte) bool {
			if string(k) == "progressToken" {
				tok = v
				return false
			}
			return true
		})
		return false
	})
	if len(tok) == 0 || len(tok) > maxProgressToken {
		return nil
	}
	if _, ok := idKey(tok); !ok {
		return nil
	}
	return append([]byte(nil), tok...)
}

// notificationToken is the raw progressToken of a notifications/progress
// message's params (a sub-slice of msg), or nil.
func notificationToken(params []byte) []byte {
	var tok []byte
	topMembers(params, func(key, val []byte) bool {
		if string(key) == "progressToken" {
			tok = val
			return false
		}
		return true
	})
	return tok
}

// addToken and dropToken count the tokens of the requests in flight (s.mu
// held).
func (s *Session) addToken(tok []byte) {
	if k, ok := idKey(tok); ok && tok != nil {
		s.tokens[k]++
	}
}

func (s *Session) dropToken(tok []byte) {
	if k, ok := idKey(tok); ok && tok != nil {
		if s.tokens[k]--; s.tokens[k] <= 0 {
			delete(s.tokens, k)
		}
	}
}

// markProgress notes, in the order the server wrote its messages, whether
// a progress notification names the token of a request in flight: its
// pass runs beside the pass of the response that ends the request, which
// forgets the token.
func (s *Session) markProgress(e *envelope) {
	if e.typ != msgNotification || e.method != wire.MethodNotifyProgress {
		return
	}
	tok := notificationToken(e.params)
	k, ok := idKey(tok)
	if !ok || len(tok) > maxProgressToken {
		return
	}
	s.mu.Lock()
	e.knownToken = s.tokens[k] > 0
	s.mu.Unlock()
}

// restoreToken puts the token raw that the server's progress notification
// named (as in its message) back into the sanitized body.
func restoreToken(raw, body []byte) []byte {
	var at, end int
	found := false
	topMembers(body, func(key, val []byte) bool {
		if string(key) != "params" {
			return true
		}
		if tok := notificationToken(val); tok != nil {
			found = true
			at = offsetOf(body, tok)
			end = at + len(tok)
		}
		return false
	})
	if !found || string(body[at:end]) == string(raw) {
		return body
	}
	out := make([]byte, 0, len(body)-(end-at)+len(raw))
	out = append(out, body[:at]...)
	out = append(out, raw...)
	return append(out, body[end:]...)
}
