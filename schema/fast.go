package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// This file is the fast path of Validate: a boolean validator over the
// library's compiled schema for draft 2020-12 schemas that use only
// keywords whose meaning does not depend on annotations or dynamic scope.
// It answers "valid" on its own; every other answer (invalid, or a case it
// does not handle) goes to the library, which also builds the Violation.
// FuzzFastPath and the suite test demand that both agree.
//
// Handled: boolean schemas, $ref, type, const, enum, not, allOf, anyOf,
// oneOf, if/then/else, the object keywords (properties, patternProperties,
// additionalProperties, required, min/maxProperties, propertyNames,
// dependentRequired, dependentSchemas), the array keywords (prefixItems,
// items, min/maxItems, uniqueItems up to maxFastUnique items, contains,
// min/maxContains), the string keywords (min/maxLength, pattern) and the
// number keywords (minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// multipleOf). A schema that reaches anything else ($dynamicRef,
// unevaluated*, asserted format or content, older drafts, extensions) has
// no fast path. Values must be of Decode's representation.

// maxFastUnique bounds the items uniqueItems compares pairwise.
const maxFastUnique = 256

// maxFastFrames bounds the schemas entered along one validation path (at
// all instance locations together); beyond it the library decides.
const maxFastFrames = 512

// fstack holds the schemas entered along the current path. A schema entered
// twice at one instance location is a reference cycle: the fast path
// declines and the library reports it.
type fstack struct {
	n      int
	work   int // schemas entered so far
	budget int
	nodes  [maxFastFrames]*fnode
}

// validate runs the fast path on v with a budget of schema evaluations.
// A valid verdict is exact whatever the budget; when the budget ran out
// before one, the verdict is fastBudget.
func (n *fnode) validate(v any, budget int) verdict {
	st := fstack{budget: budget}
	r := n.check(v, &st, 0)
	if r != fastValid && st.work > st.budget {
		return fastBudget
	}
	return r
}

type verdict uint8

const (
	fastValid verdict = iota
	fastInvalid
	fastUnknown
	// fastBudget: the evaluation budget ran out before a valid verdict.
	// Validate fails closed on it rather than asking the library, whose
	// evaluation is just as costly and cannot be interrupted.
	fastBudget
)

