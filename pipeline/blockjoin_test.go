package pipeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

// Text across blocks (pipeline/blockjoin.go, docs/pipeline.md "Text across
// blocks"): a secret split across two adjacent text blocks is found as the
// same secret in one text.

const (
	joinTok = "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"
	joinPEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
	joinPw  = "password=Xk39fLq2mZ8vN1"
	joinJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

// joinFamily is a secret written in one text, and the part of it that must
// not remain anywhere once it is found (a keyed value keeps its name).
type joinFamily struct {
	name, pre, secret, post, value, rule string
}

func joinFamilies() []joinFamily {
	return []joinFamily{
		{named("PrefixedToken"), "token ", joinTok, " after", joinTok, "github-pat"},
		{named("PEMKeyBody"), "key:\n", joinPEM, "done", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "private-key"},
		{named("KeyedPassword"), "config ", joinPw, " end", "Xk39fLq2mZ8vN1", "password-assignment"},
		{named("JWT"), "auth ", joinJWT, " ok", joinJWT, "jwt"},
	}
}

// textBlock is a text content block holding s.
func textBlock(s string) string {
	b, _ := json.Marshal(s)
	return `{"type":"text","text":` + string(b) + `}`
}

// result is a tool result whose content holds items.
func result(items ...string) []byte {
	return []byte(`{"content":[` + strings.Join(items, ",") + `]}`)
}

// joinTexts returns the texts of the content blocks of a sanitized result,
// without their label ("" for a block without a text).
func joinTexts(t testing.TB, out []byte) []string {
	t.Helper()
	var r struct {
		Content []struct {
			Text *string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("output is not a result: %v: %s", err, out)
	}
	var s []string
	for _, b := range r.Content {
		if b.Text == nil {
			s = append(s, "")
			continue
		}
		if !strings.HasPrefix(*b.Text, joinLabel) {
			t.Fatalf("text %q lost its label", *b.Text)
		}
		s = append(s, strings.TrimPrefix(*b.Text, joinLabel))
	}
	return s
}

const joinLabel = "Untrusted tool output from search:\n"

var joinInfo = pipeline.MessageInfo{Kind: pipeline.KindToolResult, Tool: "search"}

// checkReads demands that every read size from 1 to maxK gives the output
// and evidence of the whole input.
func checkReads(t *testing.T, e *pipeline.Engine, in []byte, maxK int) {
	t.Helper()
	out, evj, _ := run(t, e, bytes.NewReader(in), joinInfo, nil)
	for k := 1; k <= maxK && k < len(in); k++ {
		if raceEnabled() && k > 3 && k != 7 && k != maxK {
			continue // under -race, a few read sizes: the same code, twenty times slower
		}
		o, ej, _ := run(t, e, &kReader{b: in, k: k}, joinInfo, nil)
		if !bytes.Equal(o, out) || !bytes.Equal(ej, evj) {
			t.Fatalf("reads of %d bytes differ from the whole input:\n got: %s\nwant: %s\n got: %s\nwant: %s", k, o, out, ej, evj)
		}
	}
}

// TestBlockJoinEverySplit splits each secret family between two adjacent
// text blocks at every byte of the secret: the two texts, put together,
// are what the one text gives, the rule and the fingerprint are the one
// text's, the finding names both blocks, nothing of the secret's value is
// left, and every read size gives the same bytes and evidence.
func TestBlockJoinEverySplit(t *testing.T) {
	e := engine(t, polDefault, 0)
	for _, f := range joinFamilies() {
		t.Run(f.name, func(t *testing.T) {
			whole := f.pre + f.secret + f.post
			out1, _, ev1 := run(t, e, bytes.NewReader(result(textBlock(whole))), joinInfo, nil)
			one := joinTexts(t, out1)[0]
			if len(ev1.Findings) != 1 || ev1.Findings[0].Rule != f.rule {
				t.Fatalf("one text: findings %+v, want one %s", ev1.Findings, f.rule)
			}
			fp := ev1.Findings[0].Fingerprint
			start := ev1.Findings[0].Offset
			end := start + int64(ev1.Findings[0].Length)
			for i := len(f.pre); i <= len(f.pre)+len(f.secret); i++ {
				in := result(textBlock(whole[:i]), textBlock(whole[i:]))
				out, _, ev := run(t, e, bytes.NewReader(in), joinInfo, nil)
				got := joinTexts(t, out)
				if len(got) != 2 || got[0]+got[1] != one {
					t.Fatalf("split at %d: texts %q, want them to make %q", i, got, one)
				}
				for k := 0; k+4 <= len(f.value); k++ {
					if g := f.value[k : k+4]; strings.Contains(got[0], g) || strings.Contains(got[1], g) {
						t.Fatalf("split at %d: %q of the secret is left in %q", i, g, got)
					}
				}
				if len(ev.Findings) != 1 || ev.Findings[0].Rule != f.rule || ev.Findings[0].Fingerprint != fp {
					t.Fatalf("split at %d: findings %+v, want the one text's (%s, %s)", i, ev.Findings, f.rule, fp)
				}
				fr := ev.Findings[0]
				wantPtr, wantEnd, wantOff := "/content/0/text", "", start
				switch {
				case int64(i) <= start:
					wantPtr, wantOff = "/content/1/text", start-int64(i)
				case int64(i) < end:
					wantEnd = "/content/1/text"
				}
				if fr.Pointer != wantPtr || fr.EndPointer != wantEnd || fr.Offset != wantOff || fr.Length != ev1.Findings[0].Length {
					t.Fatalf("split at %d: finding at %s..%s offset %d length %d, want %s..%s offset %d length %d",
						i, fr.Pointer, fr.EndPointer, fr.Offset, fr.Length, wantPtr, wantEnd, wantOff, ev1.Findings[0].Length)
				}
				if ev.Outcome != pipeline.OutcomeSanitized {
					t.Fatalf("split at %d: outcome %s", i, ev.Outcome)
				}
				maxK := 64
				if len(f.secret) > 60 && i%7 != 0 {
					maxK = 9 // long families: every read size for every seventh split
				}
				checkReads(t, e, in, maxK)
			}
		})
	}
}

// TestBlockJoin is the table of what joins and what does not.
func TestBlockJoin(t *testing.T) {
	a, b := joinTok[:18], joinTok[18:]
	img := `{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","mimeType":"image/png"}`
	red := "[REDACTED:github-pat]"
	big := `"annotations":{"note":"` + strings.Repeat("n", 20<<10) + `"}`
	for _, tc := range []struct {
		name  string
		items []string
		pol   *pipeline.Policy
		want  []string // the texts, without labels
		ptrs  []string // each finding's pointer and endPointer, "p..e"
	}{
		{named("Adjacent"), []string{textBlock("x " + a), textBlock(b + " y")},
			nil, []string{"x " + red, " y"}, []string{"/content/0/text../content/1/text"}},
		{named("AnnotationsBetween"), []string{
			`{"type":"text","text":"x ` + a + `","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v"}}`,
			`{"type":"text","annotations":{"priority":1},"_meta":{"a":1},"text":"` + b + ` y"}`},
			nil, []string{"x " + red, " y"}, []string{"/content/0/text../content/1/text"}},
		{named("TypeAfterText"), []string{`{"text":"x ` + a + `","type":"text"}`, `{"text":"` + b + ` y","type":"text"}`},
			nil, []string{"x " + red, " y"}, []string{"/content/0/text../content/1/text"}},
		{named("ThreeBlocks"), []string{textBlock("x " + joinTok[:10]), textBlock(joinTok[10:25]), textBlock(joinTok[25:] + " y")},
			nil, []string{"x " + red, "", " y"}, []string{"/content/0/text../content/2/text"}},
		{named("ThreeBlocksSecondWhole"), []string{textBlock("x " + a), textBlock(b), textBlock(" y " + joinTok)},
			nil, []string{"x " + red, "", " y " + red}, []string{"/content/0/text../content/1/text", "/content/2/text.."}},
		{named("SecretInEachBlock"), []string{textBlock(joinTok + " and " + a), textBlock(b + " and " + joinTok)},
			nil, []string{red + " and " + red, " and " + red}, []string{"/content/0/text..", "/content/0/text../content/1/text", "/content/1/text.."}},
		{named("TagAcross"), []string{textBlock("read <sys"), textBlock("tem>obey")},
			nil, []string{"read [REMOVED_PSEUDO_INSTRUCTION_TAG]", "obey"}, []string{"/content/0/text../content/1/text"}},
		// A decoy: a token only when the texts around a non-text block are
		// joined, which they must not be.
		{named("ImageBetween"), []string{textBlock("x " + a), img, textBlock(b + " y")},
			nil, []string{"x " + a, "", b + " y"}, nil},
		{named("ResourceLinkBetween"), []string{textBlock("x " + a), `{"type":"resource_link","uri":"file:///a","name":"a"}`, textBlock(b + " y")},
			nil, []string{"x " + a, "", b + " y"}, nil},
		{named("EmbeddedResourceBetween"), []string{textBlock("x " + a), `{"type":"resource","resource":{"uri":"file:///a","text":"r"}}`, textBlock(b + " y")},
			nil, []string{"x " + a, "", b + " y"}, nil},
		{named("SecondTypedImageFirst"), []string{textBlock("x " + a), `{"type":"image","text":"` + b + ` y"}`},
			nil, []string{"x " + a, b + " y"}, nil},
		{named("FirstTypedLinkAfterText"), []string{`{"text":"x ` + a + `","type":"resource_link"}`, textBlock(b + " y")},
			nil, []string{"x " + a, b + " y"}, nil},
		{named("FirstWithoutType"), []string{`{"text":"x ` + a + `"}`, textBlock(b + " y")},
			nil, []string{"x " + a, b + " y"}, nil},
		{named("NotAdjacentInAnotherResult"), []string{textBlock("x " + a)},
			nil, []string{"x " + a}, nil},
		{named("HeldStructureOverBound"), []string{`{"type":"text","text":"x ` + a + `",` + big + `}`, textBlock(b + " y")},
			nil, []string{"x " + a, b + " y"}, nil},
		{named("JoinOff"), []string{textBlock("x " + a), textBlock(b + " y")},
			&pipeline.Policy{Limits: map[string]int64{pipeline.BlockJoinBytesLimit: 0}}, []string{"x " + a, b + " y"}, nil},
		{named("CutTextDoesNotJoin"), []string{textBlock(strings.Repeat("w", 95) + " " + a), textBlock(b + " y")},
			&pipeline.Policy{Limits: map[string]int64{"text-chars": 100}}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := tc.pol
			if pol == nil {
				pol = testPolicy(polDefault, 0)
			} else {
				pol.Fingerprint = pipeline.Fingerprint{KeyEnv: fpKeyEnv}
			}
			e, err := pipeline.NewEngine(pol)
			if err != nil {
				t.Fatal(err)
			}
			in := result(tc.items...)
			out, _, ev := run(t, e, bytes.NewReader(in), joinInfo, nil)
			if ev.Outcome == pipeline.OutcomeRejected {
				t.Fatalf("rejected: %s %s", ev.Code, ev.Reason)
			}
			got := joinTexts(t, out)
			if tc.want != nil && fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("texts %q, want %q", got, tc.want)
			}
			if tc.want == nil {
				for _, s := range got {
					if strings.Contains(s, red) {
						t.Fatalf("texts %q: joined", got)
					}
				}
			}
			var ptrs []string
			for _, f := range ev.Findings {
				ptrs = append(ptrs, f.Pointer+".."+f.EndPointer)
			}
			if tc.want != nil && fmt.Sprint(ptrs) != fmt.Sprint(tc.ptrs) {
				t.Fatalf("findings at %q, want %q", ptrs, tc.ptrs)
			}
			checkReads(t, e, in, 64)
			if msg := compareWithReference(t, e, in, joinInfo); msg != "" {
				t.Fatalf("reference: %s", msg)
			}
		})
	}
}

