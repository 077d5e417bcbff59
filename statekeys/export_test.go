package statekeys

// Internals for the tests of package statekeys_test, which import package
// elicit for a real Guard (elicit imports statekeys, so those tests cannot
// live inside package statekeys).

var OpenToken = openToken

// RingSecret returns the raw secret of key i of r.
func RingSecret(r *Ring, i int) []byte { return r.keys[i].secret }

// RingOpener is Ring.opener.
var RingOpener = (*Ring).opener

// Kinds of input binding.
const (
	KindSampling = kindSampling
	KindRoots    = kindRoots
)