const (
	tNull uint8 = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

type bound struct {
	r     *big.Rat
	i     int64
	isInt bool // r is an integer that fits an int64 (i)
}

func newBound(r *big.Rat) *bound {
	if r == nil {
		return nil
	}
	b := &bound{r: r}
	if r.IsInt() && r.Num().IsInt64() {
		b.i, b.isInt = r.Num().Int64(), true
	}
	return b
}

type patNode struct {
	re jsonschema.Regexp
	n  *fnode
}

type fnode struct {
	boolv  int8 // 0 none, 1 true schema, -1 false schema
	types  uint8
	constv *any
	enum   []any

	ref                 *fnode
	not                 *fnode
	allOf, anyOf, oneOf []*fnode
	ifn, then, els      *fnode

	minProps, maxProps int // -1: none
	required           []string
	propNames          *fnode
	props              map[string]*fnode
	patProps           []patNode
	addl               int8 // 0 none, 1 true, -1 false, 2 schema
	addlNode           *fnode
	depReq             map[string][]string
	depSch             map[string]*fnode

	minItems, maxItems       int
	unique                   bool
	contains                 *fnode
	minContains, maxContains int
	prefix                   []*fnode
	items                    *fnode

	minLen, maxLen int
	pattern        jsonschema.Regexp

	min, max, xmin, xmax, mult *bound

	noRaw bool       // uses a keyword ValidRaw does not handle (raw.go)
	pidx  *propIndex // ValidRaw's lookup of props (rawprops.go), or nil
	// leaf: ValidRaw enters n alone (no boolean schema, $ref, allOf or
	// unhandled keyword).
	leaf bool
	// anyString: n checks nothing of a string but its type, so ValidRaw
	// reads a string under it without decoding it.
	anyString bool
	// anyNumber: n has no number keyword, const or enum (rawNumber checks
	// only its type).
	anyNumber bool
}

func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// buildFast returns the fast-path tree of s and the fast node of every
// subschema, or nil when s reaches a keyword the fast path does not handle.
func buildFast(s *jsonschema.Schema) (*fnode, map[*jsonschema.Schema]*fnode) {
	memo := map[*jsonschema.Schema]*fnode{}
	n, ok := fastNode(s, memo)
	if !ok {
		return nil, nil
	}
	for _, x := range memo {
		x.noRaw = rawUnhandled(x)
		x.pidx = newPropIndex(x)
		x.leaf = x.boolv == 0 && x.ref == nil && len(x.allOf) == 0 && !x.noRaw
		x.anyString = x.minLen < 0 && x.maxLen < 0 && x.pattern == nil && x.constv == nil && x.enum == nil
		x.anyNumber = x.min == nil && x.max == nil && x.xmin == nil && x.xmax == nil && x.mult == nil && x.constv == nil && x.enum == nil
	}
	return n, memo
}

// newSchema wraps a compiled schema with its fast path.
func newSchema(js *jsonschema.Schema, doc any, lim Limits, digest string, size int) *Schema {
	fast, nodes := buildFast(js)
	return &Schema{s: js, fast: fast, nodes: nodes, budget: lim.MaxEvaluations, digest: digest, size: size, binary: binaryLocations(doc)}
}

// matches reports whether v is valid against sub, a subschema of s (used by
// Project to pick anyOf/oneOf branches and if). The fast path answers when
// it can; a value whose evaluation runs out of budget counts as not
// matching (Project then keeps the union of the branches).
func (s *Schema) matches(sub *jsonschema.Schema, v any) bool {
	if n := s.nodes[sub]; n != nil {
		switch n.validate(v, s.budget) {
		case fastValid:
			return true
		case fastInvalid, fastBudget:
			return false
		}
	}
	return sub.Validate(v) == nil
}

func fastNode(s *jsonschema.Schema, memo map[*jsonschema.Schema]*fnode) (*fnode, bool) {
	if s == nil {
		return nil, true
	}
	if n, ok := memo[s]; ok {
		return n, true
	}
	n := &fnode{}
	memo[s] = n
	if s.Bool != nil {
		n.boolv = -1
		if *s.Bool {
			n.boolv = 1
		}
		return n, true
	}
	if s.DraftVersion != 2020 || s.RecursiveRef != nil || s.DynamicRef != nil || s.Format != nil ||
		len(s.Dependencies) > 0 || s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil ||
		s.Items != nil || s.AdditionalItems != nil || s.ContentEncoding != nil || s.ContentMediaType != nil ||
		s.ContentSchema != nil || len(s.Extensions) > 0 {
		return nil, false
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				n.types |= tNull
			case "boolean":
				n.types |= tBool
			case "number":
				n.types |= tNumber
			case "integer":
				n.types |= tInteger
			case "string":
				n.types |= tString
			case "array":
				n.types |= tArray
			case "object":
				n.types |= tObject
			default:
				return nil, false
			}
		}
	}
	n.constv = s.Const
	if s.Enum != nil {
		n.enum = s.Enum.Values
	}
	one := func(c *jsonschema.Schema) (*fnode, bool) { return fastNode(c, memo) }
	many := func(cs []*jsonschema.Schema) ([]*fnode, bool) {
		out := make([]*fnode, 0, len(cs))
		for _, c := range cs {
			x, ok := one(c)
			if !ok {
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	}
	var ok bool
	for _, step := range []func() bool{
		func() bool { n.ref, ok = one(s.Ref); return ok },
		func() bool { n.not, ok = one(s.Not); return ok },
		func() bool { n.allOf, ok = many(s.AllOf); return ok },
		func() bool { n.anyOf, ok = many(s.AnyOf); return ok },
		func() bool { n.oneOf, ok = many(s.OneOf); return ok },
		func() bool { n.ifn, ok = one(s.If); return ok },
		func() bool { n.then, ok = one(s.Then); return ok },
		func() bool { n.els, ok = one(s.Else); return ok },
		func() bool { n.propNames, ok = one(s.PropertyNames); return ok },
		func() bool { n.contains, ok = one(s.Contains); return ok },
		func() bool { n.prefix, ok = many(s.PrefixItems); return ok },
		func() bool { n.items, ok = one(s.Items2020); return ok },
	} {
		if !step() {
			return nil, false
		}
	}
	n.minProps, n.maxProps = intOr(s.MinProperties), intOr(s.MaxProperties)
	n.required = s.Required
	if s.Properties != nil {
		n.props = make(map[string]*fnode, len(s.Properties))
		for k, c := range s.Properties {
			x, ok := one(c)
			if !ok {
				return nil, false
			}
			n.props[k] = x
		}
	}
	for re, c := range s.PatternProperties {
		x, ok := one(c)
		if !ok {
			return nil, false
		}
		n.patProps = append(n.patProps, patNode{re, x})
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		n.addl = -1
		if a {
			n.addl = 1
		}
	case *jsonschema.Schema:
		x, ok := one(a)
		if !ok {
			return nil, false
		}
		n.addl, n.addlNode = 2, x
	default:
		return nil, false
	}
	n.depReq = s.DependentRequired
	if len(s.DependentSchemas) > 0 {
		n.depSch = make(map[string]*fnode, len(s.DependentSchemas))
		for k, c := range s.DependentSchemas {
			x, ok := one(c)
			if !ok {
				return nil, false
			}
			n.depSch[k] = x
		}
	}
	n.minItems, n.maxItems = intOr(s.MinItems), intOr(s.MaxItems)
	n.unique = s.UniqueItems
	n.minContains, n.maxContains = intOr(s.MinContains), intOr(s.MaxContains)
	n.minLen, n.maxLen = intOr(s.MinLength), intOr(s.MaxLength)
	n.pattern = s.Pattern
	n.min, n.max = newBound(s.Minimum), newBound(s.Maximum)
	n.xmin, n.xmax = newBound(s.ExclusiveMinimum), newBound(s.ExclusiveMaximum)
	n.mult = newBound(s.MultipleOf)
	return n, true
}

// num is a JSON number of Decode's representation. Plain integers and
// decimals without an exponent whose integer part fits an int64 are
// compared exactly without big.Rat; anything else is parsed into a Rat.
type num struct {
	lit   json.Number
	i     int64 // the value, when isInt
	isInt bool  // the literal is a plain integer that fits an int64
	dec   bool  // the literal is -?I.F with I fitting an int64
	neg   bool  // dec: the sign
	ip    int64 // dec: I
	frac  bool  // dec: F has a non-zero digit
	r     *big.Rat
}

func newNum(lit json.Number) num {
	x := num{lit: lit}
	s := string(lit)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	ipart, fpart, hasDot := strings.Cut(s, ".")
	if ipart == "" || len(ipart) > 18 || !digitsOnly(ipart) || hasDot && (fpart == "" || !digitsOnly(fpart)) {
		return x
	}
	ip, err := strconv.ParseInt(ipart, 10, 64)
	if err != nil {
		return x
	}
	if !hasDot {
		x.isInt, x.i = true, ip
		if neg {
			x.i = -ip
		}
	}
	x.dec, x.neg, x.ip = true, neg, ip
	x.frac = strings.Trim(fpart, "0") != ""
	return x
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (x *num) rat() (*big.Rat, bool) {
	if x.r == nil {
		r, ok := new(big.Rat).SetString(string(x.lit))
		if !ok {
			return nil, false
		}
		x.r = r
	}
	return x.r, true
}

// cmp compares x with b; ok false when x is not a number.
func (x *num) cmp(b *bound) (int, bool) {
	if x.isInt && b.isInt {
		return cmpInt(x.i, b.i), true
	}
	if x.dec && b.isInt && b.i != math.MinInt64 {
		// x = ±(I + F) with 0 <= F < 1.
		if !x.neg {
			if c := cmpInt(x.ip, b.i); c != 0 || !x.frac {
				return c, true
			}
			return 1, true
		}
		c := cmpInt(x.ip, -b.i)
		if c == 0 && x.frac {
			c = 1
		}
		return -c, true
	}
	r, ok := x.rat()
	if !ok {
		return 0, false
	}
	return r.Cmp(b.r), true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (x *num) integer() (bool, bool) {
	if x.dec {
		return !x.frac, true
	}
	r, ok := x.rat()
	if !ok {
		return false, false
	}
	return r.IsInt(), true
}

// fastEqual is JSON equality as the library defines it (numbers compared
// by value); ok false for values outside Decode's representation.
func fastEqual(a, b any) (eq, ok bool) {
	switch x := a.(type) {
	case nil:
		return b == nil, true
	case bool:
		y, isB := b.(bool)
		return isB && x == y, true
	case string:
		y, isS := b.(string)
		return isS && x == y, true
	case json.Number:
		y, isN := b.(json.Number)
		if !isN {
			_, known := fastKind(b)
			return false, known
		}
		if x == y {
			return true, true
		}
		nx, ny := newNum(x), newNum(y)
		if nx.isInt && ny.isInt {
			return nx.i == ny.i, true
		}
		rx, ok1 := nx.rat()
		ry, ok2 := ny.rat()
		if !ok1 || !ok2 {
			return false, false
		}
		return rx.Cmp(ry) == 0, true
	case []any:
		y, isA := b.([]any)
		if !isA {
			_, known := fastKind(b)
			return false, known
		}
		if len(x) != len(y) {
			return false, true
		}
		for i := range x {
			if eq, ok := fastEqual(x[i], y[i]); !ok || !eq {
				return eq, ok
			}
		}
		return true, true
	case map[string]any:
		y, isM := b.(map[string]any)
		if !isM {
			_, known := fastKind(b)
			return false, known
		}
		if len(x) != len(y) {
			return false, true
		}
		for k, xv := range x {
			yv, present := y[k]
			if !present {
				return false, true
			}
			if eq, ok := fastEqual(xv, yv); !ok || !eq {
				return eq, ok
			}
		}
		return true, true
	}
	return false, false
}

// fastKind returns the type bit of a value of Decode's representation.
func fastKind(v any) (uint8, bool) {
	switch v.(type) {
	case nil:
		return tNull, true
	case bool:
		return tBool, true
	case json.Number:
		return tNumber, true
	case string:
		return tString, true
	case []any:
		return tArray, true
	case map[string]any:
		return tObject, true
	}
	return 0, false
}

// check validates v; the frames of st from base on are the schemas entered
// at v's location.
func (n *fnode) check(v any, st *fstack, base int) verdict {
	if n.boolv != 0 {
		if n.boolv > 0 {
			return fastValid
		}
		return fastInvalid
	}
	st.work++
	if st.work > st.budget {
		return fastUnknown
	}
	for i := base; i < st.n; i++ {
		if st.nodes[i] == n {
			return fastUnknown
		}
	}
	if st.n == maxFastFrames {
		return fastUnknown
	}
	st.nodes[st.n] = n
	st.n++
	r := n.checkHere(v, st, base)
	st.n--
	return r
}

func (n *fnode) checkHere(v any, st *fstack, base int) verdict {
	k, known := fastKind(v)
	if !known {
		return fastUnknown
	}
	var nv num
	if k == tNumber {
		nv = newNum(v.(json.Number))
	}
	if n.types != 0 && n.types&k == 0 {
		if k != tNumber || n.types&tInteger == 0 {
			return fastInvalid
		}
		isInt, ok := nv.integer()
		if !ok {
			return fastUnknown
		}
		if !isInt {
			return fastInvalid
		}
	}
	if n.constv != nil {
		eq, ok := fastEqual(v, *n.constv)
		if !ok {
			return fastUnknown
		}
		if !eq {
			return fastInvalid
		}
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			eq, ok := fastEqual(v, e)
			if !ok {
				return fastUnknown
			}
			if eq {
				found = true
				break
			}
		}
		if !found {
			return fastInvalid
		}
	}
	unknown := false
	if n.ref != nil && note(n.ref.check(v, st, base), &unknown) {
		return fastInvalid
	}
	var r verdict
	switch x := v.(type) {
	case map[string]any:
		r = n.checkObject(x, st, base)
	case []any:
		r = n.checkArray(x, st)
	case string:
		r = n.checkString(x)
	case json.Number:
		r = n.checkNumber(&nv)
	}
	if note(r, &unknown) {
		return fastInvalid
	}
	if n.not != nil {
		switch n.not.check(v, st, base) {
		case fastValid:
			return fastInvalid
		case fastUnknown:
			unknown = true
		}
	}
	for _, a := range n.allOf {
		if note(a.check(v, st, base), &unknown) {
			return fastInvalid
		}
	}
	if len(n.anyOf) > 0 {
		any, unk := false, false
		for _, a := range n.anyOf {
			switch a.check(v, st, base) {
			case fastValid:
				any = true
			case fastUnknown:
				unk = true
			}
			if any {
				break
			}
		}
		switch {
		case any:
		case unk:
			unknown = true
		default:
			return fastInvalid
		}
	}
	if len(n.oneOf) > 0 {
		valid, unk := 0, false
		for _, a := range n.oneOf {
			switch a.check(v, st, base) {
			case fastValid:
				valid++
			case fastUnknown:
				unk = true
			}
		}
		switch {
		case valid > 1:
			return fastInvalid
		case unk:
			unknown = true
		case valid == 0:
			return fastInvalid
		}
	}
	if n.ifn != nil {
		switch n.ifn.check(v, st, base) {
		case fastValid:
			if n.then != nil && note(n.then.check(v, st, base), &unknown) {
				return fastInvalid
			}
		case fastInvalid:
			if n.els != nil && note(n.els.check(v, st, base), &unknown) {
				return fastInvalid
			}
		default:
			unknown = true
		}
	}
	if unknown {
		return fastUnknown
	}
	return fastValid
}

// note records an unknown verdict and reports an invalid one.
func note(r verdict, unknown *bool) bool {
	switch r {
	case fastInvalid:
		return true
	case fastUnknown:
		*unknown = true
	}
	return false
}

func (n *fnode) checkObject(obj map[string]any, st *fstack, base int) verdict {
	if n.minProps >= 0 && len(obj) < n.minProps || n.maxProps >= 0 && len(obj) > n.maxProps {
		return fastInvalid
	}
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			return fastInvalid
		}
	}
	unknown := false
	for k, pv := range obj {
		evaluated := false
		if c, ok := n.props[k]; ok {
			evaluated = true
			switch c.check(pv, st, st.n) {
			case fastInvalid:
				return fastInvalid
			case fastUnknown:
				unknown = true
			}
		}
		for _, pp := range n.patProps {
			if pp.re.MatchString(k) {
				evaluated = true
				switch pp.n.check(pv, st, st.n) {
				case fastInvalid:
					return fastInvalid
				case fastUnknown:
					unknown = true
				}
			}
		}
		if !evaluated {
			switch n.addl {
			case -1:
				return fastInvalid
			case 2:
				switch n.addlNode.check(pv, st, st.n) {
				case fastInvalid:
					return fastInvalid
				case fastUnknown:
					unknown = true
				}
			}
		}
		if n.propNames != nil {
			switch n.propNames.check(k, st, st.n) {
			case fastInvalid:
				return fastInvalid
			case fastUnknown:
				unknown = true
			}
		}
	}
	for trigger, deps := range n.depReq {
		if _, ok := obj[trigger]; !ok {
			continue
		}
		for _, d := range deps {
			if _, ok := obj[d]; !ok {
				return fastInvalid
			}
		}
	}
	for trigger, ds := range n.depSch {
		if _, ok := obj[trigger]; !ok {
			continue
		}
		switch ds.check(obj, st, base) {
		case fastInvalid:
			return fastInvalid
		case fastUnknown:
			unknown = true
		}
	}
	if unknown {
		return fastUnknown
	}
	return fastValid
}

