package scanners

import "strings"

// AI platforms, and the generic "sk-" key shape many of them share.

func aiRules() []ruleDef {
	wd := base62Alphabet + "_-"
	hex := "0123456789abcdef"
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	return []ruleDef{
		{
			id: "openai", provider: "OpenAI", kind: KindSecret, confidence: "high",
			desc: "OpenAI API key (sk-proj-, sk-svcacct-, sk-admin-, legacy sk- with the T3BlbkFJ marker)",
			forms: []form{
				tokenSpec{prefixes: []string{"sk-proj-", "sk-svcacct-", "sk-admin-"}, body: setWordDash, min: 20, max: 255}.form(),
				tokenSpec{
					prefixes: []string{"sk-"}, body: setAlnum, min: 48, max: 48, notAfter: setWordDash,
					validate: func(b []byte) (bool, ChecksumResult) { return string(b[20:28]) == "T3Blbk"+"FJ", ChecksumNone },
				}.form(),
			},
			examples: func() (tp, fp []string) {
				tp = []string{
					"sk-proj-" + fakeChars(wd, 156, 1),
					"OPENAI_API_KEY=sk-svcacct-" + fakeChars(wd, 60, 2),
					"key sk-admin-" + fakeChars(wd, 40, 3) + " end",
					"sk-" + fakeChars(base62Alphabet, 20, 4) + "T3Blbk" + "FJ" + fakeChars(base62Alphabet, 20, 5),
				}
				fp = []string{
					"sk-proj-short",
					"desk-proj-" + fakeChars(wd, 40, 6),
					"SK-PROJ-" + fakeChars(wd, 40, 7),
					"the sk-proj- prefix",
				}
				return
			},
		},
		{
			id: "anthropic", provider: "Anthropic", kind: KindSecret, confidence: "high",
			desc:  "Anthropic API or admin key (sk-ant-api03-, sk-ant-admin01-)",
			forms: []form{tokenSpec{prefixes: []string{"sk-ant-api03-", "sk-ant-admin01-"}, body: setWordDash, min: 32, max: 255}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"sk-ant-api03-" + fakeChars(wd, 93, 1) + "AA",
					"ANTHROPIC_API_KEY=\"sk-ant-api03-" + fakeChars(wd, 95, 2) + "\"",
					"x-api-key: sk-ant-admin01-" + fakeChars(wd, 93, 3) + "AA",
				}
				fp = []string{
					"sk-ant-api03-short",
					"task-ant-api03-" + fakeChars(wd, 95, 4),
					"sk-ant-api04-",
				}
				return
			},
		},
		{
			id: "huggingface", provider: "Hugging Face", kind: KindSecret, confidence: "high",
			desc: "Hugging Face access token (hf_ and 34+ mixed-case letters, not camel-case words)",
			forms: []form{tokenSpec{
				prefixes: []string{"hf_"}, body: setLetters, min: 34, max: 64, notAfter: setWordDash,
				validate: func(b []byte) (bool, ChecksumResult) {
					u, l, _ := hasClasses(b)
					return u && l && !camelWords(b), ChecksumNone
				},
			}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 1),
					"HF_TOKEN=hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 2),
					"token='hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 37, 3) + "'",
				}
				fp = []string{
					"hf_hub_download_with_a_very_long_python_function_name",
					"hf_" + fakeChars("abcdefghijklmnopqrstuvwxyz", 34, 4),
					"hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 5) + "9",
				}
				return
			},
		},
		provRule("huggingface-org", "Hugging Face", "high", "Hugging Face organization API token (api_org_ and 34+ mixed-case letters)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"api_org_"}, body: setLetters, min: 34, max: 64, notAfter: setWordDash,
				validate: func(b []byte) (bool, ChecksumResult) {
					u, l, _ := hasClasses(b)
					return u && l, ChecksumNone
				},
			})},
			func() (tp, fp []string) {
				tp = []string{
					"api_org_" + fakeChars(letters, 34, 1),
					"HF_ORG_TOKEN=api_org_" + fakeChars(letters, 34, 2),
					"{\"token\": \"api_org_" + fakeChars(letters, 40, 3) + "\"}",
				}
				fp = []string{
					"api_org_" + fakeChars(letters, 33, 4),
					"api_org_" + fakeChars("abcdefghijklmnopqrstuvwxyz", 34, 5),
					"get_api_org_" + fakeChars(letters, 34, 6),
					"api_org_settings_for_the_whole_organization_page",
				}
				return
			}),
		provRule("groq", "Groq", "high", "Groq API key (gsk_ and 52 base62 with the WGdyb3FY marker at byte 20)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"gsk_"}, body: setAlnum, min: 52, max: 52,
				validate: func(b []byte) (bool, ChecksumResult) { return string(b[20:28]) == "WGdyb3FY", ChecksumNone },
			})},
			func() (tp, fp []string) {
				tp = []string{
					groq(1),
					"GROQ_API_KEY=" + groq(2),
					"client = Groq(api_key=\"" + groq(3) + "\")",
				}
				fp = []string{
					"gsk_" + fakeChars(base62Alphabet, 52, 4),
					groq(5) + "x",
					"xgsk_" + groq(6)[4:],
					"gsk_" + fakeChars(base62Alphabet, 20, 7) + "WGdyb3FY",
				}
				return
			}),
		provRule("replicate", "Replicate", "high", "Replicate API token (r8_ and 37 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"r8_"}, body: setWordDash, min: 37, max: 37, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"r8_" + fakeChars(base62Alphabet, 37, 1),
					"REPLICATE_API_TOKEN=r8_" + fakeChars(base62Alphabet, 37, 2),
					"Authorization: Bearer r8_" + fakeChars(base62Alphabet, 37, 3),
				}
				fp = []string{
					"r8_" + fakeChars(base62Alphabet, 36, 4),
					"r8_" + fakeChars(base62Alphabet, 38, 5),
					"r8_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
					"var8_" + fakeChars(base62Alphabet, 37, 6),
				}
				return
			}),
		provRule("perplexity", "Perplexity", "high", "Perplexity API key (pplx- and 48 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"pplx-"}, body: setAlnum, min: 48, max: 48, notBefore: setWordDash, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"pplx-" + fakeChars(base62Alphabet, 48, 1),
					"PERPLEXITY_API_KEY=pplx-" + fakeChars(base62Alphabet, 48, 2),
					"'pplx-" + fakeChars(base62Alphabet, 48, 3) + "'",
				}
				fp = []string{
					"pplx-" + fakeChars(base62Alphabet, 47, 4),
					"pplx-" + fakeChars(base62Alphabet, 48, 5) + "-x",
					"pplx-api-client-library-for-python-and-javascript",
				}
				return
			}),
		provRule("xai", "xAI", "high", "xAI (Grok) API key (xai- and 80 of [A-Za-z0-9_])",
			[]form{strictForm(tokenSpec{prefixes: []string{"xai-"}, body: setWord, min: 80, max: 80, notBefore: setWordDash, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"xai-" + fakeChars(base62Alphabet, 80, 1),
					"XAI_API_KEY=xai-" + fakeChars(base62Alphabet, 80, 2),
					"Bearer xai-" + fakeChars(base62Alphabet, 80, 3) + "\n",
				}
				fp = []string{
					"xai-" + fakeChars(base62Alphabet, 79, 4),
					"xai-" + fakeChars(base62Alphabet, 81, 5),
					"xai-grok-beta",
					"pixai-" + fakeChars(base62Alphabet, 80, 6),
				}
				return
			}),
		provRule("langsmith", "LangChain", "high", "LangSmith personal or service key (lsv2_pt_, lsv2_sk_, 32 hex, _, 10 hex)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"lsv2_pt_", "lsv2_sk_"}, body: setWord, min: 43, max: 43,
				validate: bodyShape(bodySeg{set: setHexLower, n: 32}, bodySeg{lit: "_"}, bodySeg{set: setHexLower, n: 10}),
			})},
			func() (tp, fp []string) {
				tp = []string{
					"lsv2_pt_" + fakeChars(hex, 32, 1) + "_" + fakeChars(hex, 10, 2),
					"LANGSMITH_API_KEY=\"lsv2_sk_" + fakeChars(hex, 32, 3) + "_" + fakeChars(hex, 10, 4) + "\"",
					"os.environ[\"LANGCHAIN_API_KEY\"] = \"lsv2_pt_" + fakeChars(hex, 32, 5) + "_" + fakeChars(hex, 10, 6) + "\"",
				}
				fp = []string{
					"lsv2_pt_" + fakeChars(hex, 32, 7) + "_" + fakeChars(hex, 9, 8),
					"lsv2_pt_" + fakeChars(hex, 43, 9),
					"lsv2_pt_xxxxxxxxxxxx",
					"lsv2_xx_" + fakeChars(hex, 32, 10) + "_" + fakeChars(hex, 10, 11),
				}
				return
			}),
		provRule("openrouter", "OpenRouter", "high", "OpenRouter API key (sk-or-v1- and 64 hex)",
			[]form{tokenSpec{prefixes: []string{"sk-or-v1-"}, body: setHexLower, min: 64, max: 64, notBefore: setWordDash, notAfter: setWordDash}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"sk-or-v1-" + fakeChars(hex, 64, 1),
					"OPENROUTER_API_KEY=sk-or-v1-" + fakeChars(hex, 64, 2),
					"\"apiKey\": \"sk-or-v1-" + fakeChars(hex, 64, 3) + "\"",
				}
				fp = []string{
					"sk-or-v1-" + fakeChars(hex, 63, 4),
					"sk-or-v1-" + fakeChars(hex, 64, 5) + "a",
					"task-or-v1-" + fakeChars(hex, 64, 6),
				}
				return
			}),
		provRule("elevenlabs", "ElevenLabs", "high", "ElevenLabs API key (sk_ and 48 hex)",
			[]form{tokenSpec{prefixes: []string{"sk_"}, body: setHexLower, min: 48, max: 48}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"sk_" + fakeChars(hex, 48, 1),
					"xi-api-key: sk_" + fakeChars(hex, 48, 2),
					"ELEVENLABS_API_KEY=\"sk_" + fakeChars(hex, 48, 3) + "\"",
				}
				fp = []string{
					"sk_" + fakeChars(hex, 47, 4),
					"task_" + fakeChars(hex, 48, 5),
					"sk_" + fakeChars(hex, 40, 6),
					"sk_" + fakeChars(hex, 64, 7),
				}
				return
			}),
		provRule("nvidia", "NVIDIA", "high", "NVIDIA API key (nvapi- and 64 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"nvapi-"}, body: setWordDash, min: 64, max: 64, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"nvapi-" + fakeChars(wd, 64, 1),
					"NGC_API_KEY=nvapi-" + fakeChars(wd, 64, 2),
					"api_key = \"nvapi-" + fakeChars(base62Alphabet, 64, 3) + "\"",
				}
				fp = []string{
					"nvapi-" + fakeChars(wd, 63, 4),
					"nvapi-your-key-here",
					"nvapi-" + fakeChars(wd, 65, 5),
				}
				return
			}),
		provRule("pinecone", "Pinecone", "high", "Pinecone API key (pcsk_, a 4-8 byte key id, _, 50-80 base62)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"pcsk_"}, body: setWord, min: 55, max: 89,
				validate: func(b []byte) (bool, ChecksumResult) {
					i := 0
					for i < len(b) && b[i] != '_' {
						i++
					}
					if i < 4 || i > 8 || len(b)-i-1 < 50 || len(b)-i-1 > 80 {
						return false, ChecksumNone
					}
					for _, c := range b[i+1:] {
						if c == '_' {
							return false, ChecksumNone
						}
					}
					return mixes2(b[i+1:])
				},
			})},
			func() (tp, fp []string) {
				tp = []string{
					"pcsk_" + fakeChars(base62Alphabet, 6, 1) + "_" + fakeChars(base62Alphabet, 63, 2),
					"PINECONE_API_KEY=pcsk_" + fakeChars(base62Alphabet, 5, 3) + "_" + fakeChars(base62Alphabet, 63, 4),
					"Pinecone({ apiKey: 'pcsk_" + fakeChars(base62Alphabet, 6, 5) + "_" + fakeChars(base62Alphabet, 63, 6) + "' })",
				}
				fp = []string{
					"pcsk_" + fakeChars(base62Alphabet, 69, 7),
					"pcsk_" + fakeChars(base62Alphabet, 6, 8) + "_" + fakeChars(base62Alphabet, 30, 9),
					"pcsk_" + fakeChars(base62Alphabet, 2, 10) + "_" + fakeChars(base62Alphabet, 63, 11),
					"PINECONE_API_KEY=pcsk_...",
				}
				return
			}),
		provRule("together", "Together AI", "high", "Together AI API key (tgp_v1_ and 43 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"tgp_v1_"}, body: setWordDash, min: 43, max: 43, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"tgp_v1_" + fakeChars(wd, 43, 1),
					"TOGETHER_API_KEY=tgp_v1_" + fakeChars(wd, 43, 2),
					"Together(api_key=\"tgp_v1_" + fakeChars(wd, 43, 3) + "\")",
				}
				fp = []string{
					"tgp_v1_" + fakeChars(wd, 42, 4),
					"tgp_v1_" + fakeChars(wd, 44, 5),
					"tgp_v1_" + strings.Repeat("j", 43),
				}
				return
			}),
		provRule("langfuse", "Langfuse", "high", "Langfuse secret key (sk-lf- and a UUID); pk-lf- public keys are not secret",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"sk-lf-"}, body: makeSet("0-9a-f-"), min: 36, max: 36, notBefore: setWordDash, notAfter: setWordDash,
				validate: uuidShape,
			})},
			func() (tp, fp []string) {
				tp = []string{
					"sk-lf-" + fakeUUID(1),
					"LANGFUSE_SECRET_KEY=sk-lf-" + fakeUUID(2),
					"secret_key=\"sk-lf-" + fakeUUID(3) + "\"",
				}
				fp = []string{
					"pk-lf-" + fakeUUID(4),
					"sk-lf-replace-me",
					"sk-lf-" + fakeChars(hex, 36, 5),
					"sk-lf-" + fakeUUID(6) + "-0",
				}
				return
			}),
		provRule("tavily", "Tavily", "high", "Tavily API key (tvly-, tvly-dev- or tvly-prod- and 32 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"tvly-", "tvly-dev-", "tvly-prod-"}, body: setAlnum, min: 32, max: 32, notBefore: setWordDash, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"tvly-" + fakeChars(base62Alphabet, 32, 1),
					"TAVILY_API_KEY=tvly-dev-" + fakeChars(base62Alphabet, 32, 2),
					"api_key='tvly-prod-" + fakeChars(base62Alphabet, 32, 3) + "'",
				}
				fp = []string{
					"tvly-" + fakeChars(base62Alphabet, 31, 4),
					"tvly-test-key-12345",
					"tvly-dev-" + fakeChars(base62Alphabet, 33, 5),
				}
				return
			}),
		provRule("cohere", "Cohere", "medium", "Cohere API key: 40 base62 bytes right after a COHERE_API_KEY / CO_API_KEY name",
			[]form{keyedForm([]string{"cohere_api_key", "cohere-api-key", "co_api_key"}, 40)},
			func() (tp, fp []string) {
				tp = []string{
					"COHERE_API_KEY=" + fakeChars(base62Alphabet, 40, 1),
					"\"cohere_api_key\": \"" + fakeChars(base62Alphabet, 40, 2) + "\"",
					"export CO_API_KEY='" + fakeChars(base62Alphabet, 40, 3) + "'",
				}
				fp = []string{
					"COHERE_API_KEY=" + fakeChars(base62Alphabet, 41, 4),
					"COHERE_API_KEY=${COHERE_API_KEY}",
					"co_api_key: " + fakeChars("abcdefghijklmnopqrstuvwxyz", 40, 5),
					fakeChars(base62Alphabet, 40, 6) + " is not near a key name",
				}
				return
			}),
	}
}

