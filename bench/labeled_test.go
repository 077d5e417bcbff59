package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCorpusDeterministic(t *testing.T) {
	a := GenerateCorpus(CorpusOptions{Seed: 7, Records: 80})
	b := GenerateCorpus(CorpusOptions{Seed: 7, Records: 80})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different corpus")
	}
	// Record i does not depend on how many records were asked for.
	if one := GenerateLabeled(7, 50); !reflect.DeepEqual(one, a[50]) {
		t.Fatal("record 50 differs when generated alone")
	}
	c := GenerateCorpus(CorpusOptions{Seed: 8, Records: 80})
	same := 0
	for i := range a {
		if bytes.Equal(a[i].Result, c[i].Result) {
			same++
		}
	}
	if same > 0 {
		t.Fatalf("seeds 7 and 8 give %d identical records", same)
	}
	if n := len(GenerateCorpus(CorpusOptions{Seed: 1, Records: 0})); n != DefaultCorpusRecords {
		t.Fatalf("default records = %d", n)
	}
}

// TestLabelsPointAtBytes checks every label of many records: the decoded
// value at its pointer holds Exact at Offset, the needles are inside Exact,
// and the record's JSON bytes hold Raw.
func TestLabelsPointAtBytes(t *testing.T) {
	recs := GenerateCorpus(CorpusOptions{Seed: 3, Records: 600})
	for _, r := range recs {
		if !json.Valid(r.Result) {
			t.Fatalf("record %d is not valid JSON", r.Index)
		}
		vals, err := StringValues(r.Result)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range r.Labels {
			v, ok := vals[l.Pointer]
			if !ok {
				t.Fatalf("record %d %s: no string at %s", r.Index, l.Type, l.Pointer)
			}
			if l.Offset < 0 || l.Offset+len(l.Exact) > len(v) || v[l.Offset:l.Offset+len(l.Exact)] != l.Exact {
				t.Fatalf("record %d %s %s: exact bytes not at offset %d", r.Index, l.Kind, l.Type, l.Offset)
			}
			if l.Exact == "" {
				t.Fatalf("record %d %s: empty label", r.Index, l.Type)
			}
			for _, n := range l.Needles {
				if l.Type == "full-width-system" && !strings.Contains(n, "ｓ") || l.Family == "evasion" {
					continue // the normalized form: not in the input
				}
				if n == "" || !strings.Contains(l.Exact, n) {
					t.Fatalf("record %d %s: needle outside the exact span", r.Index, l.Type)
				}
			}
			if !bytes.Contains(r.Result, []byte(l.Raw)) {
				t.Fatalf("record %d %s: raw form not in the record bytes", r.Index, l.Type)
			}
			if l.Record != r.Index || l.Context != r.Shape && !strings.HasPrefix(l.Context, r.Shape+"/") {
				t.Fatalf("record %d: label record/context %d/%s", r.Index, l.Record, l.Context)
			}
			if r.Envelope != strings.HasPrefix(l.Pointer, "/result/") {
				t.Fatalf("record %d: pointer %s, envelope %v", r.Index, l.Pointer, r.Envelope)
			}
			if l.Kind == LabelSecret && (l.Family == "" || l.Provider == "") {
				t.Fatalf("record %d %s: secret without family or provider", r.Index, l.Type)
			}
		}
	}
}

// TestTextBlocksUnderDefaultBound keeps planted items out of reach of the
// default text-chars bound (12000), so the measurement is of detection,
// not of truncation.
func TestTextBlocksUnderDefaultBound(t *testing.T) {
	for _, r := range GenerateCorpus(CorpusOptions{Seed: 5, Records: 1500}) {
		vals, err := StringValues(r.Result)
		if err != nil {
			t.Fatal(err)
		}
		for p, v := range vals {
			if strings.HasSuffix(p, "/text") && utf8.RuneCountInString(v) > 11500 {
				t.Fatalf("record %d (%s): %s has %d characters", r.Index, r.Shape, p, utf8.RuneCountInString(v))
			}
		}
	}
}

