package scanners

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// The seed's guard (G001, ../shared/reference/seed-js/seed_text_guard.mjs)
// is the floor of detection: whatever it removes from a tool's text, the
// default catalog removes too, whatever the body looks like. This file
// generates texts with the seed's shapes (sk- and ghp_ tokens of 20+ bytes,
// many of them placeholder-looking; PKCS#8 PEM blocks; the seven pseudo
// tags) in many surroundings and checks the Redactor against a faithful port
// of the seed's guard, which is itself checked against the seed's own
// JavaScript when node and the reference are there.

// The seed's patterns, ported to RE2: the same classes and quantifiers
// (RE2's [\s\S]+? is (?s).+?; JavaScript's \s and (?s). cover more than
// ASCII, which only matters between BEGIN and END and is the same there
// because the port reads any byte).
var (
	seedControl = regexp.MustCompile("[\u200B-\u200D\uFEFF\u202A-\u202E\u2066-\u2069]")
	seedTags    = regexp.MustCompile(`(?i)</?(system|developer|instructions|tool|assistant|user|important)[^>]*>`)
	seedSecrets = []*regexp.Regexp{
		regexp.MustCompile(`sk-[A-Za-z0-9_-]{20,}`),
		regexp.MustCompile(`ghp_[A-Za-z0-9_]{20,}`),
		regexp.MustCompile(`(?s)-----BEGIN PRIVATE KEY-----.+?-----END PRIVATE KEY-----`),
	}
)