func (n *fnode) checkArray(arr []any, st *fstack) verdict {
	if n.minItems >= 0 && len(arr) < n.minItems || n.maxItems >= 0 && len(arr) > n.maxItems {
		return fastInvalid
	}
	unknown := false
	if n.unique && len(arr) > 1 {
		if len(arr) > maxFastUnique {
			unknown = true
		} else {
			for i := 1; i < len(arr); i++ {
				for j := 0; j < i; j++ {
					eq, ok := fastEqual(arr[i], arr[j])
					if !ok {
						return fastUnknown
					}
					if eq {
						return fastInvalid
					}
				}
			}
		}
	}
	for i, item := range arr {
		var c *fnode
		if i < len(n.prefix) {
			c = n.prefix[i]
		} else {
			c = n.items
		}
		if c == nil {
			continue
		}
		switch c.check(item, st, st.n) {
		case fastInvalid:
			return fastInvalid
		case fastUnknown:
			unknown = true
		}
	}
	if n.contains != nil {
		matched := 0
		for _, item := range arr {
			switch n.contains.check(item, st, st.n) {
			case fastValid:
				matched++
			case fastUnknown:
				return fastUnknown
			}
		}
		if n.minContains >= 0 {
			if matched < n.minContains {
				return fastInvalid
			}
		} else if matched == 0 {
			return fastInvalid
		}
		if n.maxContains >= 0 && matched > n.maxContains {
			return fastInvalid
		}
	}
	if unknown {
		return fastUnknown
	}
	return fastValid
}