// groq builds a test Groq key (the marker sits at byte 20 of the body).
func groq(seed uint32) string {
	return "gsk_" + fakeChars(base62Alphabet, 20, seed) + "WGdyb3FY" + fakeChars(base62Alphabet, 24, seed+1)
}

// uuidShape accepts a lower-case hex UUID (8-4-4-4-12).
var uuidShape = bodyShape(bodySeg{set: setHexLower, n: 8}, bodySeg{lit: "-"}, bodySeg{set: setHexLower, n: 4}, bodySeg{lit: "-"},
	bodySeg{set: setHexLower, n: 4}, bodySeg{lit: "-"}, bodySeg{set: setHexLower, n: 4}, bodySeg{lit: "-"}, bodySeg{set: setHexLower, n: 12})

// keyedForm: one of keywords (a variable or field name), then 1..8 separator
// bytes (quotes, spaces, ':', '=', '>', ','), then exactly n base62 bytes
// holding upper case, lower case and digits, not followed by a word byte. The
// match is the value only.
func keyedForm(keywords []string, n int) form {
	return namedValue{
		keywords: keywords, sep: makeSet("\t\n\f\r \"'`:=>,"), maxSep: 8, run: setWord, n: n,
		accept: func(b []byte) bool {
			for _, c := range b {
				if !setAlnum[c] {
					return false
				}
			}
			ok, _ := mixes3(b)
			return ok
		},
	}.form()
}

