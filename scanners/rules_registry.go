package scanners

import (
	"bytes"
	"encoding/base64"
)

// Package registries. npm and PyPI tokens are declared in rules_vcs.go and
// rules_devtools.go ("npm", "pypi").

func registryRules() []ruleDef {
	hex := "0123456789abcdef"
	lowAlnum := "abcdefghijklmnopqrstuvwxyz0123456789"
	wd := base62Alphabet + "_-"
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return []ruleDef{
		{
			id: "rubygems-api-key", provider: "RubyGems", kind: KindSecret, confidence: "high",
			desc:  "RubyGems API key (rubygems_ and 48 lower-case hex)",
			forms: []form{tokenSpec{prefixes: []string{"rubygems_"}, body: makeSet("a-f0-9"), min: 48, max: 48}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"rubygems_" + fakeChars(hex, 48, 1),
					"GEM_HOST_API_KEY=rubygems_" + fakeChars(hex, 48, 2),
					"---\n:rubygems_api_key: rubygems_" + fakeChars(hex, 48, 3),
				}
				fp = []string{
					"rubygems_" + fakeChars(hex, 47, 4),
					"rubygems_api_key",
					"rubygems_" + fakeChars(hex, 48, 5) + "f",
				}
				return
			},
		},
		{
			id: "nuget-api-key", provider: "NuGet", kind: KindSecret, confidence: "high",
			desc:  "NuGet.org API key (oy2 and 43 of [a-z0-9] mixing letters and digits)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"oy2"}, body: makeSet("a-z0-9"), min: 43, max: 43, validate: hasLetterDigit})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"oy2" + fakeChars(lowAlnum, 43, 6),
					"dotnet nuget push pkg.nupkg --api-key oy2" + fakeChars(lowAlnum, 43, 7) + " --source https://api.nuget.org/v3/index.json",
					"NUGET_API_KEY: 'oy2" + fakeChars(lowAlnum, 43, 8) + "'",
				}
				fp = []string{
					"oy2" + fakeChars(lowAlnum, 42, 9),
					"boy2" + fakeChars(lowAlnum, 43, 10),
					"oy2" + fakeChars(base62Alphabet, 43, 11) + "Q",
				}
				return
			},
		},
		{
			id: "dockerhub-pat", provider: "Docker Hub", kind: KindSecret, confidence: "high",
			desc:  "Docker Hub personal and organization access tokens (dckr_pat_, dckr_oat_ and 24-40 of [A-Za-z0-9_-])",
			forms: []form{tokenSpec{prefixes: []string{"dckr_pat_", "dckr_oat_"}, body: setWordDash, min: 24, max: 40}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"dckr_pat_" + fakeChars(wd, 27, 12),
					"echo dckr_pat_" + fakeChars(wd, 27, 13) + " | docker login -u ci --password-stdin",
					"DOCKERHUB_TOKEN=dckr_oat_" + fakeChars(wd, 32, 14),
				}
				fp = []string{
					"dckr_pat_" + fakeChars(wd, 20, 15),
					"dckr_pat_" + fakeChars(wd, 41, 16),
					"xdckr_pat_" + fakeChars(wd, 27, 17),
				}
				return
			},
		},
		{
			id: "jfrog-api-key", provider: "JFrog Artifactory", kind: KindSecret, confidence: "high",
			desc:  "JFrog Artifactory API key (AKCp and 69 alphanumerics)",
			forms: []form{tokenSpec{prefixes: []string{"AKCp"}, body: setAlnum, min: 69, max: 69}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"AKCp" + fakeChars(base62Alphabet, 69, 18),
					"curl -H 'X-JFrog-Art-Api: AKCp" + fakeChars(base62Alphabet, 69, 19) + "' https://acme.jfrog.io/artifactory/api/repositories",
					"artifactory_password=AKCp" + fakeChars(base62Alphabet, 69, 20),
				}
				fp = []string{
					"AKCp" + fakeChars(base62Alphabet, 68, 21),
					"AKCp" + fakeChars(base62Alphabet, 70, 22),
					"akcp" + fakeChars(base62Alphabet, 69, 23),
				}
				return
			},
		},
		{
			id: "jfrog-reference-token", provider: "JFrog Artifactory", kind: KindSecret, confidence: "high",
			desc:  "JFrog reference token (cmVmdGtu, the base64 of \"reftkn\", and 56 alphanumerics: 64 in all)",
			forms: []form{tokenSpec{prefixes: []string{"cmVmdGtu"}, body: setAlnum, min: 56, max: 56, notBefore: setB64NB, notAfter: makeSet("A-Za-z0-9+/=_")}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"cmVmdGtuOjAxOj" + fakeChars(base62Alphabet, 50, 24),
					"JFROG_ACCESS_TOKEN=cmVmdGtu" + fakeChars(base62Alphabet, 56, 25),
					"Authorization: Bearer cmVmdGtuOjAxOj" + fakeChars(base62Alphabet, 50, 26),
				}
				fp = []string{
					"cmVmdGtu" + fakeChars(base62Alphabet, 55, 27),
					"cmVmdGtu" + fakeChars(base62Alphabet, 56, 28) + "+/",
					"cmVmdGtu" + fakeChars(base62Alphabet, 57, 29),
				}
				return
			},
		},
		{
			id: "crates-io-token", provider: "crates.io", kind: KindSecret, confidence: "high",
			desc:  "crates.io API token (cio and 32 alphanumerics mixing two of upper, lower, digit)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"cio"}, body: setAlnum, min: 32, max: 32, validate: twoOfThree})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"cio" + fakeChars(base62Alphabet, 32, 30),
					"CARGO_REGISTRY_TOKEN=cio" + fakeChars(base62Alphabet, 32, 31),
					"[registry]\ntoken = \"cio" + fakeChars(base62Alphabet, 32, 32) + "\"",
				}
				fp = []string{
					"cio" + fakeChars(base62Alphabet, 31, 33),
					"precious" + fakeChars(base62Alphabet, 32, 34),
					"ciopermanentlylowercasewordsnumbering",
				}
				return
			},
		},
		{
			id: "clojars-token", provider: "Clojars", kind: KindSecret, confidence: "high",
			desc:  "Clojars deploy token (CLOJARS_ and 60 of [a-z0-9])",
			forms: []form{tokenSpec{prefixes: []string{"CLOJARS_"}, body: makeSet("a-z0-9"), min: 60, max: 60}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"CLOJARS_" + fakeChars(lowAlnum, 60, 35),
					"CLOJARS_PASSWORD=CLOJARS_" + fakeChars(lowAlnum, 60, 36),
					":password \"CLOJARS_" + fakeChars(lowAlnum, 60, 37) + "\"",
				}
				fp = []string{
					"CLOJARS_USERNAME",
					"CLOJARS_" + fakeChars(lowAlnum, 59, 38),
					"CLOJARS_" + fakeChars(lowAlnum, 60, 39) + "A",
				}
				return
			},
		},
		{
			id: "npm-config-auth", provider: "npm", kind: KindSecret, confidence: "high",
			desc:  "Registry credential in .npmrc or .yarnrc.yml (_authToken=, _auth=, :_password=, npmAuthToken:): the value, 8-512 bytes without whitespace or quotes, not a placeholder",
			forms: []form{npmConfigForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"//registry.npmjs.org/:_authToken=" + fakeChars(hex, 8, 40) + "-" + fakeChars(hex, 4, 41) + "-" + fakeChars(hex, 4, 42) + "-" + fakeChars(hex, 4, 43) + "-" + fakeChars(hex, 12, 44),
					"_auth=" + b64("ci:"+fakeChars(base62Alphabet, 16, 45)),
					"//npm.pkg.github.com/:_password=\"" + b64(fakeChars(base62Alphabet, 20, 46)) + "\"",
					"npmAuthToken: \"" + fakeChars(base62Alphabet, 36, 47) + "\"",
				}
				fp = []string{
					"//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
					"basic_auth=true",
					"_authToken=short",
					"always-auth=true",
				}
				return
			},
		},
		{
			id: "docker-config-auth", provider: "Docker", kind: KindSecret, confidence: "high",
			desc:  "Registry credential in a Docker config.json: \"auth\": \"base64 of user:password\" (the value)",
			forms: []form{dockerAuthForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"{\"auths\": {\"https://index.docker.io/v1/\": {\"auth\": \"" + b64("ci:"+fakeChars(base62Alphabet, 20, 48)) + "\"}}}",
					"\"auth\":\"" + b64("robot$deploy:"+fakeChars(base62Alphabet, 32, 49)) + "\"",
					"{\\\"auths\\\":{\\\"ghcr.io\\\":{\\\"auth\\\":\\\"" + b64("bot:"+fakeChars(base62Alphabet, 24, 50)) + "\\\"}}}",
					`environment = ["DOCKER_AUTH_CONFIG={\\\"auths\\\":{\\\"r.example:8081\\\":{\\\"auth\\\":\\\"` + b64("svc.ci:"+fakeChars(base62Alphabet, 12, 52)) + `\\\"}}}"]`,
				}
				fp = []string{
					"\"auth\": \"" + b64("no colon here at all") + "\"",
					"\"auth\": \"oauth2\"",
					"\"author\": \"" + b64("ci:"+fakeChars(base62Alphabet, 20, 51)) + "\"",
					"\"auth\": \"" + b64("user:") + "\"",
				}
				return
			},
		},
	}
}

