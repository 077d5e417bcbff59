package scanners

import (
	"strconv"
	"strings"
)

// Vendor keys with no prefix of their own: the key is found after the
// vendor's name (cloudsmith: "…", CLOUDSMITH_API_KEY=…, {cloudsmith …}),
// and only in the vendor's documented shape (charset and length, as
// trufflehog's detectors for these vendors have it). The name may carry a
// suffix of up to vendorMaxSuffix bytes, spaces included (cloudsmith_api_key,
// spotify client id), and is
// followed by 1 to vendorMaxSep bytes that are no letter or digit (an
// operator, quotes, spaces, a brace); the value must hold a letter and a
// digit (a word or a number is no key) and read as random (vendorValue), and the byte after it must not
// continue the shape. Formats are facts; the examples are this project's.

// Limits of a vendor-key match.
const (
	vendorMaxSuffix = 24 // key name after the vendor's name: _api_key, Token, .secret
	vendorMaxSep    = 6  // operator, quotes and spaces: `" : "`, ` = '`
)

// vendorKey is one vendor's key shape.
type vendorKey struct {
	id, provider string
	names        []string // lower case; the keywords
	class        string   // the body's bytes, as makeSet and a regexp class read it
	n            []int    // lengths the body may have, shortest first
	shape        string   // the body's regexp when it is not [class]{n}
	gen          func(seed uint32) string
	what         string // the description's subject
}

// body returns the body's regexp.
func (k vendorKey) body() string {
	if k.shape != "" {
		return k.shape
	}
	alt := make([]string, 0, len(k.n))
	for i := len(k.n) - 1; i >= 0; i-- { // longest first: a shorter length is no prefix of a longer key
		alt = append(alt, "["+k.class+"]{"+strconv.Itoa(k.n[i])+"}")
	}
	return strings.Join(alt, "|")
}

// regexp returns the rule's regexp (the body is group 1).
func (k vendorKey) regexp() string {
	names := make([]string, len(k.names))
	for i, n := range k.names {
		names[i] = strings.ReplaceAll(n, ".", `\.`)
	}
	return `(?i:` + strings.Join(names, "|") + `)[A-Za-z0-9_. -]{0,` + strconv.Itoa(vendorMaxSuffix) + `}?[^A-Za-z0-9\n]{1,` + strconv.Itoa(vendorMaxSep) + `}(` + k.body() + `)`
}

// ahead is how far past the keyword the regexp may read.
func (k vendorKey) ahead() int {
	return vendorMaxSuffix + vendorMaxSep + k.maxLen() + 1
}

func (k vendorKey) maxLen() int {
	if k.shape != "" {
		return len(k.gen(1))
	}
	return k.n[len(k.n)-1]
}

// value returns an example key, drawn from cs (k.charset(), which the
// caller spells out once for the several examples of a rule: spelling it
// out for each was a fiftieth of every start).
func (k vendorKey) value(cs string, seed uint32) string {
	if k.gen != nil {
		return k.gen(seed)
	}
	return fakeChars(cs, k.n[0], seed)
}

// charset spells out class for fakeChars.
func (k vendorKey) charset() string {
	s := makeSet(k.class)
	var b []byte
	for c := range 256 {
		if s[c] {
			b = append(b, byte(c))
		}
	}
	return string(b)
}

// rule declares k's rule with its examples: the key after an environment
// variable, a YAML key and a bare name; not a key one byte short, a
// template reference or a body of letters only.
func (k vendorKey) rule() ruleDef {
	desc := k.what + " after the name " + strings.Join(k.names, ", ") + "; the value is replaced"
	return provRule(k.id, k.provider, "medium", desc,
		[]form{checkedForm(regexForm(k.names, k.regexp(), setAlnum, makeSet(k.class), k.ahead()), vendorValue)},
		func() (tp, fp []string) {
			name := k.names[0]
			up := strings.ToUpper(strings.NewReplacer(".", "_", " ", "_", "-", "_").Replace(name))
			cs := k.charset()
			v1, v2, v3 := k.value(cs, 1), k.value(cs, 2), k.value(cs, 3)
			letters := strings.Map(func(r rune) rune {
				if '0' <= r && r <= '9' {
					return 'q'
				}
				return r
			}, k.value(cs, 5))
			tp = []string{
				up + "_API_KEY=" + v1,
				"  " + name + "_key: \"" + v2 + "\"",
				"{" + name + " " + v3 + "}",
			}
			fp = []string{
				name + "_key: " + v1[:len(v1)-1] + "\n",
				name + "_key: ${" + up + "_KEY}",
				name + " " + letters,
				name + "_key: " + strings.Repeat(v1[:1], 6) + v1[6:],
			}
			return
		})
}

