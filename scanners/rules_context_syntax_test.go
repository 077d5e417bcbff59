package scanners

import (
	"strings"
	"testing"
)

// TestAssignmentSyntaxes: the assignment shapes beyond name=value that
// configuration and code print (Makefile, PHP, Go, TypeScript, XML, .NET),
// the key family, a bare name qualified by a word before it, and every
// occurrence of a secret once it is found. Each case is also compared with
// the whole-string reference in several chunkings.
func TestAssignmentSyntaxes(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	tok := fakeChars(base62Alphabet, 32, 101)
	short := fakeChars("abcdefghijklmnopqrstuvwxyz", 9, 102) + "47x"
	hex64 := fakeChars("0123456789abcdef", 64, 103)
	uuid := fakeChars("0123456789abcdef", 8, 104) + "-" + fakeChars("0123456789abcdef", 4, 105) + "-" + fakeChars("0123456789abcdef", 4, 106) + "-" + fakeChars("0123456789abcdef", 4, 107) + "-" + fakeChars("0123456789abcdef", 12, 108)
	const (
		P = "[REDACTED:password-assignment]"
		S = "[REDACTED:secret-assignment]"
		T = "[REDACTED:token-assignment]"
		K = "[REDACTED:key-assignment]"
	)
	tests := []struct{ in, want string }{
		// Makefile, PHP, Go, TypeScript.
		{`api_TOKEN ?= "` + tok + `"`, `api_TOKEN ?= "` + T + `"`},
		{`api_TOKEN ::= "` + tok + `"`, `api_TOKEN ::= "` + T + `"`},
		{`api_TOKEN :::= "` + tok + `"`, `api_TOKEN :::= "` + T + `"`},
		{`API_TOKEN += ` + tok, `API_TOKEN += ` + T},
		{`$apiToken .= "` + tok + `";`, `$apiToken .= "` + T + `";`},
		{`$apiToken = '` + tok + `';`, `$apiToken = '` + T + `';`},
		{`var apiToken string = "` + tok + `"`, `var apiToken string = "` + T + `"`},
		{`const apiToken: string = "` + tok + `";`, `const apiToken: string = "` + T + `";`},
		{`let client_secret: &str = "` + tok + `";`, `let client_secret: &str = "` + S + `";`},
		// XML: the value on the element's line or on its own; a .NET
		// appSettings entry; a Jenkins credential in braces.
		{"<apiToken>" + tok + "</apiToken>", "<apiToken>" + T + "</apiToken>"},
		{"<apiToken>\n    " + tok + "\n</apiToken>", "<apiToken>\n    " + T + "\n</apiToken>"},
		{`"<apiToken>\n    ` + tok + `\n</apiToken>"`, `"<apiToken>\n    ` + T + `\n</apiToken>"`},
		{`<add key="ClearTextPassword" value="` + tok + `" />`, `<add key="ClearTextPassword" value="` + P + `" />`},
		{"<secret>{AQAAABAAAA " + tok + "}</secret>", "<secret>{" + S + "}</secret>"},
		// The key family.
		{"[DEBUG] Using Key=" + tok, "[DEBUG] Using Key=" + K},
		{"  azureKey: " + tok, "  azureKey: " + K},
		{"using key = " + hex64, "using key = " + K},
		{"LICENSEKEY=" + tok, "LICENSEKEY=" + K},
		{"service_key: " + uuid, "service_key: " + K},
		// A bare name qualified by a word: short values, UUIDs and hex.
		{"madkudu token = '" + short + "'", "madkudu token = '" + T + "'"},
		{"svc token = '" + uuid + "'", "svc token = '" + T + "'"},
		{"vault secret = '" + hex64 + "'", "vault secret = '" + S + "'"},
		// Named tokens: shorter values with letters and digits, long digit runs.
		{"linkedin_token = '" + short + "'", "linkedin_token = '" + T + "'"},
		{"discordToken = 4610206753617989741", "discordToken = " + T},
		// Every occurrence of a found secret, context or not.
		{"svc token = '" + tok + "' | '" + tok + "' and " + tok, "svc token = '" + T + "' | '" + T + "' and " + T},
		{"password=" + tok + " echo " + tok + tok, "password=" + P + " echo " + P + P},
		{"onepage token - '" + tok + "'", "onepage token - '" + T + "'"},
		// A quoted value of words: the whole value goes when one is a token.
		{"svc token = ' " + tok + " '", "svc token = '" + T + "'"},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 5} {
			got, _ := redactChunks(t, r, tt.in, n)
			if got != tt.want {
				t.Errorf("chunk %d: %q\n got %q\nwant %q", n, tt.in, got, tt.want)
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tt.in, 1, 3)
		checkAgainstReference(t, c, CatalogOptions{}, strings.Repeat("x ", 150)+tt.in+" tail", 7, 64)
	}
	keep := []string{
		// Not assignments or not secrets.
		"$PASSWORD == " + tok,
		`"$PASSWORD","next"`,
		"public_key: " + tok,
		"sort_key = " + tok,
		"monkey=" + tok,
		"keys = " + tok,
		"key: " + uuid,
		"authorized_key: \"ssh-ed25519 " + tok + " user@host\"",
		"object_key: uploads/2024/06/report-final.pdf",
		"next token = '" + tok + "'",
		"the token = '" + uuid + "'",
		"token = '" + uuid + "'",
		"REGION_URL=https://token.internal.example.com:8443/v1/feed",
		"<apiToken>{{ .Values.token }}</apiToken>",
		"<apiToken>\n  " + tok + "\n<other/>",
		"password: string;",
		"token - " + tok,
		"discord_token = 12345678901234567890",
		// Names and values that say the value is no live secret.
		`nonMatchingToken := "` + tok + `"`,
		`publicToken = "` + tok + `"`,
		"csrf-token=" + tok,
		`<input type="hidden" name="authenticity_token" value="` + tok + `">`,
		"SUMO_ACCESS_KEY={SumoAccessKey}",
		"SUMO_ACCESS_KEY=`vault read -field=key secret/sumo`",
		`notes = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"`,
		`api_token = "<xsd:element name="Code" type="clm84437:CodeContentType"/>"`,
	}
	for _, s := range keep {
		for _, n := range []int{0, 1, 5} {
			if got, fs := redactChunks(t, r, s, n); got != s {
				t.Errorf("chunk %d: %q changed to %q (%v)", n, s, got, ruleNames(c, fs))
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, s, 1, 3)
	}
}

// TestRepeatsAcrossChunks: a repeat found across the seam between held
// bytes and new input, far from the first occurrence on the same line; the
// limit of repMax different repeats; a repeat's line ending ends it.
func TestRepeatsAcrossChunks(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	tok := fakeChars(base62Alphabet, 40, 111)
	s := "ACCESS_TOKEN=" + tok + strings.Repeat(" filler", 2000) + " " + tok + strings.Repeat(".", 70000) + tok
	for _, n := range []int{0, 1, 7, 4093, 65536} {
		got, fs := redactChunks(t, c.NewRedactor(testKey), s, n)
		if strings.Contains(got, tok) || len(fs) != 3 {
			t.Errorf("chunk %d: %d findings, token left: %v", n, len(fs), strings.Contains(got, tok))
		}
	}
	checkAgainstReference(t, c, CatalogOptions{}, s, 4093, 65536)
	var b strings.Builder
	var toks []string
	for i := 0; i < repMax+2; i++ {
		tk := fakeChars(base62Alphabet, 24, uint32(200+i))
		toks = append(toks, tk)
		b.WriteString("token_" + string(rune('a'+i)) + "=" + tk + " ")
	}
	for _, tk := range toks {
		b.WriteString(tk + " ")
	}
	// The next line: a repeat's line has ended, only context finds it.
	b.WriteString("\n" + toks[0] + " token_z=" + toks[1] + " " + toks[1])
	got, _ := redactChunks(t, c.NewRedactor(testKey), b.String(), 0)
	for i, tk := range toks {
		want := 0 // every occurrence on the first line
		switch {
		case i == 0:
			want = 1 // and the one on the second line without context
		case i >= repMax:
			want = 1 // beyond repMax, the repeat without context stays
		}
		if left := strings.Count(got, tk); left != want {
			t.Errorf("token %d: %d occurrences left, want %d", i, left, want)
		}
	}
	checkAgainstReference(t, c, CatalogOptions{}, b.String(), 1, 64)
}