var (
	setNPMValue = func() *byteSet {
		s := makeSet("\x21-\x7e")
		for _, b := range []byte("\"'`") {
			s[b] = false
		}
		return s
	}()
	setNPMQuote = makeSet("\"'")
	// setBackslashes: the escapes before a quote of JSON written inside a
	// JSON string, once or more (\", \\\", …).
	setBackslashes = makeSet("\\\\")
)

// npmConfigForm: keyword "_authtoken", "_auth", ":_password" or
// "npmauthtoken" (any case), not preceded by [A-Za-z0-9_]; at most 8 blanks,
// '=' or ':', at most 8 blanks, an optional quote, then the value: 8-512
// printable ASCII bytes other than quotes, not a placeholder.
func npmConfigForm() form {
	const maxVal = 512
	return form{
		keywords:  []string{"_authtoken", "_auth", ":_password", "npmauthtoken"},
		back:      1,
		ahead:     len("npmauthtoken") + 9 + 1 + 9 + 1 + maxVal + 2,
		notBefore: setWord,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setWord[d[ks-1]] {
				return noMatch
			}
			c := scanCursor{d: d}
			i := c.run(ke, setSpaceTab, 8)
			if b := c.at(i); i-ke > 8 || b != '=' && b != ':' {
				return c.done(v, noMatch)
			}
			j := c.run(i+1, setSpaceTab, 8)
			if j-(i+1) > 8 {
				return c.done(v, noMatch)
			}
			if c.is(j, setNPMQuote) {
				j++
			}
			e := c.run(j, setNPMValue, maxVal)
			if e-j < 8 || e-j > maxVal || templatePlaceholder(d[j:min(e, len(d))]) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: j, end: e})
		},
	}
}

