package scanners

import "testing"

// TestNamedSlotSequences: a sequence after a vendor's
// credential name (<vendor>_api_token = …) are redacted, the same values
// after a bare name (token = …) are a placeholder and kept; digits only
// counting up, camel-case words, placeholder words, references, masks and a dapi value that
// breaks Databricks' format are kept in any slot (issue 34, the class
// decision in plausibleValue).
func TestNamedSlotSequences(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	const T = "[REDACTED:token-assignment]"
	const S = "[REDACTED:secret-assignment]"
	redacted := []struct{ in, want string }{
		{"zylo_api_token = 0123456789abcdef0123456789abcdef01", "zylo_api_token = " + T},
		{`QUUXCLOUD_TOKEN="abcd1234efgh5678ijkl9012mnop3456"`, `QUUXCLOUD_TOKEN="` + T + `"`},
		{"frobnic_secret: 9876543210fedcba9876543210fedcba", "frobnic_secret: " + S},
		{`"widgetApiKey": "ABCDEFGH12345678abcdefgh12345678"`, `"widgetApiKey": "` + S + `"`},
	}
	for _, tc := range redacted {
		for _, n := range []int{0, 1, 5} {
			if got, fs := redactChunks(t, r, tc.in, n); got != tc.want {
				t.Errorf("chunk %d: %q -> %q (%v), want %q", n, tc.in, got, ruleNames(c, fs), tc.want)
			}
		}
		checkAgainstReference(t, c, CatalogOptions{}, tc.in, 1, 3)
	}
	keep := []string{
		"token = 0123456789abcdef0123456789abcdef01",
		"secret: abcd1234efgh5678ijkl9012mnop3456",
		"zylo_api_token = 12345678901234567890",
		"--acme-token=OurCompanyStagingServiceAccessToken-2024",
		"zylo_api_token = your_api_token_here",
		"zylo_api_token = xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"zylo_api_token = ${ZYLO_API_TOKEN}",
		"zylo_api_token = <zylo-api-token>",
		"DATABRICKS_TOKEN=dapi0123456789abcdef0123456789abcdefgh",
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