// namedValue declares the shape "a key name, 1..maxSep separator bytes, then
// a value of exactly n bytes": the value is the maximal run of run bytes
// (so it is never followed by one), it must not be followed by a byte of
// notAfter (nil: no such check), and accept decides on its bytes. The match
// is the value only.
type namedValue struct {
	keywords []string
	sep      *byteSet
	maxSep   int
	run      *byteSet
	n        int
	notAfter *byteSet
	accept   func(value []byte) bool
}

func (nv namedValue) form() form {
	longest := 0
	for _, k := range nv.keywords {
		longest = max(longest, len(k))
	}
	return form{
		keywords: nv.keywords,
		back:     1,
		ahead:    longest + nv.maxSep + nv.n + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			i := ke
			for i < len(d) && i-ke <= nv.maxSep && nv.sep[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i == ke || i-ke > nv.maxSep {
				return noMatch
			}
			s := i
			for i < len(d) && i-s <= nv.n && nv.run[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-s != nv.n || nv.notAfter != nil && i < len(d) && nv.notAfter[d[i]] || !nv.accept(d[s:i]) {
				return noMatch
			}
			return result{status: resMatch, start: s, end: i}
		},
	}
}

// genericSKRule is the seed's sk-[A-Za-z0-9_-]{20,} narrowed against false
// positives: "sk-" must start a word (so task-runner-... never matches) and
// the body must hold a random-looking segment: 16+ bytes between separators
// with at least two of upper case, lower case and digits. It comes after the
// provider rules so that a provider's own id wins on identical spans.
func genericSKRule() ruleDef {
	wd := base62Alphabet + "_-"
	return ruleDef{
		id: "generic-sk", provider: "generic", kind: KindSecret, confidence: "high",
		desc: "secret key of the common sk- shape (DeepSeek, Moonshot, many proxies): sk- and 20+ of [A-Za-z0-9_-], whatever the body looks like (the seed's floor; a lower-case body glued to a word, as in task-runner-…, is a name)",
		forms: []form{tokenSpec{
			prefixes: []string{"sk-"}, body: setWordDash, min: 20, max: seedFloorMax, floor: true,
		}.form()},
		examples: func() (tp, fp []string) {
			tp = []string{
				"sk-" + fakeChars("0123456789abcdef", 32, 1),
				"api_key = \"sk-" + fakeChars(wd, 48, 2) + "\"",
				"curl -H @headers --key sk-" + fakeChars(base62Alphabet, 48, 3),
				"use sk-testtesttesttesttest here",                         // placeholder-looking: the seed removes it, so do we
				"the key sk-" + strings.Repeat("0", 32),                    // idem
				"found xsk-" + fakeChars(base62Alphabet, 30, 6) + " in it", // glued, mixed case
				"sk-learn-pipeline-configuration-2024",                     // the seed removes it
			}
			fp = []string{
				"task-runner-" + fakeChars("abcdefghijklmnopqrstuvwxyz", 24, 4),
				"disk-cleanup-cronjob-28391234-abcde",
				"sk-" + fakeChars(wd, 19, 5),
				"sk-short1",
				"SK-" + fakeChars(base62Alphabet, 30, 7),
			}
			return
		},
	}
}

// seedFloorMax is the longest body a floor token (tokenSpec.floor) is read
// to; a longer run is redacted up to it.
const seedFloorMax = 4096

// randomSegment reports whether b has a run of at least n bytes without '-'
// or '_' that mixes at least two of upper case, lower case and digits.
func randomSegment(b []byte, n int) bool {
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && b[i] != '-' && b[i] != '_' {
			continue
		}
		if i-start >= n {
			u, l, d := hasClasses(b[start:i])
			if u && l || u && d || l && d {
				return true
			}
		}
		start = i + 1
	}
	return false
}

// camelWords reports letters that read as camel-case words: every capital
// starts a run of at least three letters before the next capital (a random
// mix of cases has runs of one or two), with two capitals or more.
func camelWords(b []byte) bool {
	caps, run := 0, 0
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			if caps > 0 && run < 3 || caps == 0 && i > 0 && run < 2 {
				return false
			}
			caps++
			run = 0
		}
		run++
	}
	return caps >= 2 && run >= 3
}