// dockerAuthForm: keyword "\"auth" then an optional backslash and '"' (the
// name "auth", plain or escaped in a JSON string), at most 8 blanks, ':', at
// most 8 blanks, an optional backslash, '"', 8-1024 base64 bytes, an
// optional backslash and '"'. The value must decode (standard base64) to
// printable ASCII "user:password" with both parts non-empty.
func dockerAuthForm() form {
	const maxVal = 1024
	return form{
		keywords: []string{"\"auth"},
		back:     1,
		ahead:    5 + 8 + 9 + 1 + 9 + 8 + maxVal + 8,
		check: func(v *view, ks, ke int) result {
			d := v.data
			c := scanCursor{d: d}
			i := c.run(ke, setBackslashes, 7) // "auth", \"auth\", \\\"auth\\\": JSON in JSON in …
			if c.at(i) != '"' {
				return c.done(v, noMatch)
			}
			i = c.run(i+1, setSpaceTab, 8)
			if c.at(i) != ':' {
				return c.done(v, noMatch)
			}
			j := c.run(c.run(i+1, setSpaceTab, 8), setBackslashes, 7)
			if c.at(j) != '"' {
				return c.done(v, noMatch)
			}
			j++
			e := c.run(j, setBase64Pad, maxVal)
			x := c.run(e, setBackslashes, 7)
			if e-j < 8 || e-j > maxVal || c.at(x) != '"' {
				return c.done(v, noMatch)
			}
			if c.short && !v.atEnd {
				return result{status: resMore}
			}
			if !userPassB64(d[j:e]) {
				return noMatch
			}
			return result{status: resMatch, start: j, end: e}
		},
	}
}

// userPassB64 reports whether b is standard base64 of printable ASCII
// "user:password" with both parts non-empty.
func userPassB64(b []byte) bool {
	var buf [768]byte
	if base64.StdEncoding.DecodedLen(len(b)) > len(buf) {
		return false
	}
	n, err := base64.StdEncoding.Decode(buf[:], b)
	if err != nil {
		return false
	}
	u := buf[:n]
	for _, c := range u {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	k := bytes.IndexByte(u, ':')
	return k > 0 && k < len(u)-1
}
