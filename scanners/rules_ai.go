package scanners

// AI platforms, and the generic "sk-" key shape many of them share.

func aiRules() []ruleDef {
	wd := base62Alphabet + "_-"
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
			tp: []string{
				"sk-proj-" + fakeChars(wd, 156, 1),
				"OPENAI_API_KEY=sk-svcacct-" + fakeChars(wd, 60, 2),
				"key sk-admin-" + fakeChars(wd, 40, 3) + " end",
				"sk-" + fakeChars(base62Alphabet, 20, 4) + "T3Blbk" + "FJ" + fakeChars(base62Alphabet, 20, 5),
			},
			fp: []string{
				"sk-proj-short",
				"desk-proj-" + fakeChars(wd, 40, 6),
				"SK-PROJ-" + fakeChars(wd, 40, 7),
				"the sk-proj- prefix",
			},
		},
		{
			id: "anthropic", provider: "Anthropic", kind: KindSecret, confidence: "high",
			desc:  "Anthropic API or admin key (sk-ant-api03-, sk-ant-admin01-)",
			forms: []form{tokenSpec{prefixes: []string{"sk-ant-api03-", "sk-ant-admin01-"}, body: setWordDash, min: 32, max: 255}.form()},
			tp: []string{
				"sk-ant-api03-" + fakeChars(wd, 93, 1) + "AA",
				"ANTHROPIC_API_KEY=\"sk-ant-api03-" + fakeChars(wd, 95, 2) + "\"",
				"x-api-key: sk-ant-admin01-" + fakeChars(wd, 93, 3) + "AA",
			},
			fp: []string{
				"sk-ant-api03-short",
				"task-ant-api03-" + fakeChars(wd, 95, 4),
				"sk-ant-api04-",
			},
		},
		{
			id: "huggingface", provider: "Hugging Face", kind: KindSecret, confidence: "high",
			desc: "Hugging Face access token (hf_ and 34+ mixed-case letters)",
			forms: []form{tokenSpec{
				prefixes: []string{"hf_"}, body: setLetters, min: 34, max: 64, notAfter: setWordDash,
				validate: func(b []byte) (bool, ChecksumResult) {
					u, l, _ := hasClasses(b)
					return u && l, ChecksumNone
				},
			}.form()},
			tp: []string{
				"hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 1),
				"HF_TOKEN=hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 2),
				"token='hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 37, 3) + "'",
			},
			fp: []string{
				"hf_hub_download_with_a_very_long_python_function_name",
				"hf_" + fakeChars("abcdefghijklmnopqrstuvwxyz", 34, 4),
				"hf_" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, 5) + "9",
			},
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
		id: "generic-sk", provider: "generic", kind: KindSecret, confidence: "medium",
		desc: "secret key of the common sk- shape (DeepSeek, Moonshot, many proxies)",
		forms: []form{tokenSpec{
			prefixes: []string{"sk-"}, body: setWordDash, min: 20, max: 255,
			validate: func(b []byte) (bool, ChecksumResult) { return randomSegment(b, 16), ChecksumNone },
		}.form()},
		tp: []string{
			"sk-" + fakeChars("0123456789abcdef", 32, 1),
			"api_key = \"sk-" + fakeChars(wd, 48, 2) + "\"",
			"sk-or-v1-" + fakeChars("0123456789abcdef", 64, 3),
		},
		fp: []string{
			"task-runner-" + fakeChars("abcdefghijklmnopqrstuvwxyz", 24, 4),
			"sk-learn-pipeline-configuration-2024",
			"sk-" + fakeChars("abcdefghijklmnopqrstuvwxyz", 30, 5),
			"sk-short1",
		},
	}
}

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
