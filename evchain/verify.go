package evchain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strconv"
)

// Kinds of Problem.
const (
	// KindAltered: a record's bytes do not hash to its own hash, or a
	// checkpoint vouched for another record at its sequence.
	KindAltered = "altered"
	// KindRelinked: a record's prev is not the hash of the record before
	// it: that record was replaced (its hash recomputed), or this record's
	// link was changed.
	KindRelinked = "relinked"
	// KindMissing: sequences of a chain that no record holds and no
	// checkpoint declared void.
	KindMissing = "missing"
	// KindTruncated: a checkpoint vouches for records after the last one
	// seen.
	KindTruncated = "truncated"
	// KindDuplicate: two different records with one sequence.
	KindDuplicate = "duplicate"
	// KindBadLink: a record whose chain member is damaged.
	KindBadLink = "bad-link"
	// KindBadCheckpoint: a checkpoint that does not parse, names an
	// unknown key or whose signature does not verify.
	KindBadCheckpoint = "bad-checkpoint"
)

// Problem is one break of a chain. Ref is the caller's reference of the
// record ("line 12", "stream seq 345"); nothing of the record's content is
// repeated.
type Problem struct {
	Ref    string `json:"ref,omitempty"`
	Chain  string `json:"chain,omitempty"`
	Seq    uint64 `json:"seq,omitempty"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// ChainSummary is what was seen of one chain.
type ChainSummary struct {
	ID      string `json:"id"`
	First   uint64 `json:"first"`
	Last    uint64 `json:"last"`
	Records int64  `json:"records"`
	Void    int64  `json:"void,omitempty"`
	// Vouched is the highest sequence a verified checkpoint vouched for.
	Vouched uint64 `json:"vouched,omitempty"`
	// UnverifiedTail counts the sequences after the last one a verified
	// checkpoint vouched for (all of them when none did): records a cut
	// of the tail could have removed undetected. Not a problem: the
	// worker's next checkpoint vouches for them; zero with Options.NoTail.
	UnverifiedTail uint64 `json:"unverifiedTail,omitempty"`
}

// Report is the result of a verification.
type Report struct {
	Records     int64          `json:"records"`
	Unchained   int64          `json:"unchained,omitempty"`
	Checkpoints int64          `json:"checkpoints"`
	Verified    int64          `json:"checkpointsVerified"`
	Chains      []ChainSummary `json:"chains"`
	// UnverifiedTail is the sum of the chains' UnverifiedTail.
	UnverifiedTail uint64    `json:"unverifiedTail,omitempty"`
	Problems       []Problem `json:"problems"`
	ProblemsCut    int64     `json:"problemsNotListed,omitempty"`
}

// OK reports that no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.ProblemsCut == 0 }

// Options configures a Verifier.
type Options struct {
	// Keys looks up a checkpoint's key id; nil verifies no checkpoint
	// (each is then a bad-checkpoint problem).
	Keys func(id string) (ed25519.PublicKey, bool)
	// Ranged says the records are a range of a longer history: a chain may
	// start after sequence 1. Otherwise a chain must start at 1.
	Ranged bool
	// NoTail skips the truncation check (for a range that ends before the
	// present: checkpoints after its last record are expected).
	NoTail bool
	// Window is how far records may arrive out of their chain's order, and
	// how many recent hashes are kept per chain for checkpoints (default
	// 65536). Memory is bounded by it, not by the number of records.
	Window int
	// MaxProblems caps the problems listed (default 1000); the rest are
	// counted.
	MaxProblems int
}

type entry struct {
	hash, prev [32]byte
	ref        string
}

type chainState struct {
	id       string
	next     uint64 // the next sequence to link (0: not started)
	last     entry  // the record of sequence next-1
	haveLast bool
	pending  map[uint64]entry
	recent   map[uint64][32]byte
	first    uint64
	count    int64
	void     map[uint64]bool
	gaps     [][2]uint64 // missing spans, before void is applied
	gapRefs  [][2]string
	cps      map[uint64]cpSeen // verified checkpoints not yet matched
	vouched  uint64
}

type cpSeen struct {
	hash [32]byte
	ref  string
}

// Verifier checks records and checkpoints added one at a time, in about
// their chains' order (within Options.Window).
type Verifier struct {
	hasher hash.Hash
	o      Options
	chains map[string]*chainState
	order  []string
	r      Report
}

// NewVerifier returns a verifier.
func NewVerifier(o Options) *Verifier {
	if o.Window <= 0 {
		o.Window = 1 << 16
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = 1000
	}
	return &Verifier{o: o, chains: map[string]*chainState{}, hasher: sha256.New()}
}

func (v *Verifier) problem(p Problem) {
	if len(v.r.Problems) >= v.o.MaxProblems {
		v.r.ProblemsCut++
		return
	}
	v.r.Problems = append(v.r.Problems, p)
}

func (v *Verifier) chain(id string) *chainState {
	c := v.chains[id]
	if c == nil {
		c = &chainState{id: id, pending: map[uint64]entry{}, recent: map[uint64][32]byte{}, void: map[uint64]bool{}, cps: map[uint64]cpSeen{}}
		v.chains[id] = c
		v.order = append(v.order, id)
	}
	return c
}

// Add takes one line: a sealed record, a checkpoint, or a record without a
// link (counted as unchained).
func (v *Verifier) Add(ref string, line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if bytes.HasPrefix(line, []byte(`{"checkpoint":`)) {
		v.addCheckpoint(ref, line)
		return
	}
	v.r.Records++
	l, ok := parseLink(line)
	if !ok {
		if bytes.Contains(line, []byte(`"chain":{"id":`)) {
			v.problem(Problem{Ref: ref, Kind: KindBadLink, Detail: "the record's chain member is damaged"})
		} else {
			v.r.Unchained++
		}
		return
	}
	c := v.chain(l.chain)
	c.count++
	if c.first == 0 || l.seq < c.first {
		c.first = l.seq
	}
	if recordHash(&v.hasher, line[:len(line)-hashTail]) != l.hash {
		v.problem(Problem{Ref: ref, Chain: c.id, Seq: l.seq, Kind: KindAltered, Detail: "the record's bytes do not match its hash"})
	}
	e := entry{hash: l.hash, prev: l.prev, ref: ref}
	if c.next != 0 && l.seq < c.next {
		if old, ok := c.recent[l.seq]; ok && old != l.hash {
			v.problem(Problem{Ref: ref, Chain: c.id, Seq: l.seq, Kind: KindDuplicate, Detail: "another record has this sequence"})
		}
		return // a repeat of a record linked already, or one before the range
	}
	if old, ok := c.pending[l.seq]; ok {
		if old.hash != l.hash {
			v.problem(Problem{Ref: ref, Chain: c.id, Seq: l.seq, Kind: KindDuplicate, Detail: "another record (" + old.ref + ") has this sequence"})
		}
		return
	}
	c.pending[l.seq] = e
	if c.next == 0 {
		c.next = 1
		if v.o.Ranged {
			c.next = l.seq
		}
	}
	v.advance(c, false)
}

// advance links the pending records that follow the last one linked; with
// flush (or a window overflow) it skips over a gap.
func (v *Verifier) advance(c *chainState, flush bool) {
	for {
		for {
			e, ok := c.pending[c.next]
			if !ok {
				break
			}
			delete(c.pending, c.next)
			var zero [32]byte
			switch {
			case c.haveLast && e.prev != c.last.hash:
				v.problem(Problem{Ref: e.ref, Chain: c.id, Seq: c.next, Kind: KindRelinked,
					Detail: fmt.Sprintf("its prev is not the hash of sequence %d (%s): that record was replaced, or this record's link changed", c.next-1, c.last.ref)})
			case !c.haveLast && c.next == 1 && e.prev != zero:
				v.problem(Problem{Ref: e.ref, Chain: c.id, Seq: 1, Kind: KindRelinked, Detail: "the first record of a chain has a prev"})
			}
			c.last, c.haveLast = e, true
			c.recent[c.next] = e.hash
			if c.next > uint64(v.o.Window) {
				delete(c.recent, c.next-uint64(v.o.Window))
			}
			if cp, ok := c.cps[c.next]; ok {
				v.checkVouched(c, c.next, cp)
				delete(c.cps, c.next)
			}
			c.next++
		}
		if len(c.pending) == 0 || (!flush && len(c.pending) <= v.o.Window) {
			return
		}
		// A gap: the records from next up to the lowest pending are not
		// here (yet); whether void is known at the end.
		low := uint64(0)
		for s := range c.pending {
			if low == 0 || s < low {
				low = s
			}
		}
		before := ""
		if c.haveLast {
			before = c.last.ref
		}
		c.gaps = append(c.gaps, [2]uint64{c.next, low - 1})
		c.gapRefs = append(c.gapRefs, [2]string{before, c.pending[low].ref})
		c.next, c.haveLast = low, false
	}
}

func (v *Verifier) checkVouched(c *chainState, seq uint64, cp cpSeen) {
	if h, ok := c.recent[seq]; ok && h != cp.hash {
		v.problem(Problem{Ref: cp.ref, Chain: c.id, Seq: seq, Kind: KindAltered,
			Detail: fmt.Sprintf("the checkpoint vouches for another record at sequence %d", seq)})
	}
}

func (v *Verifier) addCheckpoint(ref string, line []byte) {
	v.r.Checkpoints++
	var doc checkpointDoc
	bad := func(d string) { v.problem(Problem{Ref: ref, Kind: KindBadCheckpoint, Detail: d}) }
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || !validChainID(doc.Checkpoint.Chain) || !validChainID(doc.Checkpoint.KeyID) {
		bad("the checkpoint does not parse")
		return
	}
	cp := &doc.Checkpoint
	if v.o.Keys == nil {
		bad("no trusted keys to verify the checkpoint with")
		return
	}
	pub, ok := v.o.Keys(cp.KeyID)
	if !ok {
		bad("the checkpoint's key is not trusted")
		return
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(doc.Signature)
	msg, merr := checkpointInput(cp)
	if err != nil || merr != nil || len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, msg, sig) {
		bad("the checkpoint's signature does not verify")
		return
	}
	var h [32]byte
	if len(cp.Hash) != 71 || cp.Hash[:7] != "sha256:" {
		bad("the checkpoint's hash is malformed")
		return
	}
	if _, err := hex.Decode(h[:], []byte(cp.Hash[7:])); err != nil {
		bad("the checkpoint's hash is malformed")
		return
	}
	v.r.Verified++
	c := v.chain(cp.Chain)
	for _, s := range cp.Void {
		c.void[s] = true
	}
	if cp.Seq > c.vouched {
		c.vouched = cp.Seq
	}
	seen := cpSeen{hash: h, ref: ref}
	if c.next != 0 && cp.Seq < c.next {
		v.checkVouched(c, cp.Seq, seen)
		return
	}
	c.cps[cp.Seq] = seen
}

// Finish ends the verification and returns the report.
func (v *Verifier) Finish() *Report {
	for _, id := range v.order {
		c := v.chains[id]
		v.advance(c, true)
		last := uint64(0)
		if c.next > 0 {
			last = c.next - 1
		}
		for i, g := range c.gaps {
			v.reportMissing(c, g[0], g[1], c.gapRefs[i][0], c.gapRefs[i][1], KindMissing)
		}
		if !v.o.NoTail && c.vouched > last {
			ref := ""
			if c.haveLast {
				ref = c.last.ref
			}
			v.reportMissing(c, last+1, c.vouched, ref, "", KindTruncated)
		}
		sum := ChainSummary{ID: id, First: c.first, Last: last, Records: c.count, Void: int64(len(c.void)), Vouched: c.vouched}
		if !v.o.NoTail && last > c.vouched && c.count > 0 {
			sum.UnverifiedTail = last - max(c.vouched, c.first-1)
			v.r.UnverifiedTail += sum.UnverifiedTail
		}
		v.r.Chains = append(v.r.Chains, sum)
	}
	slices.SortFunc(v.r.Chains, func(a, b ChainSummary) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	if v.r.Problems == nil {
		v.r.Problems = []Problem{}
	}
	return &v.r
}

// reportMissing reports the sequences lo..hi that are not void, as spans.
func (v *Verifier) reportMissing(c *chainState, lo, hi uint64, before, after, kind string) {
	for s := lo; s <= hi; {
		for s <= hi && c.void[s] {
			s++
		}
		if s > hi {
			return
		}
		e := s
		for e+1 <= hi && !c.void[e+1] {
			e++
		}
		d := "sequence " + strconv.FormatUint(s, 10)
		if e > s {
			d = fmt.Sprintf("sequences %d to %d (%d records)", s, e, e-s+1)
		}
		switch {
		case before != "" && after != "":
			d += " missing between " + before + " and " + after
		case before != "":
			d += " missing after " + before
		case after != "":
			d += " missing before " + after
		default:
			d += " missing"
		}
		if kind == KindTruncated {
			d += ": a checkpoint vouched for them"
		}
		v.problem(Problem{Chain: c.id, Seq: s, Kind: kind, Detail: d})
		s = e + 1
	}
}

// maxLink bounds the length of a link with the member separator before
// it: `,"chain":{"id":"`, the id, the sequence, prev and hash.
const maxLink = 1 + len(`"chain":{"id":"`) + MaxChainID + len(`","seq":`) + 20 + len(`,"prev":"sha256:`) + 64 + 1 + hashTail

// link is a record's parsed chain member.
type link struct {
	chain      string
	seq        uint64
	prev, hash [32]byte
}

// parseLink reads the link at the end of a sealed record.
func parseLink(line []byte) (link, bool) {
	var l link
	// The link is the record's last member, at most maxLink bytes: look
	// there only.
	if len(line) > maxLink {
		line = line[len(line)-maxLink:]
	}
	i := bytes.LastIndex(line, []byte(`"chain":{"id":"`))
	if i < 1 || (line[i-1] != ',' && line[i-1] != '{') {
		return l, false
	}
	rest := line[i+len(`"chain":{"id":"`):]
	q := bytes.IndexByte(rest, '"')
	if q < 1 || q > MaxChainID || !validChainID(string(rest[:q])) {
		return l, false
	}
	l.chain = string(rest[:q])
	rest = rest[q:]
	if !bytes.HasPrefix(rest, []byte(`","seq":`)) {
		return l, false
	}
	rest = rest[len(`","seq":`):]
	n := 0
	for n < len(rest) && n < 20 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	seq, err := strconv.ParseUint(string(rest[:n]), 10, 64)
	if err != nil || seq == 0 || (n > 1 && rest[0] == '0') {
		return l, false
	}
	l.seq = seq
	rest = rest[n:]
	if !bytes.HasPrefix(rest, []byte(`,"prev":"sha256:`)) || len(rest) != len(`,"prev":"sha256:`)+64+1+hashTail {
		return l, false
	}
	rest = rest[len(`,"prev":"sha256:`):]
	if _, err := hex.Decode(l.prev[:], rest[:64]); err != nil || !lowerHex(rest[:64]) {
		return l, false
	}
	rest = rest[64:]
	if !bytes.HasPrefix(rest, []byte(`"`+hashMember)) {
		return l, false
	}
	rest = rest[1+len(hashMember):]
	if _, err := hex.Decode(l.hash[:], rest[:64]); err != nil || !lowerHex(rest[:64]) || string(rest[64:]) != `"}}` {
		return l, false
	}
	return l, true
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// recordHash is SHA-256 of body and the closing braces, without a copy.
func recordHash(h *hash.Hash, body []byte) [32]byte {
	(*h).Reset()
	(*h).Write(body)
	(*h).Write([]byte("}}"))
	var out [32]byte
	(*h).Sum(out[:0])
	return out
}