func TestCorpusCoversEveryType(t *testing.T) {
	seen := map[string]int{}
	shapes := map[string]int{}
	env := 0
	recs := GenerateCorpus(CorpusOptions{Seed: 1, Records: 3000})
	for _, r := range recs {
		shapes[r.Shape]++
		if r.Envelope {
			env++
		}
		for _, l := range r.Labels {
			seen[string(l.Kind)+"/"+l.Type]++
		}
	}
	check := func(kind LabelKind, types []string, min int) {
		t.Helper()
		for _, ty := range types {
			if seen[string(kind)+"/"+ty] < min {
				t.Errorf("%s %s planted %d times in 3000 records, want at least %d", kind, ty, seen[string(kind)+"/"+ty], min)
			}
		}
	}
	check(LabelSecret, FakeTypes(), 25)
	// Types are planted about equally often (mirrors and the shapes that
	// leave key blocks out make some variation).
	lo, hi := 1<<30, 0
	for _, ty := range FakeTypes() {
		n := seen[string(LabelSecret)+"/"+ty]
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi > 3*lo {
		t.Errorf("secret types planted between %d and %d times: unbalanced", lo, hi)
	}
	check(LabelDecoy, DecoyTypes(), 20)
	check(LabelTag, TagTypes(), 30)
	check(LabelInvisible, InvisibleTypes(), 30)
	for _, s := range CorpusShapes() {
		if shapes[s] == 0 {
			t.Errorf("shape %s never generated", s)
		}
	}
	if env < 300 {
		t.Errorf("%d JSON-RPC envelopes in 3000 records", env)
	}
}

// fakeFormats are the published shapes of each credential type (vendor
// documentation and gitleaks v8.30.1 patterns), checked against the
// generated values so a generator bug cannot hide as a detector miss.
var fakeFormats = map[string]string{
	"openai-project-key":            `^sk-proj-[A-Za-z0-9_-]{58,74}T3BlbkFJ[A-Za-z0-9_-]{58,74}$`,
	"openai-service-account-key":    `^sk-svcacct-[A-Za-z0-9_-]{74}T3BlbkFJ[A-Za-z0-9_-]{74}$`,
	"openai-legacy-key":             `^sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20}$`,
	"anthropic-api-key":             `^sk-ant-api03-[a-zA-Z0-9_\-]{93}AA$`,
	"anthropic-admin-key":           `^sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA$`,
	"huggingface-token":             `^hf_[a-zA-Z]{34}$`,
	"groq-api-key":                  `^gsk_[a-zA-Z0-9]{20}WGdyb3FY[a-zA-Z0-9]{24}$`,
	"replicate-api-token":           `^r8_[a-zA-Z0-9]{37}$`,
	"perplexity-api-key":            `^pplx-[a-zA-Z0-9]{48}$`,
	"github-classic-pat":            `^ghp_[0-9a-zA-Z]{36}$`,
	"github-fine-grained-pat":       `^github_pat_\w{82}$`,
	"github-oauth-token":            `^gho_[0-9a-zA-Z]{36}$`,
	"github-user-to-server-token":   `^ghu_[0-9a-zA-Z]{36}$`,
	"github-app-installation-token": `^ghs_[0-9a-zA-Z]{36}$`,
	"github-refresh-token":          `^ghr_[0-9a-zA-Z]{36}$`,
	"gitlab-pat":                    `^glpat-[\w-]{20}$`,
	"gitlab-pipeline-trigger-token": `^glptt-[0-9a-f]{40}$`,
	"gitlab-deploy-token":           `^gldt-[0-9a-zA-Z_\-]{20}$`,
	"atlassian-api-token":           `^ATATT3[A-Za-z0-9_\-]{177}=[0-9A-F]{8}$`,
	"bitbucket-app-password":        `^ATBB[A-Za-z0-9]{24}[0-9A-F]{8}$`,
	"aws-access-key-id":             `^(?:AKIA|ASIA)[A-Z2-7]{16}$`,
	"aws-secret-access-key":         `^[A-Za-z0-9/+]{40}$`,
	"gcp-api-key":                   `^AIza[\w-]{35}$`,
	"azure-storage-account-key":     `^[A-Za-z0-9+/]{86}==$`,
	"azure-ad-client-secret":        `^[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}$`,
	"digitalocean-pat":              `^do[op]_v1_[a-f0-9]{64}$`,
	"stripe-live-secret-key":        `^sk_live_[a-zA-Z0-9]{10,99}$`,
	"stripe-test-secret-key":        `^sk_test_[a-zA-Z0-9]{10,99}$`,
	"stripe-restricted-key":         `^rk_live_[a-zA-Z0-9]{10,99}$`,
	"square-access-token":           `^(?:EAAA|sq0atp-)[\w-]{22,60}$`,
	"square-oauth-secret":           `^sq0csp-[\w-]{43}$`,
	"braintree-access-token":        `^access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}$`,
	"slack-bot-token":               `^xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*$`,
	"slack-user-token":              `^xoxp(?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}$`,
	"slack-app-token":               `^(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+$`,
	"slack-webhook-url":             `^https://hooks\.slack\.com/services/T[A-Z0-9]{8}/B[A-Z0-9]{10}/[A-Za-z0-9]{24}$`,
	"twilio-api-key":                `^SK[0-9a-fA-F]{32}$`,
	"sendgrid-api-key":              `^SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}$`,
	"mailgun-api-key":               `^key-[a-f0-9]{32}$`,
	"discord-bot-token":             `^[MNO][A-Za-z0-9]{23}\.[\w-]{6}\.[\w-]{38}$`,
	"telegram-bot-token":            `^[0-9]{5,16}:A[a-zA-Z0-9_\-]{34}$`,
	"npm-access-token":              `^npm_[a-zA-Z0-9]{36}$`,
	"pypi-upload-token":             `^pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}$`,
	"rubygems-api-key":              `^rubygems_[a-f0-9]{48}$`,
	"nuget-api-key":                 `^oy2[a-z0-9]{43}$`,
	"dockerhub-pat":                 `^dckr_pat_[\w-]{27}$`,
	"datadog-api-key":               `^[a-f0-9]{32}$`,
	"newrelic-user-api-key":         `^NRAK-[A-Z0-9]{27}$`,
	"sentry-user-token":             `^sntryu_[a-f0-9]{64}$`,
	"sentry-org-token":              `^sntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}$`,
	"grafana-service-account-token": `^glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}$`,
	"grafana-cloud-token":           `^glc_[A-Za-z0-9+/]{32,400}={0,3}$`,
	"jwt":                           `^ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.[a-zA-Z0-9\/\\_-]{10,}$`,
	"okta-api-token":                `^00[\w=\-]{40}$`,
	"vault-service-token":           `^hvs\.[\w-]{90,120}$`,
	"vault-batch-token":             `^hvb\.[\w-]{138,300}$`,
	"age-secret-key":                `^AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}$`,
	"xai-api-key":                   `^xai-[A-Za-z0-9]{80}$`,
	"openrouter-api-key":            `^sk-or-v1-[a-f0-9]{64}$`,
	"shopify-access-token":          `^shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}$`,
	"linear-api-key":                `^lin_api_(?i)[a-z0-9]{40}$`,
	"postman-api-key":               `^PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34}$`,
	"doppler-token":                 `^dp\.pt\.(?i)[a-z0-9]{43}$`,
	"pulumi-access-token":           `^pul-[a-f0-9]{40}$`,
	"terraform-cloud-token":         `^(?i)[a-z0-9]{14}\.(?-i:atlasv1)\.[a-z0-9\-_=]{60,70}$`,
	"flyio-token":                   `^fo1_[\w-]{43}$`,
	"sourcegraph-token":             `^sgp_[a-fA-F0-9]{16}_[a-fA-F0-9]{40}$`,
	"databricks-token":              `^dapi[a-f0-9]{32}$`,
	"planetscale-password":          `^pscale_pw_(?i)[\w=\.-]{32,64}$`,
	"airtable-pat":                  `^pat[[:alnum:]]{14}\.[a-f0-9]{64}$`,
	"infracost-api-key":             `^ico-[a-zA-Z0-9]{32}$`,
	"openshift-token":               `^sha256~[\w-]{43}$`,
	"alibaba-access-key-id":         `^LTAI(?i)[a-z0-9]{20}$`,
	"dynatrace-token":               `^dt0c01\.(?i)[a-z0-9]{24}\.[a-z0-9]{64}$`,
	"brevo-api-key":                 `^xkeysib-[a-f0-9]{64}\-(?i)[a-z0-9]{16}$`,
	"mailchimp-api-key":             `^[a-f0-9]{32}-us\d{1,2}$`,
	"shippo-api-token":              `^shippo_(?:live|test)_[a-fA-F0-9]{40}$`,
	"easypost-api-key":              `^EZ[AT]K(?i)[a-z0-9]{54}$`,
	"pem-rsa":                       `^-----BEGIN RSA PRIVATE KEY-----\n(?:[A-Za-z0-9+/]{1,64}\n)+-----END RSA PRIVATE KEY-----$`,
	"openssh-private-key":           `^-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE(?:[A-Za-z0-9+/]{1,70}\n)+-----END OPENSSH PRIVATE KEY-----$`,
	"pgp-private-key":               `^-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n(?:[A-Za-z0-9+/]{64}\n)+=[A-Za-z0-9+/]{4}\n-----END PGP PRIVATE KEY BLOCK-----$`,
	"putty-private-key":             `^PuTTY-User-Key-File-3: ssh-ed25519\n(?s:.*)Private-Lines: 1\n[A-Za-z0-9+/=]+\nPrivate-MAC: [0-9a-f]{64}$`,
}

func TestFakeFormats(t *testing.T) {
	for _, k := range fakeKinds {
		re, ok := fakeFormats[k.typ]
		if !ok {
			continue
		}
		rx := regexp.MustCompile(re)
		for seed := range uint64(25) {
			g := newGen(seed)
			f := k.gen(g)
			if !rx.MatchString(f.value) {
				t.Errorf("%s (seed %d): value does not have the published shape", k.typ, seed)
			}
		}
	}
	// Atlassian tokens end with the upper-case hex CRC32 of what precedes.
	for _, typ := range []string{"bitbucket-app-password", "atlassian-api-token"} {
		for seed := range uint64(25) {
			v := fakeOf(t, typ, seed).value
			if want := fmt.Sprintf("%08X", crc32.ChecksumIEEE([]byte(v[:len(v)-8]))); v[len(v)-8:] != want {
				t.Errorf("%s: checksum %s, want %s", typ, v[len(v)-8:], want)
			}
		}
	}
	// Every GitHub token carries a valid CRC32 checksum in base62.
	for _, typ := range []string{"github-classic-pat", "github-oauth-token", "github-user-to-server-token", "github-app-installation-token", "github-refresh-token"} {
		for seed := range uint64(25) {
			v := fakeOf(t, typ, seed).value
			body, sum := v[4:34], v[34:]
			c := crc32.ChecksumIEEE([]byte(body))
			var want [6]byte
			for i := 5; i >= 0; i-- {
				want[i] = base62[c%62]
				c /= 62
			}
			if sum != string(want[:]) {
				t.Errorf("%s: checksum %s, want %s", typ, sum, want)
			}
		}
	}
}

func newGen(seed uint64) *gen {
	return &gen{rng: rand.New(rand.NewPCG(seed, seed^0x51ed270b))}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fakeOf(t *testing.T, typ string, seed uint64) fake {
	t.Helper()
	for _, k := range fakeKinds {
		if k.typ == typ {
			return k.gen(newGen(seed))
		}
	}
	t.Fatalf("no fake type %s", typ)
	return fake{}
}

func TestWriteCorpus(t *testing.T) {
	recs := GenerateCorpus(CorpusOptions{Seed: 2, Records: 30})
	dir := t.TempDir()
	size, err := WriteCorpus(dir, recs)
	if err != nil {
		t.Fatal(err)
	}
	jsonl := JSONL(recordsOf(recs))
	if size != int64(len(jsonl)) {
		t.Fatalf("size %d, want %d", size, len(jsonl))
	}
	tb, jb, err := WriteRaw(dir, recs)
	if err != nil {
		t.Fatal(err)
	}
	if tb == 0 || jb == 0 {
		t.Fatalf("raw sizes %d, %d", tb, jb)
	}
	got := readFile(t, dir+"/"+CorpusFile)
	if !bytes.Equal(got, jsonl) {
		t.Fatal("corpus.jsonl differs from JSONL of the records")
	}
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(readFile(t, dir+"/"+LabelsFile)), []byte("\n")) {
		var l Label
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		n++
	}
	want := 0
	for _, r := range recs {
		want += len(r.Labels)
	}
	if n != want {
		t.Fatalf("%d labels written, want %d", n, want)
	}
	for _, r := range recs {
		name := strings.TrimSuffix(strings.TrimSuffix(rawName(r.Index), ".txt"), ".json")
		if RawFileRecord(name+".txt") != r.Index {
			t.Fatalf("RawFileRecord(%s) = %d", name, RawFileRecord(name+".txt"))
		}
		if !bytes.Equal(readFile(t, dir+"/"+RawJSONDir+"/"+name+".json"), r.Result) {
			t.Fatalf("raw json of record %d differs", r.Index)
		}
		txt := string(readFile(t, dir+"/"+RawTextDir+"/"+name+".txt"))
		for _, l := range r.Labels {
			if !strings.Contains(txt, l.Exact) {
				t.Fatalf("record %d: decoded text lacks a %s label", r.Index, l.Type)
			}
		}
	}
	if RawFileRecord("notes.txt") != -1 || RawFileRecord("12.txt") != -1 {
		t.Fatal("RawFileRecord accepts a name it did not write")
	}
}

func recordsOf(recs []LabeledRecord) []Record {
	var out []Record
	for i := range recs {
		out = append(out, recs[i].Record())
	}
	return out
}