func (n *fnode) checkString(s string) verdict {
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
			return fastInvalid
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return fastInvalid
	}
	return fastValid
}

func (n *fnode) checkNumber(x *num) verdict {
	if r := boundCheck(x, n.min, -1, false); r != fastValid {
		return r
	}
	if r := boundCheck(x, n.max, 1, false); r != fastValid {
		return r
	}
	if r := boundCheck(x, n.xmin, -1, true); r != fastValid {
		return r
	}
	if r := boundCheck(x, n.xmax, 1, true); r != fastValid {
		return r
	}
	if n.mult != nil {
		if x.isInt && n.mult.isInt && n.mult.i > 0 {
			if x.i%n.mult.i != 0 {
				return fastInvalid
			}
			return fastValid
		}
		r, ok := x.rat()
		if !ok || n.mult.r.Sign() == 0 {
			return fastUnknown
		}
		if !new(big.Rat).Quo(r, n.mult.r).IsInt() {
			return fastInvalid
		}
	}
	return fastValid
}

// boundCheck fails x when it lies beyond b on side (-1 below, 1 above),
// or on b itself when exclusive.
func boundCheck(x *num, b *bound, side int, exclusive bool) verdict {
	if b == nil {
		return fastValid
	}
	c, ok := x.cmp(b)
	if !ok {
		return fastUnknown
	}
	if c == side || exclusive && c == 0 {
		return fastInvalid
	}
	return fastValid
}