// markerRe matches the default catalog's markers, blanked before looking
// for what survives of a secret.
var markerRe = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]|\[REMOVED_PSEUDO_INSTRUCTION_TAG\]`)

const (
	seedTagMarker    = "[REMOVED_PSEUDO_INSTRUCTION_TAG]"
	seedSecretMarker = "[REDACTED_SECRET]"
	seedMaxChars     = 12000
)

// seedGuard is guardToolTextOutput's text without its header line.
func seedGuard(text string) string {
	s := norm.NFKC.String(text)
	s = seedControl.ReplaceAllString(s, "")
	s = seedTags.ReplaceAllString(s, seedTagMarker)
	if u := utf16Len(s); u > seedMaxChars {
		s = utf16Prefix(s, seedMaxChars)
	}
	for _, re := range seedSecrets {
		s = re.ReplaceAllString(s, seedSecretMarker)
	}
	return s
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// utf16Prefix is String.prototype.slice(0, n) for texts whose cut does not
// split a surrogate pair (the generated texts are ASCII around the cut).
func utf16Prefix(s string, n int) string {
	u := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if u+w > n {
			return s[:i]
		}
		u += w
	}
	return s
}

// seedRemoved lists what the seed removes from text: each secret match
// (in the NFKC text the seed matched) and each tag.
type seedRemoval struct {
	tag  bool
	text string
}

func seedRemovals(text string) []seedRemoval {
	s := seedControl.ReplaceAllString(norm.NFKC.String(text), "")
	var out []seedRemoval
	for _, m := range seedTags.FindAllString(s, -1) {
		out = append(out, seedRemoval{tag: true, text: m})
	}
	s = seedTags.ReplaceAllString(s, seedTagMarker)
	for _, re := range seedSecrets {
		for _, m := range re.FindAllString(s, -1) {
			out = append(out, seedRemoval{text: m})
		}
		s = re.ReplaceAllString(s, seedSecretMarker)
	}
	return out
}

// seedShapes generates n texts with the seed's shapes in many bodies and
// surroundings, deterministically.
func seedShapes(n int) []string {
	const (
		wd   = base62Alphabet + "_-"
		word = base62Alphabet + "_"
	)
	bodies := []func(k uint32, set string) string{
		func(k uint32, set string) string { return fakeChars(set, 20+int(k%60), k) },
		func(k uint32, set string) string { return fakeChars(base62Alphabet, 20, k) },
		func(k uint32, set string) string { return strings.Repeat("test", 5+int(k%6)) },
		func(k uint32, set string) string { return "placeholder" + strings.Repeat("0", 9+int(k%8)) },
		func(k uint32, set string) string { return strings.Repeat("0", 20+int(k%30)) },
		func(k uint32, set string) string { return strings.Repeat("x", 20+int(k%30)) },
		func(k uint32, set string) string {
			return "a1B2c3D4e5F6g7H8i9J0" + fakeChars(base62Alphabet, int(k%9), k)
		},
		func(k uint32, set string) string { return "abcdefghijklmnopqrstuvwxyz"[:20+int(k%7)] },
		func(k uint32, set string) string {
			return "YOUR_API_KEY_HERE_" + fakeChars("ABCDEFGHIJ", 2+int(k%5), k)
		},
		func(k uint32, set string) string { return "your_key_goes_here_1234" },
		func(k uint32, set string) string { return "example" + fakeChars(base62Alphabet, 13+int(k%10), k) },
		func(k uint32, set string) string { return "1234567890123456789012345" },
		func(k uint32, set string) string { return "dummy_" + strings.Repeat("ab", 8+int(k%4)) },
		func(k uint32, set string) string { return "REDACTEDREDACTEDREDACTED" },
		func(k uint32, set string) string { return "fake" + fakeChars("abcdef0123456789", 16+int(k%20), k) },
		func(k uint32, set string) string { return fakeChars(set, 100+int(k%200), k) },
		func(k uint32, set string) string { return "ChangeMe" + fakeChars(word, 12, k) },
		func(k uint32, set string) string {
			if set == word {
				return "xxxxxxxx_xxxx_xxxx_xxxx_xxxxxxxxxxxx"
			}
			return "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
		},
	}
	skPrefixes := []string{"sk-", "sk-proj-", "sk-live_", "sk-test-", "sk-ant-", "sk-", "sk-svcacct-", "sk-or-v1-", "sk-", "sk-admin-", "sk-lf-", "sk--", "sk-_"}
	ghpPrefixes := []string{"ghp_", "ghp_", "ghp__"}
	pems := []func(k uint32) string{
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY-----\n" + wrapB64(fakeChars(base62Alphabet+"+/", 64*(1+int(k%20)), k), 64) + "\n-----END PRIVATE KEY-----"
		},
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC...\n-----END PRIVATE KEY-----"
		},
		func(k uint32) string { return "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----" },
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY-----" + fakeChars(base62Alphabet, 40, k) + "-----END PRIVATE KEY-----"
		},
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----"
		},
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY-----\\n" + fakeChars(base62Alphabet+"+/", 64, k) + "\\n-----END PRIVATE KEY-----\\n"
		},
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY-----\r\n" + fakeChars(base62Alphabet+"+/", 64, k) + "\r\n-----END PRIVATE KEY-----"
		},
		func(k uint32) string {
			return "-----BEGIN PRIVATE KEY----- xxxxxxxxxxxxxxxxxxxxxxxx -----END PRIVATE KEY-----"
		},
	}
	tags := []string{"system", "developer", "instructions", "tool", "assistant", "user", "important"}
	tagForms := []func(k uint32, t string) string{
		func(k uint32, t string) string { return "<" + t + ">" },
		func(k uint32, t string) string { return "</" + t + ">" },
		func(k uint32, t string) string { return "<" + strings.ToUpper(t) + ">" },
		func(k uint32, t string) string { return "<" + t + " priority=\"high\">" },
		func(k uint32, t string) string { return "<" + t + "_call>" },
		func(k uint32, t string) string { return "<" + t[:1] + strings.ToUpper(t[1:2]) + t[2:] + "/>" },
		func(k uint32, t string) string { return "</" + t + "\n>" },
		func(k uint32, t string) string { return "<" + t + "-message id=" + fmt.Sprint(k) + ">" },
	}
	wraps := []func(s string) string{
		func(s string) string { return s },
		func(s string) string { return "OPENAI_API_KEY=" + s + "\n" },
		func(s string) string { return `{"api_key": "` + s + `", "ok": true}` },
		func(s string) string { return "export TOKEN='" + s + "'" },
		func(s string) string { return "the key is " + s + ". Use it." },
		func(s string) string { return "curl -H \"Authorization: Bearer " + s + "\" https://api.example.com/v1" },
		func(s string) string { return "| token | `" + s + "` |" },
		func(s string) string { return "https://host/cb?key=" + s + "&x=1" },
		func(s string) string { return "2026-12-07T10:00:00Z INFO loaded config: token=" + s + " (from env)" },
		func(s string) string { return "(" + s + ")" },
		func(s string) string { return "key:" + s + "!" },
		func(s string) string { return "- " + s + "\n- second line" },
		func(s string) string { return "<p>" + s + "</p>" },
		func(s string) string { return "value=\"" + s + "\";" },
		func(s string) string { return "# notes\n\n" + s + "\n\nend of file\n" },
		func(s string) string { return strings.Repeat("lorem ipsum dolor sit amet ", 40) + s + " trailing" },
	}
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		k := uint32(i)
		var core string
		switch i % 8 {
		case 0, 1, 2:
			p := skPrefixes[i%len(skPrefixes)]
			core = p + bodies[(i/3)%len(bodies)](k, wd)
		case 3, 4:
			p := ghpPrefixes[i%len(ghpPrefixes)]
			core = p + bodies[(i/5)%len(bodies)](k, word)
		case 5:
			core = pems[(i/8)%len(pems)](k)
		case 6:
			core = tagForms[(i/8)%len(tagForms)](k, tags[i%len(tags)])
		case 7:
			// Two shapes in one text, and compatibility or invisible
			// characters the seed's NFKC and control-char pass removes.
			a := skPrefixes[i%len(skPrefixes)] + bodies[i%len(bodies)](k, wd)
			b := "ghp_" + bodies[(i+3)%len(bodies)](k+7, word)
			switch (i / 8) % 4 {
			case 0:
				core = a + " and " + b
			case 1:
				core = "ｓｋ－" + a[3:] + "\n" + tags[i%len(tags)]
			case 2:
				core = a[:2] + "\u200b" + a[2:] + " <" + tags[(i/3)%len(tags)] + ">"
			case 3:
				core = "<" + tags[i%len(tags)] + ">" + b + "</" + tags[i%len(tags)] + ">"
			}
		}
		out = append(out, wraps[(i/7)%len(wraps)](core))
	}
	return out
}

// seedNeedles returns the 8-byte runs of what the seed removes from text
// that must not survive: the removed text without the marker lines of a
// PEM block and the token's prefix, minus runs that also stand elsewhere in
// the text.
func seedNeedles(text string, rems []seedRemoval) []string {
	rest := seedControl.ReplaceAllString(norm.NFKC.String(text), "")
	for _, r := range rems {
		rest = strings.ReplaceAll(rest, r.text, "\x00")
	}
	var ns []string
	for _, r := range rems {
		if r.tag {
			continue
		}
		body := r.text
		body = strings.TrimPrefix(body, "-----BEGIN PRIVATE KEY-----")
		body = strings.TrimSuffix(body, "-----END PRIVATE KEY-----")
		body = strings.TrimPrefix(strings.TrimPrefix(body, "sk-"), "ghp_")
		for i := 0; i+8 <= len(body); i++ {
			g := body[i : i+8]
			if strings.TrimSpace(g) != g || strings.Contains(rest, g) || strings.Contains(g, `\n`) || strings.Contains(g, "\n") {
				continue
			}
			ns = append(ns, g)
		}
	}
	return ns
}

// TestSeedFloor: nothing the seed's guard removes survives the default
// catalog, on 2400 generated texts fed whole and in chunks.
func TestSeedFloor(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	texts := seedShapes(2400)
	failed := 0
	for i, text := range texts {
		rems := seedRemovals(text)
		if len(rems) == 0 {
			t.Fatalf("text %d has none of the seed's shapes: %q", i, trunc(text))
		}
		chunk := 0
		if i%3 == 1 {
			chunk = 1 + i%61
		}
		// The pipeline's order: the Normalizer (invisible characters out,
		// NFKC, as the seed's guard does first), then the Redactor.
		var n Normalizer
		out, _ := redactChunks(t, r, normalizeOnce(&n, text), chunk)
		if msg := seedFloorViolation(text, out, rems); msg != "" {
			failed++
			if failed <= 25 {
				t.Errorf("text %d (chunk %d) %q: %s\nout %q", i, chunk, trunc(text), msg, trunc(out))
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d texts keep something the seed removes", failed, len(texts))
	}
}

// seedFloorViolation says what of rems survives in out, or "".
func seedFloorViolation(text, out string, rems []seedRemoval) string {
	o := seedControl.ReplaceAllString(norm.NFKC.String(out), "")
	o = markerRe.ReplaceAllString(o, "\x00")
	if m := seedTags.FindString(o); m != "" {
		return fmt.Sprintf("tag %q survives", m)
	}
	for _, re := range seedSecrets {
		if m := re.FindString(o); m != "" {
			return fmt.Sprintf("seed pattern matches %q", trunc(m))
		}
	}
	for _, g := range seedNeedles(text, rems) {
		if strings.Contains(o, g) {
			return fmt.Sprintf("run %q of a removed secret survives", g)
		}
	}
	return ""
}

// TestSeedGuardPort checks seedGuard against the seed's own JavaScript on
// the generated texts, when node and ../shared/reference/seed-js are there.
func TestSeedGuardPort(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "reference", "seed-js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "seed_text_guard.mjs")); err != nil {
		t.Skipf("seed reference not found at %s (../shared absent): the port is checked only where it is", dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the port of the seed's guard is not cross-checked")
	}
	const script = `import { guardToolTextOutput } from %q;
