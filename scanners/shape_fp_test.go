package scanners

import "testing"

// The shape tests of shape_value.go and shape_filename.go, alone and through
// the Redactor. Values are synthetic (fakeChars); a well-formed value beside
// each shape shows the test does not take secrets with it.

func TestCamelFiller(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"1-SlackAppConfigurationAccessTokenHere", true},
		{"clm06431:AgencyIdentificationCodeContentType", true},
		{"TheServiceTokenValue", true},
		{"ShortNameHere", false},                               // under 20 letters
		{"pcQd5Ebfgpdcam5FO2SrvjDvcYfmoduuvxTokenHere", false}, // letters glued to digits
		{"x-SrvjDvcYfmoduuvxWqrtAbcd-y", false},                // words without a vowel
		{"TheServiceTokenValue1", false},                       // a digit in the segment
		{"accessTokenValue", false},                            // two capitals
		{"qWeRtYuIoPaSdFgHjKlZ", false},                        // alternating case
		{fakeChars(base62Alphabet, 40, 1), false},              // random
		{fakeChars(setLettersSpec, 36, 2), false},              // random letters
		{"Ab1Cde2Fgh3Ijk4Lmn5Opq6Rst", false},                  // digits split the runs
		{"xoxp-1-" + fakeChars(base62Alphabet, 32, 3), false},
	} {
		if got := camelFiller([]byte(tc.in)); got != tc.want {
			t.Errorf("camelFiller(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

const setLettersSpec = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func TestEditedHex(t *testing.T) {
	hex := "0123456789abcdef"
	upperHex := "0123456789ABCDEF"
	for _, tc := range []struct {
		name, in string
		want     bool
	}{
		{"one capital in lower-case hex", "ab12F" + fakeChars(hex, 35, 1), true},
		{"one small letter in upper-case hex", "AB12c" + fakeChars(upperHex, 35, 2), true},
		{"a digest and a short tail", fakeChars(hex, 64, 3) + "R21", true},
		{"a sha-1 and a one-letter tail", fakeChars(hex, 40, 4) + "z", true},
		{"lower-case hex", fakeChars(hex, 40, 5), false},
		{"upper-case hex", fakeChars(upperHex, 32, 6), false},
		{"three capitals in lower-case hex", "A" + fakeChars(hex, 10, 7) + "B" + fakeChars(hex, 10, 8) + "C" + fakeChars(hex, 9, 9), false},
		{"mixed-case hex", fakeChars("0123456789abcdefABCDEF", 40, 10), false},
		{"a non-hex letter inside", "2c69j" + fakeChars(hex, 27, 11), false},
		{"a digest and a hex tail", fakeChars(hex, 64, 12) + "ab", false},
		{"a digest and a long tail", fakeChars(hex, 64, 13) + "R2D2", false},
		{"short", "ab12F" + fakeChars(hex, 20, 14), false},
		{"random base62", fakeChars(base62Alphabet, 40, 15), false},
		{"a separator", fakeChars(hex, 32, 16) + ":" + fakeChars(hex, 32, 17), false},
	} {
		if got := editedHex([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: editedHex(%q) = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestMonotoneLike(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"AbCeFG123", true},
		{"abdfk2468", true},
		{"2468abdfk", true},
		{"abcdefgh", true},
		{"AbCeFG1234567890", false}, // 16 bytes: no longer short
		{"abc1def", false},          // two changes of class
		{"abdfk2464", false},        // digits not ascending
		{"aab12345", false},         // a repeat is no step up
		{"abc-123", false},          // a separator
		{fakeChars(base62Alphabet, 9, 1), false},
		{fakeChars(base62Alphabet, 12, 2), false},
	} {
		if got := monotoneLike([]byte(tc.in)); got != tc.want {
			t.Errorf("monotoneLike(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestElided(t *testing.T) {
	for _, tc := range []struct {
		d          string
		start, end int
		want       bool
	}{
		{"v=abcdef...", 2, 8, true},
		{"v=abc...xyz ", 2, 11, true},
		{"v=abcdef.. ", 2, 8, false},
		{"v=abcdef. ", 2, 8, false},
		{"v=abc.def.ghi", 2, 13, false},
	} {
		if got := elided([]byte(tc.d), tc.start, tc.end); got != tc.want {
			t.Errorf("elided(%q, %d, %d) = %v, want %v", tc.d, tc.start, tc.end, got, tc.want)
		}
	}
}

func TestFileNamePart(t *testing.T) {
	body := fakeChars(base62Alphabet, 32, 1)
	for _, tc := range []struct {
		name, before, after string
		want                bool
	}{
		{"after a name and a dot, with an extension", "video_box.", ".png", true},
		{"after a path", "/assets/", ".jpeg)", true},
		{"after a name and a dash", "release-", ".bfu", true},
		{"an upper-case extension", "scan_", ".PNG\n", true},
		{"a double extension", "backup-", ".tar.gz", true},
		{"alone", "", ".png", false},
		{"after a space", "key ", ".png", false},
		{"after an operator", "KEY=", ".png", false},
		{"a dash after nothing", "-", ".png", false},
		{"no extension", "video_box.", "", false},
		{"a sentence goes on", "video_box.", ". Then", false},
		{"an extension of mixed case", "video_box.", ".Png", false},
		{"a long extension", "video_box.", ".images", false},
		{"an extension glued to a word", "video_box.", ".png_x", false},
		{"a digit first", "video_box.", ".7z", false},
	} {
		d := tc.before + body + tc.after
		if got := fileNamePart([]byte(d), len(tc.before), len(tc.before)+len(body)); got != tc.want {
			t.Errorf("%s: fileNamePart(%q) = %v, want %v", tc.name, d, got, tc.want)
		}
	}
}

func TestContainerName(t *testing.T) {
	for _, tc := range []struct {
		prefix, suffix string
		want           bool
	}{
		{"keyVaultToStore", "s", true},
		{"SECRET_STORE_", "S", true},
		{"vault_", "", false},    // VAULT_TOKEN: Vault's own token
		{"keystore_", "", false}, // a keystore's password or secret
		{"app_", "s", false},
		{"secretsManager", "_arn", false},
	} {
		if got := containerName([]byte(tc.prefix), []byte(tc.suffix)); got != tc.want {
			t.Errorf("containerName(%q, %q) = %v, want %v", tc.prefix, tc.suffix, got, tc.want)
		}
	}
}

// TestValueShapes: the shapes through the Redactor, each beside the
// well-formed value it must not take with it.
func TestValueShapes(t *testing.T) {
	hex := "0123456789abcdef"
	cases := []struct {
		name, in string
		redact   bool
	}{
		{"a token cut by an ellipsis", "export SVC_TOKEN=ops_" + fakeChars(base62Alphabet, 32, 1) + "...", false},
		{"a token cut by an ellipsis, quoted", `api_token: "` + fakeChars(base62Alphabet, 32, 2) + `..."`, false},
		{"a token shown by its ends", "access_token=" + fakeChars(base62Alphabet, 6, 3) + "..." + fakeChars(base62Alphabet, 6, 4), false},
		{"a whole token", "export SVC_TOKEN=ops_" + fakeChars(base62Alphabet, 32, 1), true},
		{"a token and a full stop", "export SVC_TOKEN=ops_" + fakeChars(base62Alphabet, 32, 1) + ".", true},
		{"a password cut by an ellipsis is still one", "password=" + fakeChars(base62Alphabet, 14, 5) + "7!...", true},
		{"one capital in hex under a key name", "meraki-api-key: ab12F" + fakeChars(hex, 35, 6), false},
		{"a digest and a tail under a token name", "meraki_token = " + fakeChars(hex, 64, 7) + "R21", false},
		{"hex under a key name", "meraki-api-key: " + fakeChars(hex, 40, 8), true},
		{"an alphabet walk under a secret name", "SUMO_ACCESS_KEY: AbCeFG123", false},
		{"a short random value under a secret name", "SUMO_ACCESS_KEY: " + fakeChars(base62Alphabet, 9, 9) + "7", true},
		{"camel-case words under a token name", `telegram_api_token = "token:"clm06431:AgencyIdentificationCodeContentType""`, false},
		{"a vault's name under a plural", "  keyVaultToStoreSecrets: cmp2-qat-1208358310", false},
		{"a random value under a plural", "  appSecrets: " + fakeChars(base62Alphabet, 24, 10), true},
		// A provider-prefixed token is redacted whatever its body looks like
		// (only a mask of one repeated character is kept: fillBody).
		{"a slack token of camel-case words", "xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere", true},
		{"a slack configuration token", "xoxe.xoxp-1-" + fakeChars(base62Alphabet, 140, 11), true},
		{"a token as the hash of a file name", "http://assets.example.com/media/video_box.ico-" + fakeChars(hex, 32, 12) + ".png", false},
		{"a token as a file name in a path", "/var/cache/ico-" + fakeChars(base62Alphabet, 32, 13) + ".json", false},
		{"a token and a full stop in a sentence", "the key is ico-" + fakeChars(base62Alphabet, 32, 14) + ". Rotate it", true},
		{"a token after a name and a dot, no extension", "INFRACOST_API_KEY=ico-" + fakeChars(base62Alphabet, 32, 15) + ".", true},
	}
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkAgainstReference(t, c, CatalogOptions{}, tc.in, 1, 7)
			for _, chunk := range []int{0, 1, 7} {
				out, _ := redactChunks(t, r, tc.in, chunk)
				if got := out != tc.in; got != tc.redact {
					t.Errorf("%q (chunk %d): redacted %v, want %v (out %q)", tc.in, chunk, got, tc.redact, out)
				}
			}
		})
	}
}
