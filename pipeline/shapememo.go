package pipeline

// The shape memo.
//
// A listing is an array of objects with the same member names in the same
// order, and every name costs the same questions each time: its hash for
// the duplicate check (keySet), the role of its value (memberNext), the
// redactor's short-string answer (ShortCleanName) and whether it is a
// member-name context for its value (ResetWithContext). Each answer is a
// function of the name's bytes and of what memberNext reads of the object
// (its role and region, whether its parent is a result, the message's
// result kind) and of the engine's catalog, nothing else. So each frame
// keeps the names of the last object read at its depth, with those
// answers: a name equal, byte for byte, to the one the memo holds at its
// place takes them from there. Every bound, drop and refusal of keyDone
// is decided as before; only the computing of the answers is skipped.
//
// The memo's names are always the first names of one object, which held
// them without a duplicate: a name is recorded (at its place, the memo
// cut there) only after it passed the duplicate check, and only a name
// that missed is recorded, so an object's names hit in an unbroken run
// from its first. So while an object's names all hit, none can repeat an
// earlier one, and their duplicate check is left out: their kept hashes
// go into the object's keySet (frame.keysLazy) at its first name that
// missed, before that name's check. Names are recorded only when the whole-string path
// read them and the redactor passed them unchanged (the key written is
// the name read), for objects whose role memberNext decides from the name
// alone (generic and structured objects of a message of no special kind).
// The engine's noMembers switch turns it off.

const (
	shapeKeyMax = 32 // the longest name recorded
	shapeMax    = 64 // the most names recorded for one object
)

// shapeEnt is the memo's entry for one member name.
type shapeEnt struct {
	key []byte
	w   []byte // `,"key":`, what emitter.member writes for the plain key after a comma
	h   uint64 // keyHash(key)
	nx  next   // memberNext's answer
	ctx uint8  // ctxUnknown, ctxNo or ctxYes: ResetWithContext's answer
}

const (
	ctxUnknown uint8 = iota
	ctxNo            // not a member-name context: ResetWithContext is Reset
	ctxYes
)

// objShape is the memo of one depth: the names of the last object read
// there, in order, and what memberNext read of that object.
type objShape struct {
	role   role
	region region
	ptop   bool // the object's parent is a result (memberNext's "code")
	ents   []shapeEnt
}

// shapeOpen starts the memo of the object f just opened (on the stack).
func (p *pass) shapeOpen(f *frame) {
	p.shapeEnt = nil
	f.shapeOn = false
	if p.noMembers || f.skip || p.rk != rkOther || f.role != roleGeneric && f.role != roleStructured {
		return
	}
	n := len(p.stack)
	ptop := n >= 2 && (p.stack[n-2].role == roleTop || p.stack[n-2].role == roleResult)
	s := &f.shape
	if s.role != f.role || s.region != f.region || s.ptop != ptop {
		s.role, s.region, s.ptop, s.ents = f.role, f.region, ptop, s.ents[:0]
	}
	f.shapeOn = true
}

// shapeAt returns the memo's entry for the name of the current object's
// next member, whose opening quote was just read before b[i], when the
// memo holds that name at that place: b[i:] is its bytes and then a
// quote; else nil. A recorded name is plain (the whole-string path read
// it: no quote, no backslash, printable ASCII), so that is exactly when
// plainLen(b, i, wholeMax) is its length, b[i:] holds its closing quote
// there and the name read is the one recorded: wholeString needs no
// plainLen for it.
func (p *pass) shapeAt(b []byte, i int) *shapeEnt {
	f := &p.stack[len(p.stack)-1]
	if !f.shapeOn || f.items >= int64(len(f.shape.ents)) {
		return nil
	}
	e := &f.shape.ents[f.items]
	if k := i + len(e.key); k < len(b) && b[k] == '"' && string(b[i:k]) == string(e.key) {
		return e
	}
	return nil
}

// shapeRecord records key, the name of the member keyDone just counted in
// f, with its hash and its value's role, in place of what the memo held
// there and after; a name that may not be recorded (read otherwise than
// whole, changed by the redactor, too long) ends the memo there.
func (p *pass) shapeRecord(f *frame, key []byte, h uint64, nx next) {
	m := int(f.items - 1)
	s := &f.shape
	if m > len(s.ents) {
		return
	}
	s.ents = s.ents[:m]
	if !p.shapeRec || len(key) > shapeKeyMax || m >= shapeMax {
		return
	}
	if m < cap(s.ents) {
		s.ents = s.ents[:m+1]
	} else {
		s.ents = append(s.ents, shapeEnt{})
	}
	e := &s.ents[m]
	e.key, e.h, e.nx, e.ctx = append(e.key[:0], key...), h, nx, ctxUnknown
	e.w = append(append(append(e.w[:0], ',', '"'), key...), '"', ':')
	p.shapeEnt = e
}

// keysLazy adds to f.keys the hashes of the object's first names that
// were memo hits (keyDone skips their duplicate check, see there): the
// memo still holds them at their places, since it changes only where a
// name misses, after this. Every use of f.keys comes after it: keyDone is
// the only reader of a frame whose names the memo looks up (shapeOn: a
// generic or structured object).
func (f *frame) keysLazy() {
	for i := range f.shape.ents[:f.lazyKeys] {
		f.keys.addHash(f.shape.ents[i].h)
	}
	f.lazyKeys = 0
}

// resetForValue resets the redactor for a member's value with the
// member's name as its context (scanners.Redactor.ResetWithContext); a
// name the memo knows is no context is a plain Reset.
func (p *pass) resetForValue(key []byte) {
	e := p.shapeEnt
	p.shapeEnt = nil
	if e != nil && e.ctx == ctxNo {
		p.red.Reset()
		return
	}
	on := p.red.ResetWithContext(key)
	if e != nil {
		e.ctx = ctxNo
		if on {
			e.ctx = ctxYes
		}
	}
}
