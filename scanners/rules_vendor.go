package scanners

// Rules for vendor formats that trufflehog's detectors know and the other
// families did not: Tableau personal access token secrets, Azure Container
// Registry passwords, Salesforce connected-app consumer keys, Azure storage
// account keys under an account-key name in code, Rootly API keys and
// SpectralOps personal tokens.
//
// Each format is found by its own shape: a rare literal at a fixed place
// (==: after 22 base64 bytes, +ACR after 42, the prefixes 3MVG9, rootly_,
// spu-) and exact lengths and alphabets around it. The Azure storage key
// has no literal of its own (88 base64 bytes ending in ==, as a SHA-512
// digest in base64 has too), so it needs an account-key name a short way
// before it, as a connection string's AccountKey= gives it.

// Limits of the vendor rules.
const (
	azKeyMaxSuffix = 16 // name bytes after an account-key keyword (AccountKey1, ACCOUNT_KEY_PRIMARY)
	azKeyMaxGlue   = 64 // bytes between the name and the key: spaces, quotes, brackets, operators, line breaks
)

var (
	// setAzKeyGlue are the bytes allowed between an account-key name and
	// its value: spaces and line breaks, quotes, brackets, operators,
	// commas (a call's arguments) and the backslash of a JSON escape.
	setAzKeyGlue = makeSet(" \t\r\n\"'`{}[]()<>,:=|\\")
)