// vendorMaxRun is the longest run of one byte a vendor key may hold: a run
// of 6 in 40 random hex digits has a chance of about 3 in 100,000, a filler
// such as aaaaaaaaaa1111111111 has runs of 10.
const vendorMaxRun = 5

// vendorValue accepts a key value: a letter and a digit, no run of more
// than vendorMaxRun equal bytes, no filler (placeholderBody).
func vendorValue(b []byte) bool {
	run := 1
	for i := 1; i < len(b); i++ {
		if b[i] != b[i-1] {
			run = 1
		} else if run++; run > vendorMaxRun {
			return false
		}
	}
	return letterDigit(b) && !placeholderBody(b)
}

// vendorKeys is the table; order is RuleID order.
func vendorKeys() []vendorKey {
	uuid := func(seed uint32) string { return fakeUUID(seed) }
	const uuidRe = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`
	return []vendorKey{
		{id: "abbysale-api-key", provider: "Abbysale", names: []string{"abbysale"}, class: "A-Za-z0-9", n: []int{40}, what: "Abbysale API key (40 base62)"},
		{id: "abuseipdb-api-key", provider: "AbuseIPDB", names: []string{"abuseipdb"}, class: "a-z0-9", n: []int{80}, what: "AbuseIPDB API key (80 of [a-z0-9])"},
		{id: "airship-api-key", provider: "Airship", names: []string{"airship"}, class: "A-Za-z0-9", n: []int{91}, what: "Airship API key (91 base62)"},
		{id: "airvisual-api-key", provider: "AirVisual", names: []string{"airvisual"}, class: "a-z0-9-", n: []int{36}, what: "AirVisual (IQAir) API key (36 of [a-z0-9-])"},
		{id: "alconost-api-key", provider: "Alconost", names: []string{"alconost"}, class: "A-Za-z0-9", n: []int{32}, what: "Alconost API key (32 base62)"},
		{id: "aletheiaapi-api-key", provider: "AletheiaApi", names: []string{"aletheiaapi"}, class: "A-Z0-9", n: []int{32}, what: "AletheiaApi key (32 of [A-Z0-9])"},
		{id: "alienvault-otx-key", provider: "AlienVault", names: []string{"alienvault"}, class: "a-z0-9", n: []int{64}, what: "AlienVault OTX API key (64 of [a-z0-9])"},
		{id: "allsports-api-key", provider: "AllSportsAPI", names: []string{"allsports"}, class: "a-z0-9", n: []int{64}, what: "AllSportsAPI key (64 of [a-z0-9])"},
		{id: "ambee-api-key", provider: "Ambee", names: []string{"ambee"}, class: "a-f0-9", n: []int{64}, what: "Ambee API key (64 lower-case hex)"},
		{id: "amplitude-api-key", provider: "Amplitude", names: []string{"amplitude"}, class: "a-f0-9", n: []int{32}, what: "Amplitude API key or secret (32 lower-case hex)"},
		{id: "anypoint-token", provider: "MuleSoft Anypoint", names: []string{"anypoint"}, class: "a-z0-9-", n: []int{36}, what: "MuleSoft Anypoint token or organization id (36 of [a-z0-9-])"},
		{id: "apacta-api-key", provider: "Apacta", names: []string{"apacta"}, class: "a-z0-9-", n: []int{36}, what: "Apacta API key (36 of [a-z0-9-])"},
		{id: "apideck-api-key", provider: "Apideck", names: []string{"apideck"}, class: "A-Za-z0-9", n: []int{40}, what: "Apideck application id (40 base62)"},
		{id: "apiflash-access-key", provider: "ApiFlash", names: []string{"apiflash"}, class: "a-z0-9", n: []int{32}, what: "ApiFlash access key (32 of [a-z0-9])"},
		{id: "appcues-api-key", provider: "Appcues", names: []string{"appcues"}, class: "a-z0-9-", n: []int{36, 39}, what: "Appcues API key or secret (36 or 39 of [a-z0-9-])"},
		{id: "appfollow-api-key", provider: "AppFollow", names: []string{"appfollow"}, class: "A-Za-z0-9", n: []int{20}, what: "AppFollow API key (20 base62)"},
		{id: "appsynergy-api-key", provider: "AppSynergy", names: []string{"appsynergy"}, class: "a-z0-9", n: []int{64}, what: "AppSynergy API key (64 of [a-z0-9])"},
		{id: "apptivo-api-key", provider: "Apptivo", names: []string{"apptivo"}, class: "A-Za-z0-9-", n: []int{32, 36}, what: "Apptivo API or access key (32 or 36 of [A-Za-z0-9-])"},
		{id: "artsy-api-key", provider: "Artsy", names: []string{"artsy"}, class: "A-Za-z0-9", n: []int{20, 32}, what: "Artsy client id or secret (20 or 32 base62)"},
		{id: "assemblyai-api-key", provider: "AssemblyAI", names: []string{"assemblyai"}, class: "a-z0-9", n: []int{32}, what: "AssemblyAI API key (32 of [a-z0-9])"},
		{id: "autoklose-api-key", provider: "Autoklose", names: []string{"autoklose"}, class: "A-Za-z0-9-", n: []int{32}, what: "Autoklose API key (32 of [A-Za-z0-9-])"},
		{id: "aviationstack-api-key", provider: "aviationstack", names: []string{"aviationstack"}, class: "a-z0-9", n: []int{32}, what: "aviationstack access key (32 of [a-z0-9])"},
		{id: "axonaut-api-key", provider: "Axonaut", names: []string{"axonaut"}, class: "a-z0-9", n: []int{32}, what: "Axonaut API key (32 of [a-z0-9])"},
		{id: "aylien-api-key", provider: "AYLIEN", names: []string{"aylien"}, class: "a-z0-9", n: []int{32}, what: "AYLIEN API key (32 of [a-z0-9])"},
		{id: "baremetrics-api-key", provider: "Baremetrics", names: []string{"baremetrics"}, class: "A-Za-z0-9_", n: []int{25}, what: "Baremetrics API key (25 of [A-Za-z0-9_])"},
		{id: "bitbar-api-key", provider: "Bitbar", names: []string{"bitbar"}, class: "a-z0-9", n: []int{32}, what: "Bitbar API key (32 of [a-z0-9])"},
		{id: "bitcoinaverage-api-key", provider: "BitcoinAverage", names: []string{"bitcoinaverage"}, class: "A-Za-z0-9", n: []int{43}, what: "BitcoinAverage API key (43 base62)"},
		{id: "blablabus-api-key", provider: "BlaBlaBus", names: []string{"blablabus"}, class: "A-Za-z0-9", n: []int{22}, what: "BlaBlaBus API key (22 base62)"},
		{id: "blitapp-api-key", provider: "Blitapp", names: []string{"blitapp"}, class: "A-Za-z0-9_-", n: []int{39}, what: "Blitapp API key (39 of [A-Za-z0-9_-])"},
		{id: "boostnote-api-key", provider: "Boost Note", names: []string{"boostnote"}, class: "a-f0-9", n: []int{64}, what: "Boost Note API token (64 lower-case hex)"},
		{id: "brandfetch-api-key", provider: "Brandfetch", names: []string{"brandfetch"}, class: "A-Za-z0-9", n: []int{40}, what: "Brandfetch API key (40 base62)"},
		{id: "browserstack-access-key", provider: "BrowserStack", names: []string{"browserstack"}, class: "A-Za-z0-9", n: []int{20}, what: "BrowserStack access key (20 base62)"},
		{id: "browshot-api-key", provider: "Browshot", names: []string{"browshot"}, class: "A-Za-z0-9-", n: []int{28}, what: "Browshot API key (28 of [A-Za-z0-9-])"},
		{id: "buddyns-api-key", provider: "BuddyNS", names: []string{"buddyns"}, class: "a-z0-9", n: []int{40}, what: "BuddyNS API key (40 of [a-z0-9])"},
		{id: "bugherd-api-key", provider: "BugHerd", names: []string{"bugherd"}, class: "a-z0-9", n: []int{22}, what: "BugHerd API key (22 of [a-z0-9])"},
		{id: "bugsnag-api-key", provider: "Bugsnag", names: []string{"bugsnag"}, class: "a-z0-9-", n: []int{36}, what: "Bugsnag API key or token (36 of [a-z0-9-])"},
		{id: "bulksms-token-id", provider: "BulkSMS", names: []string{"bulksms"}, class: "A-F0-9-", n: []int{37}, what: "BulkSMS token id (37 of [A-F0-9-])"},
		{id: "buttercms-api-key", provider: "ButterCMS", names: []string{"buttercms"}, class: "a-z0-9", n: []int{40}, what: "ButterCMS API token (40 of [a-z0-9])"},
		{id: "calendarific-api-key", provider: "Calendarific", names: []string{"calendarific"}, class: "a-z0-9", n: []int{40}, what: "Calendarific API key (40 of [a-z0-9])"},
		{id: "calorieninjas-api-key", provider: "CalorieNinjas", names: []string{"calorieninja"}, class: "A-Za-z0-9", n: []int{40}, what: "CalorieNinjas API key (40 base62)"},
		{id: "campayn-api-key", provider: "Campayn", names: []string{"campayn"}, class: "a-z0-9", n: []int{64}, what: "Campayn API key (64 of [a-z0-9])"},
		{id: "captaindata-api-key", provider: "Captain Data", names: []string{"captaindata"}, class: "a-f0-9", n: []int{64}, what: "Captain Data API key (64 lower-case hex)"},
		{id: "carboninterface-api-key", provider: "Carbon Interface", names: []string{"carboninterface"}, class: "A-Za-z0-9", n: []int{21}, what: "Carbon Interface API key (21 base62)"},
		{id: "centralstationcrm-api-key", provider: "CentralStationCRM", names: []string{"centralstation"}, class: "a-z0-9", n: []int{30}, what: "CentralStationCRM API key (30 of [a-z0-9])"},
		{id: "chatfuel-api-key", provider: "Chatfuel", names: []string{"chatfuel"}, class: "A-Za-z0-9", n: []int{128}, what: "Chatfuel API token (128 base62)"},
		{id: "checklyhq-api-key", provider: "Checkly", names: []string{"checklyhq"}, class: "a-z0-9", n: []int{32}, what: "Checkly API key (32 of [a-z0-9])"},
		{id: "easyinsight-api-key", provider: "Easy Insight", names: []string{"easyinsight", "easy-insight"}, class: "A-Za-z0-9", n: []int{20}, what: "Easy Insight API key or id (20 base62)"},
		{id: "clearbit-api-key", provider: "Clearbit", names: []string{"clearbit"}, class: "a-z0-9_", n: []int{35}, what: "Clearbit API key (35 of [a-z0-9_])"},
		{id: "clickhelp-api-key", provider: "ClickHelp", names: []string{"clickhelp"}, class: "A-Za-z0-9", n: []int{24}, what: "ClickHelp API key (24 base62)"},
		{id: "clinchpad-api-key", provider: "ClinchPad", names: []string{"clinchpad"}, class: "a-z0-9", n: []int{32}, what: "ClinchPad API key (32 of [a-z0-9])"},
		{id: "clockify-api-key", provider: "Clockify", names: []string{"clockify"}, class: "A-Za-z0-9", n: []int{48}, what: "Clockify API key (48 base62)"},
		{id: "cloudplan-api-key", provider: "Cloudplan", names: []string{"cloudplan"}, class: "A-Z0-9-", n: []int{32}, what: "Cloudplan API key (32 of [A-Z0-9-])"},
		{id: "clustdoc-api-key", provider: "Clustdoc", names: []string{"clustdoc"}, class: "A-Za-z0-9", n: []int{60}, what: "Clustdoc API key (60 base62)"},
		{id: "codacy-api-token", provider: "Codacy", names: []string{"codacy"}, class: "A-Za-z0-9", n: []int{20}, what: "Codacy API or project token (20 base62)"},
		{id: "coinapi-api-key", provider: "CoinAPI", names: []string{"coinapi"}, class: "A-Z0-9-", n: []int{36}, what: "CoinAPI key (36 of [A-Z0-9-])"},
		{id: "coinlayer-api-key", provider: "coinlayer", names: []string{"coinlayer"}, class: "a-z0-9", n: []int{32}, what: "coinlayer access key (32 of [a-z0-9])"},
		{id: "commercejs-api-key", provider: "Commerce.js", names: []string{"commercejs"}, class: "a-z0-9_", n: []int{48}, what: "Commerce.js API key (48 of [a-z0-9_])"},
		{id: "convertkit-api-key", provider: "ConvertKit", names: []string{"convertkit"}, class: "A-Za-z0-9_", n: []int{22}, what: "ConvertKit (Kit) API key (22 of [A-Za-z0-9_])"},
		{id: "countrylayer-api-key", provider: "countrylayer", names: []string{"countrylayer"}, class: "a-z0-9", n: []int{32}, what: "countrylayer access key (32 of [a-z0-9])"},
		{id: "coveralls-repo-token", provider: "Coveralls", names: []string{"coveralls"}, class: "A-Za-z0-9-", n: []int{37}, what: "Coveralls repo or personal token (37 of [A-Za-z0-9-])"},
		{id: "crowdin-api-token", provider: "Crowdin", names: []string{"crowdin"}, class: "A-Za-z0-9", n: []int{80}, what: "Crowdin personal access token (80 base62)"},
		{id: "cryptocompare-api-key", provider: "CryptoCompare", names: []string{"cryptocompare"}, class: "a-z0-9-", n: []int{64}, what: "CryptoCompare API key (64 of [a-z0-9-])"},
		{id: "currencyfreaks-api-key", provider: "CurrencyFreaks", names: []string{"currencyfreaks"}, class: "a-z0-9", n: []int{32}, what: "CurrencyFreaks API key (32 of [a-z0-9])"},
		{id: "currencylayer-api-key", provider: "currencylayer", names: []string{"currencylayer"}, class: "a-z0-9", n: []int{32}, what: "currencylayer access key (32 of [a-z0-9])"},
		{id: "currencyscoop-api-key", provider: "CurrencyScoop", names: []string{"currencyscoop"}, class: "a-z0-9", n: []int{32}, what: "CurrencyScoop (CurrencyBeacon) API key (32 of [a-z0-9])"},
		{id: "dandelion-api-token", provider: "Dandelion", names: []string{"dandelion"}, class: "a-z0-9", n: []int{32}, what: "Dandelion API token (32 of [a-z0-9])"},
		{id: "deepgram-api-key", provider: "Deepgram", names: []string{"deepgram"}, class: "a-z0-9", n: []int{40}, what: "Deepgram API key (40 of [a-z0-9])"},
		{id: "detectlanguage-api-key", provider: "Detect Language", names: []string{"detectlanguage"}, class: "a-z0-9", n: []int{32}, what: "Detect Language API key (32 of [a-z0-9])"},
		{id: "diffbot-api-token", provider: "Diffbot", names: []string{"diffbot"}, class: "a-z0-9", n: []int{32}, what: "Diffbot API token (32 of [a-z0-9])"},
		{id: "dronahq-api-token", provider: "DronaHQ", names: []string{"dronahq"}, class: "a-z0-9", n: []int{50}, what: "DronaHQ API token (50 of [a-z0-9])"},
		{id: "droneci-token", provider: "Drone CI", names: []string{"droneci"}, class: "A-Za-z0-9", n: []int{32}, what: "Drone CI personal token (32 base62)"},
		{id: "dynalist-api-token", provider: "Dynalist", names: []string{"dynalist"}, class: "A-Za-z0-9_-", n: []int{128}, what: "Dynalist API token (128 of [A-Za-z0-9_-])"},
		{id: "dyspatch-api-key", provider: "Dyspatch", names: []string{"dyspatch"}, class: "A-Z0-9", n: []int{52}, what: "Dyspatch API key (52 of [A-Z0-9])"},
		{id: "edamam-api-key", provider: "Edamam", names: []string{"edamam"}, class: "a-z0-9", n: []int{32}, what: "Edamam application key (32 of [a-z0-9])"},
		{id: "ethplorer-api-key", provider: "Ethplorer", names: []string{"ethplorer"}, class: "A-Za-z0-9-", n: []int{22}, what: "Ethplorer API key (22 of [A-Za-z0-9-])"},
		{id: "fastforex-api-key", provider: "fastFOREX", names: []string{"fastforex"}, class: "a-z0-9-", n: []int{28}, what: "fastFOREX API key (28 of [a-z0-9-])"},
		{id: "feedier-api-key", provider: "Feedier", names: []string{"feedier"}, class: "A-Za-z0-9", n: []int{32}, what: "Feedier API key (32 base62)"},
		{id: "financialmodelingprep-api-key", provider: "Financial Modeling Prep", names: []string{"financialmodelingprep"}, class: "A-Za-z0-9", n: []int{32}, what: "Financial Modeling Prep API key (32 base62)"},
		{id: "finnhub-api-key", provider: "Finnhub", names: []string{"finnhub"}, class: "a-z0-9", n: []int{20}, what: "Finnhub API key (20 of [a-z0-9])"},
		{id: "flightapi-api-key", provider: "FlightAPI", names: []string{"flightapi"}, class: "a-z0-9", n: []int{24}, what: "FlightAPI key (24 of [a-z0-9])"},
		{id: "flightstats-api-key", provider: "FlightStats", names: []string{"flightstats"}, class: "a-z0-9", n: []int{32}, what: "FlightStats application key (32 of [a-z0-9])"},
		{id: "foursquare-api-key", provider: "Foursquare", names: []string{"foursquare"}, class: "A-Z0-9", n: []int{48}, what: "Foursquare client id or secret (48 of [A-Z0-9])"},
		{id: "freshbooks-api-token", provider: "FreshBooks", names: []string{"freshbooks"}, class: "a-z0-9", n: []int{64}, what: "FreshBooks API token (64 of [a-z0-9])"},
		{id: "aha-api-key", provider: "Aha!", names: []string{"aha"}, class: "a-f0-9", n: []int{64}, what: "Aha! API key (64 lower-case hex)"},
		{id: "amadeus-api-key", provider: "Amadeus", names: []string{"amadeus"}, class: "A-Za-z0-9", n: []int{32}, what: "Amadeus API key or secret (32 base62)"},
		{id: "api2cart-api-key", provider: "API2Cart", names: []string{"api2cart"}, class: "a-f0-9", n: []int{32}, what: "API2Cart API key (32 lower-case hex)"},
		{id: "apimetrics-api-key", provider: "APImetrics", names: []string{"apimetrics"}, class: "A-Za-z0-9", n: []int{32}, what: "APImetrics API key (32 base62)"},
		{id: "apitemplate-api-key", provider: "APITemplate.io", names: []string{"apitemplate"}, class: "A-Za-z0-9", n: []int{39}, what: "APITemplate.io API key (39 base62)"},
		{id: "autodesk-client-secret", provider: "Autodesk", names: []string{"autodesk"}, class: "A-Za-z0-9", n: []int{32}, what: "Autodesk Platform Services client id or secret (32 base62)"},
		{id: "beebole-api-token", provider: "Beebole", names: []string{"beebole"}, class: "a-z0-9", n: []int{40}, what: "Beebole API token (40 of [a-z0-9])"},
		{id: "betterstack-api-token", provider: "Better Stack", names: []string{"betterstack", "better_stack", "logtail"}, class: "A-Za-z0-9", n: []int{24}, what: "Better Stack (Logtail) API or source token (24 base62)"},
		{id: "bitfinex-api-key", provider: "Bitfinex", names: []string{"bitfinex"}, class: "A-Za-z0-9_-", n: []int{43}, what: "Bitfinex API key or secret (43 of [A-Za-z0-9_-])"},
		{id: "caspio-api-key", provider: "Caspio", names: []string{"caspio"}, class: "a-z0-9", n: []int{50}, what: "Caspio client id or secret (50 of [a-z0-9])"},
		{id: "cashboard-api-key", provider: "Cashboard", names: []string{"cashboard"}, class: "A-Z0-9-", n: []int{15},
			shape: `[0-9A-Z]{3}-[0-9A-Z]{3}-[0-9A-Z]{3}-[0-9A-Z]{3}`,
			gen: func(s uint32) string {
				u := "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
				return fakeChars(u, 2, s) + "7-" + fakeChars(u, 3, s+1) + "-" + fakeChars(u, 3, s+2) + "-K" + fakeChars(u, 2, s+3)
			}, what: "Cashboard API key (four groups of 3 of [A-Z0-9] joined by -)"},
		{id: "censys-api-secret", provider: "Censys", names: []string{"censys"}, class: "a-z0-9-", n: []int{36}, what: "Censys API id (36 of [a-z0-9-])"},
		{id: "checkvist-api-key", provider: "Checkvist", names: []string{"checkvist"}, class: "A-Za-z0-9_", n: []int{14}, what: "Checkvist API key (14 of [A-Za-z0-9_])"},
		{id: "clicksend-api-key", provider: "ClickSend", names: []string{"clicksend"}, class: "A-Z0-9-", n: []int{36},
			shape: `[0-9A-Z]{8}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{12}`,
			gen:   func(s uint32) string { return strings.ToUpper(fakeUUID(s)) }, what: "ClickSend API key (an upper-case UUID)"},
		{id: "cloudimage-api-key", provider: "Cloudimage", names: []string{"cloudimage"}, class: "a-z0-9_", n: []int{30}, what: "Cloudimage API key (30 of [a-z0-9_])"},
		{id: "cloudmersive-api-key", provider: "Cloudmersive", names: []string{"cloudmersive"}, class: "a-z0-9-", n: []int{36}, what: "Cloudmersive API key (36 of [a-z0-9-])"},
		{id: "cloudsmith-api-key", provider: "Cloudsmith", names: []string{"cloudsmith"}, class: "a-f0-9", n: []int{40}, what: "Cloudsmith API key (40 lower-case hex)"},
		{id: "cloze-api-key", provider: "Cloze", names: []string{"cloze"}, class: "a-f0-9", n: []int{32}, what: "Cloze API key (32 lower-case hex)"},
		{id: "currencycloud-api-key", provider: "Currencycloud", names: []string{"currencycloud"}, class: "a-f0-9", n: []int{64}, what: "Currencycloud API key (64 lower-case hex)"},
		{id: "customerguru-api-key", provider: "Customer.guru", names: []string{"customerguru", "guru"}, class: "A-Za-z0-9", n: []int{30, 50}, what: "Customer.guru API key or id (30 or 50 base62)"},
		{id: "customerio-api-key", provider: "Customer.io", names: []string{"customerio", "customer.io"}, class: "A-Za-z0-9", n: []int{20, 32}, what: "Customer.io site id or API key (20 or 32 base62)"},
		{id: "docusign-integration-key", provider: "DocuSign", names: []string{"docusign"}, class: "a-f0-9-", n: []int{36}, shape: uuidRe, gen: uuid, what: "DocuSign integration key or secret (a UUID)"},
		{id: "faceplusplus-api-key", provider: "Face++", names: []string{"faceplusplus", "face_plus_plus"}, class: "A-Za-z0-9_-", n: []int{32}, what: "Face++ API key or secret (32 of [A-Za-z0-9_-])"},
		{id: "fmfw-api-key", provider: "FMFW.io", names: []string{"fmfw"}, class: "A-Za-z0-9_-", n: []int{32}, what: "FMFW.io API key or secret (32 of [A-Za-z0-9_-])"},
		{id: "gocanvas-api-key", provider: "GoCanvas", names: []string{"gocanvas"}, class: "A-Za-z0-9+/=", n: []int{44},
			shape: `[A-Za-z0-9+/]{43}=`, gen: func(s uint32) string { return fakeChars(base62Alphabet+"+/", 42, s) + "7=" }, what: "GoCanvas API key (43 base64 and =)"},
		{id: "hive-api-key", provider: "Hive", names: []string{"hive"}, class: "A-Za-z0-9", n: []int{17}, what: "Hive (hive.com) user id or API key (17 base62)"},
		{id: "kontent-api-key", provider: "Kontent.ai", names: []string{"kontent"}, class: "a-f0-9-", n: []int{36}, shape: uuidRe, gen: uuid, what: "Kontent.ai environment id (a UUID) beside its management key"},
		{id: "kucoin-api-key", provider: "KuCoin", names: []string{"kucoin"}, class: "a-f0-9", n: []int{24}, what: "KuCoin API key (24 lower-case hex)"},
		{id: "loggly-api-token", provider: "Loggly", names: []string{"loggly"}, class: "a-z0-9-", n: []int{36}, what: "Loggly customer or API token (36 of [a-z0-9-])"},
		{id: "magicbell-api-key", provider: "MagicBell", names: []string{"magicbell"}, class: "A-Za-z0-9-", n: []int{40}, what: "MagicBell API key or secret (40 of [A-Za-z0-9-])"},
		{id: "meraki-api-key", provider: "Cisco Meraki", names: []string{"meraki"}, class: "a-f0-9", n: []int{40}, what: "Cisco Meraki Dashboard API key (40 lower-case hex)"},
		{id: "metaapi-token", provider: "MetaApi", names: []string{"metaapi"}, class: "a-f0-9", n: []int{64}, what: "MetaApi account id or token (64 lower-case hex)"},
		{id: "mixpanel-secret", provider: "Mixpanel", names: []string{"mixpanel"}, class: "A-Za-z0-9", n: []int{32}, what: "Mixpanel service-account or project secret (32 base62)"},
		{id: "freshworks-api-key", provider: "Freshworks", names: []string{"freshworks", "myfreshworks"}, class: "A-Za-z0-9_-", n: []int{22}, what: "Freshworks (myfreshworks) API key (22 of [A-Za-z0-9_-])"},
		{id: "mux-token-secret", provider: "Mux", names: []string{"mux"}, class: "A-Za-z0-9+/", n: []int{75}, what: "Mux token secret (75 base64)"},
		{id: "netsuite-token", provider: "Oracle NetSuite", names: []string{"netsuite"}, class: "A-Za-z0-9", n: []int{64}, what: "NetSuite token-based-authentication consumer or token key or secret (64 base62)"},
		{id: "onesignal-api-key", provider: "OneSignal", names: []string{"onesignal"}, class: "a-f0-9-", n: []int{36}, shape: uuidRe, gen: uuid, what: "OneSignal app id or REST API key (a UUID)"},
		{id: "phrase-access-token", provider: "Phrase", names: []string{"phrase"}, class: "a-f0-9", n: []int{64}, what: "Phrase access token (64 lower-case hex)"},
		{id: "railway-api-token", provider: "Railway", names: []string{"railway"}, class: "a-f0-9-", n: []int{36}, shape: uuidRe, gen: uuid, what: "Railway API or project token (a UUID)"},
		{id: "spotify-client-secret", provider: "Spotify", names: []string{"spotify"}, class: "A-Za-z0-9", n: []int{32}, what: "Spotify client id or secret (32 base62)"},
		{id: "verifier-api-key", provider: "Verifier", names: []string{"verifier"}, class: "a-z0-9", n: []int{96}, what: "Verifier API key (96 of [a-z0-9])"},
		{id: "websitepulse-api-key", provider: "WebSitePulse", names: []string{"websitepulse"}, class: "a-f0-9", n: []int{32}, what: "WebSitePulse API key (32 lower-case hex)"},
		{id: "zipapi-api-key", provider: "ZipAPI", names: []string{"zipapi"}, class: "a-z0-9", n: []int{32}, what: "ZipAPI key (32 of [a-z0-9])"},
	}
}

func vendorKeyRules() []ruleDef {
	ks := vendorKeys()
	rs := make([]ruleDef, len(ks))
	for i, k := range ks {
		rs[i] = k.rule()
	}
	return rs
}