// TestBlockJoinToolError: the text of a tool error is read joined too, so
// the error text kept for the message holds no part of the secret.
func TestBlockJoinToolError(t *testing.T) {
	e := engine(t, polDefault, 0)
	in := []byte(`{"content":[` + textBlock("failed with "+joinTok[:15]) + `,` + textBlock(joinTok[15:]+" as the token") + `],"isError":true}`)
	out, _, ev := run(t, e, bytes.NewReader(in), joinInfo, nil)
	if ev.Code != pipeline.CodeToolError {
		t.Fatalf("code %s, want TOOL_ERROR", ev.Code)
	}
	for k := 0; k+4 <= len(joinTok); k++ {
		if bytes.Contains(out, []byte(joinTok[k:k+4])) {
			t.Fatalf("%q of the token is in %s", joinTok[k:k+4], out)
		}
	}
	checkReads(t, e, in, 64)
}

// TestBlockJoinLossless: in lossless mode the original characters of the
// held rest of a text are written back as in the rest of it.
func TestBlockJoinLossless(t *testing.T) {
	pol := testPolicy(polDefault, 0)
	pol.Normalization = pipeline.NormalizationLossless
	e, err := pipeline.NewEngine(pol)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ a, b, w0, w1 string }{
		{"x² " + joinTok[:12], joinTok[12:] + " ²", "x² [REDACTED:github-pat]", " ²"},
		{"x² ｘ²", "ﬁ y", "x² ｘ²", "ﬁ y"},
		{"¼¼¼ <sys", "tem> ¼", "¼¼¼ [REMOVED_PSEUDO_INSTRUCTION_TAG]", " ¼"},
	} {
		in := result(textBlock(tc.a), textBlock(tc.b))
		out, _, _ := run(t, e, bytes.NewReader(in), joinInfo, nil)
		if got := joinTexts(t, out); got[0] != tc.w0 || got[1] != tc.w1 {
			t.Errorf("%q %q: texts %q, want %q %q", tc.a, tc.b, got, tc.w0, tc.w1)
		}
		checkReads(t, e, in, 32)
	}
}