func vendorRules() []ruleDef {
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	tableau := func(seed uint32) string {
		return fakeChars(b64, 22, seed) + "==:" + fakeChars(base62Alphabet, 32, seed+1)
	}
	acr := func(seed uint32) string {
		return fakeChars(b64, 42, seed) + "+ACR" + fakeChars(base62Alphabet, 6, seed+1)
	}
	sf := func(n int, seed uint32) string { return "3MVG9" + fakeChars(base62Alphabet+"._", n, seed) }
	azKey := func(seed uint32) string { return fakeChars(b64, 86, seed) + "==" }
	return []ruleDef{
		provRule("tableau-pat-secret", "Tableau", "medium",
			"Tableau personal access token secret: 22 base64 bytes, ==: and 32 letters and digits (the base64 of a 16-byte id, then the random secret); no base64 byte on either side",
			[]form{tableauForm()},
			func() (tp, fp []string) {
				tp = []string{
					tableau(1),
					"pat_secret = " + tableau(3),
					"PAT name: ci-deploy\n" + tableau(5) + "\nserver=prod.online.tableau.com",
					`{"personalAccessTokenSecret": "` + tableau(7) + `"}`,
					`token ci\n` + tableau(9),
				}
				fp = []string{
					fakeChars(b64, 21, 11) + "==:" + fakeChars(base62Alphabet, 32, 12),
					fakeChars(b64, 22, 13) + "==:" + fakeChars(base62Alphabet, 31, 14),
					"x" + tableau(15),
					tableau(17) + "Q",
					"if a ==: b",
					fakeChars(b64, 22, 19) + "==:" + "abcdefghijklmnopqrstuvwxyz012345",
				}
				return
			}),
		provRule("azure-container-registry-password", "Microsoft Azure", "high",
			"Azure Container Registry access key or token password: 42 base64 bytes, +ACR and 6 more (52 bytes, the form Azure generates since 2023); no base64 byte on either side",
			[]form{acrForm()},
			func() (tp, fp []string) {
				tp = []string{
					acr(21),
					"docker login myreg.azurecr.io -u myreg -p " + acr(23),
					"ACR_PASSWORD=" + acr(25) + "\n",
					`{"name":"registry-password","value":"` + acr(27) + `"}`,
				}
				fp = []string{
					fakeChars(b64, 41, 29) + "+ACR" + fakeChars(base62Alphabet, 6, 30),
					acr(31) + "x",
					"/" + acr(33),
					"docker login myreg.azurecr.io -u myreg --password-stdin +ACR",
					fakeChars(b64, 42, 35) + "+acr" + fakeChars(base62Alphabet, 6, 36),
				}
				return
			}),
		provRule("salesforce-consumer-key", "Salesforce", "medium",
			"Salesforce connected-app consumer key (the OAuth client id that, with its secret or a refresh token, signs in): 3MVG9 and 75 to 251 of [A-Za-z0-9._] mixing upper case, lower case and digits",
			[]form{plainForm(tokenSpec{prefixes: []string{"3MVG9"}, body: makeSet("A-Za-z0-9._"), min: 75, max: 251, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					sf(80, 41),
					`salesforce_key = "` + sf(80, 43) + `"`,
					"SF_CONSUMER_KEY=" + sf(90, 45),
				}
				fp = []string{
					sf(40, 47),
					"3MVG9" + fakeChars("abcdefghijklmnopqrstuvwxyz", 80, 49),
					"x" + sf(80, 51),
					"3mvg9" + fakeChars(base62Alphabet, 80, 53),
				}
				return
			}),
		provRule("azure-storage-key-named", "Microsoft Azure", "high",
			"Azure storage account key (86 base64 bytes and ==) up to 64 bytes after an account-key or storage-key name (AccountKey, ACCOUNT_KEY, -storagekey) across spaces, quotes, brackets, operators and line breaks, as code sets it; the key is replaced",
			[]form{azureKeyNamedForm()},
			func() (tp, fp []string) {
				tp = []string{
					"public static final String DEFAULT_ACCOUNT_KEY\n    = \"" + azKey(61) + "\";",
					"AzuriteAccountKey{\n  \"" + azKey(63) + "\"};",
					"assert.equal(parsed['AccountKey'], '" + azKey(65) + "');",
					"process.env.ACCOUNT_KEY ||\n  \"" + azKey(67) + "\"",
					"Cleanup.exe -storagename acct -storagekey " + azKey(69),
				}
				fp = []string{
					"integrity sha512-" + azKey(71) + " account_key",
					"ACCOUNT_KEY = \"" + fakeChars(b64, 80, 73) + "==\"",
					"account_key: " + azKey(75) + "x",
					"AccountKey = process.env.AZURE_KEY",
					"account_key_name = \"" + strings64("A") + "\"",
				}
				return
			}),
		provRule("rootly-api-key", "Rootly", "high",
			"Rootly API key: rootly_ and 64 lower-case hex",
			[]form{plainForm(tokenSpec{prefixes: []string{"rootly_"}, body: setHexLower, min: 64, max: 64, notAfter: setWord, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"rootly_" + fakeChars(hex, 64, 81),
					"ROOTLY_API_TOKEN=rootly_" + fakeChars(hex, 64, 83),
					`{"key": "rootly_` + fakeChars(hex, 64, 85) + `"}`,
				}
				fp = []string{
					"rootly_" + fakeChars(hex, 63, 87),
					"rootly_" + fakeChars(hex, 65, 89),
					"rootly_" + fakeChars("0123456789ABCDEF", 64, 91),
					"xrootly_" + fakeChars(hex, 64, 93),
				}
				return
			}),
		provRule("spectralops-token", "SpectralOps", "high",
			"SpectralOps personal token: spu- and 32 lower-case hex",
			[]form{plainForm(tokenSpec{prefixes: []string{"spu-"}, body: setHexLower, min: 32, max: 32, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"spu-" + fakeChars(hex, 32, 101),
					"SPECTRAL_TOKEN=spu-" + fakeChars(hex, 32, 103),
					"Using token spu-" + fakeChars(hex, 32, 105),
				}
				fp = []string{
					"spu-" + fakeChars(hex, 31, 107),
					"spu-" + fakeChars(hex, 32, 109) + "-x",
					"cpu-" + fakeChars(hex, 32, 111),
					"spu-" + fakeChars(hex, 33, 113),
				}
				return
			}),
	}
}

// strings64 returns s repeated to 86 bytes and ==: an account-key-shaped
// filler.
func strings64(s string) string {
	b := make([]byte, 0, 88)
	for len(b) < 86 {
		b = append(b, s...)
	}
	return string(b[:86]) + "=="
}

// escBoundary reports whether position a of d starts a run: the string
// starts there, the byte before is not in set, or it is the letter of a
// JSON escape (\n, \t, \r) written into the text.
func escBoundary(d []byte, a int, set *byteSet) bool {
	if a == 0 || !set[d[a-1]] {
		return true
	}
	c := d[a-1]
	return a >= 2 && d[a-2] == '\\' && (c == 'n' || c == 't' || c == 'r')
}

// runOf reports whether d[a:e] holds only bytes of set.
func runOf(d []byte, a, e int, set *byteSet) bool {
	for i := a; i < e; i++ {
		if !set[d[i]] {
			return false
		}
	}
	return true
}

// tableauForm: keyword "==:" preceded by exactly 22 base64 bytes (a run
// boundary before them, escBoundary) and followed by exactly 32 letters and
// digits, then no byte of [A-Za-z0-9+/=_]; both parts mix two character
// classes and the secret is no filler.
func tableauForm() form {
	const head, tail = 22, 32
	return form{
		keywords: []string{"==:"},
		back:     head + 2,
		ahead:    3 + tail + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			a := ks - head
			if a < 0 || !runOf(d, a, ks, setBase64) || !escBoundary(d, a, setBase64) {
				return noMatch
			}
			e := ke + tail
			if v.more(e) {
				return result{status: resMore}
			}
			if e > len(d) || !runOf(d, ke, e, setAlnum) || e < len(d) && (setBase64Pad[d[e]] || d[e] == '_') {
				return noMatch
			}
			if ok, _ := mixes2(d[a:ks]); !ok {
				return noMatch
			}
			if ok, _ := mixes2(d[ke:e]); !ok || placeholderBody(d[ke:e]) {
				return noMatch
			}
			return result{status: resMatch, start: a, end: e}
		},
	}
}

// acrForm: keyword "+ACR" (this case) preceded by exactly 42 base64 bytes
// (a run boundary before them) and followed by exactly 6 letters and
// digits, then no byte of [A-Za-z0-9+/=]; the password mixes upper case,
// lower case and digits and is no filler.
func acrForm() form {
	const head, tail = 42, 6
	return form{
		keywords: []string{"+acr"},
		back:     head + 2,
		ahead:    4 + tail + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != "+ACR" {
				return noMatch
			}
			a := ks - head
			if a < 0 || !runOf(d, a, ks, setBase64) || !escBoundary(d, a, setBase64) {
				return noMatch
			}
			e := ke + tail
			if v.more(e) {
				return result{status: resMore}
			}
			if e > len(d) || !runOf(d, ke, e, setAlnum) || e < len(d) && setBase64Pad[d[e]] {
				return noMatch
			}
			if ok, _ := mixes3(d[a:e]); !ok || placeholderBody(d[a:ks]) {
				return noMatch
			}
			return result{status: resMatch, start: a, end: e}
		},
	}
}

// azureKeyNamedForm: a keyword accountkey, account_key, account-key,
// storagekey, storage_key or storage-key (any case), at most azKeyMaxSuffix
// bytes of [A-Za-z0-9_] after it, then at most azKeyMaxGlue bytes of
// setAzKeyGlue, then exactly 86 base64 bytes and "==", then no byte of
// [A-Za-z0-9+/=]. The key mixes upper case, lower case and digits and is
// no filler. The glue holds no base64 byte, so the key starts right after
// it (a JSON escape's letter is skipped with its backslash).
func azureKeyNamedForm() form {
	const body = 86
	kws := []string{"accountkey", "account_key", "account-key", "storagekey", "storage_key", "storage-key"}
	return form{
		keywords: kws,
		back:     1,
		ahead:    len("storage_key") + azKeyMaxSuffix + azKeyMaxGlue + body + 2 + 2,
		check: func(v *view, ks, ke int) result {
			d := v.data
			i := ke
			for i < len(d) && i-ke <= azKeyMaxSuffix && setWord[d[i]] {
				i++
			}
			if i-ke > azKeyMaxSuffix {
				return noMatch
			}
			g := i
			for i < len(d) && i-g <= azKeyMaxGlue {
				c := d[i]
				if c == '\\' && i+1 < len(d) && (d[i+1] == 'n' || d[i+1] == 't' || d[i+1] == 'r') {
					i += 2
					continue
				}
				if !setAzKeyGlue[c] {
					break
				}
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i == g || i-g > azKeyMaxGlue {
				return noMatch
			}
			a, e := i, i+body
			if v.more(e + 2) {
				return result{status: resMore}
			}
			if e+2 > len(d) || !runOf(d, a, e, setBase64) || d[e] != '=' || d[e+1] != '=' || e+2 < len(d) && setBase64Pad[d[e+2]] {
				return noMatch
			}
			if ok, _ := mixes3(d[a:e]); !ok || placeholderBody(d[a:e]) {
				return noMatch
			}
			return result{status: resMatch, start: a, end: e + 2}
		},
	}
}