import readline from "node:readline";
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  const out = guardToolTextOutput({ toolName: "t", text: JSON.parse(line) });
  process.stdout.write(JSON.stringify(out.text.slice(out.text.indexOf("\n") + 1)) + "\n");
}`
	texts := seedShapes(2400)
	var in bytes.Buffer
	for _, s := range texts {
		b, _ := json.Marshal(s)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "--input-type=module", "-e", fmt.Sprintf(script, "file://"+filepath.Join(dir, "seed_text_guard.mjs")))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v: %s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(outb))
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var got string
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if i < len(texts) && got != seedGuard(texts[i]) {
			t.Errorf("text %d %q: node %q, port %q", i, trunc(texts[i]), trunc(got), trunc(seedGuard(texts[i])))
		}
	}
	if i != len(texts) {
		t.Fatalf("node answered %d lines for %d texts", i, len(texts))
	}
}

// refFloor is the reference of a floor token (tokenSpec.floor): the seed's
// pattern p[class]{20,} at every occurrence of p, cut at seedFloorMax body
// bytes; for a prefix ending in '-', not when it follows a letter or digit
// (outside a JSON escape) and the body has no upper-case letter.
func refFloor(p, class string, cs func(m string) ChecksumResult) refForm {
	rx := regexp.MustCompile(`^` + regexp.QuoteMeta(p) + `[` + class + `]{20,}`)
	alnum := regexp.MustCompile(`^[A-Za-z0-9]$`)
	return refForm{keywords: []string{p}, atKw: func(s string, q, k int) (int, int, ChecksumResult, bool) {
		if s[q:q+k] != p {
			return 0, 0, 0, false
		}
		m := rx.FindStringIndex(s[q:])
		if m == nil {
			return 0, 0, 0, false
		}
		e := min(q+m[1], q+len(p)+seedFloorMax)
		if p[len(p)-1] == '-' && q > 0 && alnum.MatchString(s[q-1:q]) && !refEscapeBefore(s, q) && !refUpper.MatchString(s[q+len(p):e]) {
			return 0, 0, 0, false
		}
		r := ChecksumNone
		if cs != nil {
			r = cs(s[q:e])
		}
		return q, e, r, true
	}}
}