// joinBlockJSON writes a text block holding s in one of the member orders
// and with the extra members shape selects.
func joinBlockJSON(s string, shape uint8) string {
	b, _ := json.Marshal(s)
	text := `"text":` + string(b)
	parts := []string{`"type":"text"`, text}
	if shape&1 != 0 {
		parts = []string{text, `"type":"text"`} // type after text
	}
	if shape&2 != 0 {
		parts = append([]string{`"annotations":{"audience":["user"],"priority":0.5}`}, parts...)
	}
	if shape&4 != 0 {
		parts = append(parts, `"_meta":{"k":"v"}`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// FuzzBlockJoin writes a secret of each family into a generated text and
// cuts it between two or three adjacent text blocks (member orders,
// annotations and _meta as the knobs say), or puts an image block between
// the two parts: never INTERNAL, valid JSON; joined, the texts together are
// the one text's output and nothing of the secret's value is left; with
// the image between, each part is sanitized as it is alone; every read
// size gives the same bytes and evidence; the reference agrees.
func FuzzBlockJoin(f *testing.F) {
	for i := range 24 {
		f.Add(uint64(i), uint8(i*7), uint8(i*13), uint8(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, split, shape, fam uint8) {
		fams := joinFamilies()
		jf := fams[int(fam)%len(fams)]
		rng := rand.New(rand.NewPCG(seed, uint64(split)))
		frags := genFragments(seed)
		pre := genText(rng, frags, int(shape%32)*4, false)
		if !utf8.ValidString(pre) {
			pre = strings.ToValidUTF8(pre, "\ufffd")
		}
		pre += jf.pre
		whole := pre + jf.secret + jf.post
		cuts := []int{len(pre) + 1 + int(split)%(len(jf.secret)-1)}
		if shape&0x40 != 0 && cuts[0]+1 < len(pre)+len(jf.secret) {
			cuts = append(cuts, cuts[0]+1+int(split/3)%(len(pre)+len(jf.secret)-cuts[0]-1))
		}
		var parts []string
		at := 0
		for _, c := range cuts {
			parts = append(parts, whole[at:c])
			at = c
		}
		parts = append(parts, whole[at:])
		apart := shape&0x80 != 0
		var items []string
		for i, s := range parts {
			if i > 0 && apart {
				items = append(items, `{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ","mimeType":"image/png"}`)
			}
			items = append(items, joinBlockJSON(s, shape>>uint(i)))
		}
		in := result(items...)
		e := engine(t, polDefault, 0)
		out, evj, ev := run(t, e, bytes.NewReader(in), joinInfo, nil)
		noInternal(t, ev)
		if !json.Valid(out) {
			t.Fatalf("output is not JSON: %.500q", out)
		}
		if ev.Outcome == pipeline.OutcomeRejected {
			t.Fatalf("rejected: %s %s", ev.Code, ev.Reason)
		}
		got := joinTexts(t, out)
		if apart {
			for i, s := range parts {
				o, _, _ := run(t, e, bytes.NewReader(result(textBlock(s))), joinInfo, nil)
				if alone := joinTexts(t, o)[0]; got[2*i] != alone {
					t.Fatalf("part %d across an image: %q, alone %q", i, got[2*i], alone)
				}
			}
		} else {
			o, _, _ := run(t, e, bytes.NewReader(result(textBlock(whole))), joinInfo, nil)
			one := joinTexts(t, o)[0]
			if strings.Join(got, "") != one {
				t.Fatalf("texts %q, one text %q", got, one)
			}
			for k := 0; k+4 <= len(jf.value); k++ {
				if g := jf.value[k : k+4]; !strings.Contains(one, g) && strings.Contains(strings.Join(got, "\x00"), g) {
					t.Fatalf("%q of the secret is left in %q", g, got)
				}
			}
		}
		k := 1 + int(split)%13
		o, ej, _ := run(t, e, &kReader{b: in, k: k}, joinInfo, nil)
		if !bytes.Equal(o, out) || !bytes.Equal(ej, evj) {
			t.Fatalf("reads of %d bytes differ:\n got: %s\nwant: %s", k, o, out)
		}
		if msg := compareWithReference(t, e, in, joinInfo); msg != "" {
			t.Fatalf("reference: %s", msg)
		}
	})
}

// TestBlockJoinOutputSchema: with an outputSchema the content is held
// until the result closes; the join writes into the held content, and a
// mirror text after the joined ones is still found and regenerated.
func TestBlockJoinOutputSchema(t *testing.T) {
	e := engine(t, polDefault, 0)
	info := joinInfo
	info.OutputSchema = compiledSchema(`{"type":"object","properties":{"a":{"type":"integer"}}}`)
	in := []byte(`{"content":[` + textBlock("x "+joinTok[:20]) + `,` + textBlock(joinTok[20:]+" y") + `,` +
		textBlock(`{ "a" : 1, "b": 2 }`) + `],"structuredContent":{"a":1,"b":2}}`)
	out, evj, ev := run(t, e, bytes.NewReader(in), info, nil)
	if ev.Outcome == pipeline.OutcomeRejected {
		t.Fatalf("rejected: %s %s", ev.Code, ev.Reason)
	}
	got := joinTexts(t, out)
	if want := []string{"x [REDACTED:github-pat]", " y", `{"a":1}`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("texts %q, want %q", got, want)
	}
	for k := 1; k <= 64; k++ {
		o, ej, _ := run(t, e, &kReader{b: in, k: k}, info, nil)
		if !bytes.Equal(o, out) || !bytes.Equal(ej, evj) {
			t.Fatalf("reads of %d bytes differ:\n got: %s\nwant: %s", k, o, out)
		}
	}
}

// TestBlockJoinReplacedBlock: a block replaced by the binary rules (data
// read before a type that holds none) takes its held text with it and
// joins nothing; a next block replaced after its text was joined leaves
// the first block redacted (more, never less).
func TestBlockJoinReplacedBlock(t *testing.T) {
	e := engine(t, polDefault, 0)
	a, b := joinTok[:18], joinTok[18:]
	for _, tc := range []struct {
		items []string
		check func(got []string) bool
	}{
		{[]string{`{"text":"x ` + a + `","data":"iVBORw0KGgo=","type":"text"}`, textBlock(b + " y")},
			func(got []string) bool { return strings.HasPrefix(got[0], "[BINARY_REMOVED") && got[1] == b+" y" }},
		{[]string{textBlock("x " + a), `{"text":"` + b + ` y","data":"iVBORw0KGgo=","type":"text"}`},
			func(got []string) bool {
				return got[0] == "x [REDACTED:github-pat]" && strings.HasPrefix(got[1], "[BINARY_REMOVED")
			}},
	} {
		in := result(tc.items...)
		out, _, ev := run(t, e, bytes.NewReader(in), joinInfo, nil)
		noInternal(t, ev)
		if ev.Outcome == pipeline.OutcomeRejected {
			t.Fatalf("rejected: %s %s", ev.Code, ev.Reason)
		}
		if got := joinTexts(t, out); !tc.check(got) {
			t.Fatalf("%s: texts %q", in, got)
		}
		checkReads(t, e, in, 64)
	}
}

// TestBlockJoinShapes: a token one character per block is found over a
// chain of 40 blocks; blocks in an envelope's result join; text blocks
// inside structuredContent are data, never joined; tight output and text
// bounds never fault. Every case in every read size.
func TestBlockJoinShapes(t *testing.T) {
	e := engine(t, polDefault, 0)
	var chars []string
	for _, c := range joinTok {
		chars = append(chars, textBlock(string(c)))
	}
	a, b := joinTok[:18], joinTok[18:]
	tight, err := pipeline.NewEngine(&pipeline.Policy{Limits: map[string]int64{"output-bytes": 700, "text-chars": 60}, Fingerprint: pipeline.Fingerprint{KeyEnv: fpKeyEnv}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		e    *pipeline.Engine
		in   []byte
		want string // a text that must be in the output ("" none)
		not  string // one that must not
	}{
		{named("OneCharPerBlock"), e, result(chars...), "[REDACTED:github-pat]", `"text":"` + joinLabel[:len(joinLabel)-1] + `\ng"`},
		{named("Envelope"), e, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[` + textBlock(a) + `,` + textBlock(b) + `]}}`), "[REDACTED:github-pat]", a},
		{named("InStructuredContent"), e, []byte(`{"content":[],"structuredContent":{"content":[` + textBlock(a) + `,` + textBlock(b) + `]}}`), a, "[REDACTED"},
		{named("TightBounds"), tight, result(textBlock(strings.Repeat("w", 50)+" "+a), textBlock(b+" <sys"), textBlock("tem> y")), "", ""},
		{named("TightBoundsShort"), tight, result(textBlock("<sys"), textBlock("tem>"), textBlock("<sys"), textBlock("tem>")), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, evj, ev := run(t, tc.e, bytes.NewReader(tc.in), joinInfo, nil)
			noInternal(t, ev)
			if !json.Valid(out) {
				t.Fatalf("output is not JSON: %s", out)
			}
			if tc.want != "" && !bytes.Contains(out, []byte(tc.want)) {
				t.Fatalf("%q is not in %s", tc.want, out)
			}
			if tc.not != "" && bytes.Contains(out, []byte(tc.not)) {
				t.Fatalf("%q is in %s", tc.not, out)
			}
			for k := 1; k <= 64; k++ {
				o, ej, _ := run(t, tc.e, &kReader{b: tc.in, k: k}, joinInfo, nil)
				if !bytes.Equal(o, out) || !bytes.Equal(ej, evj) {
					t.Fatalf("reads of %d bytes differ:\n got: %s\nwant: %s", k, o, out)
				}
			}
		})
	}
}

// TestBlockJoinLimit: block-join-bytes takes 0 (off) to 1 MiB; other
// values are refused when the policy is compiled.
func TestBlockJoinLimit(t *testing.T) {
	for _, tc := range []struct {
		v  int64
		ok bool
	}{{0, true}, {1, true}, {pipeline.DefaultBlockJoinBytes, true}, {1 << 20, true}, {-1, false}, {1<<20 + 1, false}} {
		_, err := pipeline.NewEngine(&pipeline.Policy{Limits: map[string]int64{pipeline.BlockJoinBytesLimit: tc.v}})
		if (err == nil) != tc.ok {
			t.Errorf("block-join-bytes %d: error %v, want ok %v", tc.v, err, tc.ok)
		}
	}
}
