package elicit

import (
	"strings"
	"unicode"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// This file detects form fields that ask for sensitive data in disguise:
// field names, titles, descriptions, formats and option labels that ask for
// passwords, API keys, one-time codes, card numbers, bank accounts, IBANs,
// government ids and the like, whatever data class the policy gave them.
//
// Text is normalized before matching with the scanners' Normalizer and
// look-alike table (normalizeWords): invisible and control characters
// dropped, NFKC, Cyrillic, Greek and Armenian look-alikes folded to Latin,
// other format characters dropped, camelCase and snake_case split into
// words, lower case.
// Three kinds of rule then apply, each with true- and false-positive
// examples checked by TestSensitiveRules:
//
//   - word: one normalized word equals the rule ("password", "iban", "otp");
//   - phrase: consecutive words equal the rule ("card number", "api key");
//   - squashed: the words joined and de-leeted ("p4ssw0rd" -> "password")
//     contain the rule, for spellings such as "apikey" or "CardNo1".

// ProhibitedDataClasses are the data classes a form may never collect,
// whatever its policy says (seed G005).
var ProhibitedDataClasses = map[string]bool{
	"authentication_secret":          true,
	"credential":                     true,
	"credentials":                    true,
	"password":                       true,
	"access_token":                   true,
	"refresh_token":                  true,
	"token":                          true,
	"api_key":                        true,
	"private_key":                    true,
	"payment_card":                   true,
	"bank_account":                   true,
	"government_identifier":          true,
	"government_id":                  true,
	"biometric":                      true,
	"health_record":                  true,
	"high_sensitivity_personal_data": true,
}

type sensitiveRule struct {
	kind string // "word", "phrase", "squashed"
	text string // normalized words separated by one space, or squashed text
	// Examples checked by TestSensitiveRules.
	hits   []string
	misses []string
}

var sensitiveRules = []sensitiveRule{
	{kind: "word", text: "password", hits: []string{"password", "userPassword", "Your PASSWORD"}, misses: []string{"passenger"}},
	{kind: "word", text: "passwd", hits: []string{"passwd"}, misses: []string{"pass"}},
	{kind: "word", text: "pwd", hits: []string{"pwd", "user_pwd"}, misses: []string{"pwdx"}},
	{kind: "word", text: "passphrase", hits: []string{"passphrase"}, misses: []string{"phrase"}},
	{kind: "word", text: "passcode", hits: []string{"passcode"}, misses: []string{"postcode"}},
	{kind: "word", text: "secret", hits: []string{"client_secret", "Secret"}, misses: []string{"secretary"}},
	{kind: "word", text: "secrets", hits: []string{"secrets"}, misses: []string{"secretariat"}},
	{kind: "word", text: "token", hits: []string{"githubToken", "token"}, misses: []string{"tokenizer"}},
	{kind: "word", text: "tokens", hits: []string{"tokens"}, misses: []string{"tokenize"}},
	{kind: "word", text: "credential", hits: []string{"credential"}, misses: []string{"credentialed_org"}},
	{kind: "word", text: "credentials", hits: []string{"Your credentials"}, misses: []string{"credence"}},
	{kind: "word", text: "otp", hits: []string{"otp", "Enter the OTP"}, misses: []string{"hotpot"}},
	{kind: "word", text: "totp", hits: []string{"totp"}, misses: []string{"tot"}},
	{kind: "word", text: "2fa", hits: []string{"2FA"}, misses: []string{"2fast"}},
	{kind: "word", text: "mfa", hits: []string{"mfa_code"}, misses: []string{"mfax"}},
	{kind: "word", text: "cvv", hits: []string{"cvv"}, misses: []string{"cvs"}},
	{kind: "word", text: "cvv2", hits: []string{"CVV2"}, misses: []string{"cv"}},
	{kind: "word", text: "cvc", hits: []string{"cvc"}, misses: []string{"civic"}},
	{kind: "word", text: "iban", hits: []string{"iban", "IBAN"}, misses: []string{"caribbean", "Lebanon"}},
	{kind: "word", text: "ssn", hits: []string{"ssn", "yourSSN"}, misses: []string{"session"}},
	{kind: "word", text: "mnemonic", hits: []string{"wallet mnemonic"}, misses: []string{"mnemonics_course"}},
	{kind: "word", text: "biometric", hits: []string{"biometric"}, misses: []string{"biome"}},
	{kind: "word", text: "fingerprint", hits: []string{"fingerprint"}, misses: []string{"finger"}},
	{kind: "word", text: "diagnosis", hits: []string{"diagnosis"}, misses: []string{"diagram"}},
	{kind: "phrase", text: "api key", hits: []string{"api_key", "API key", "apiKey"}, misses: []string{"api version"}},
	{kind: "phrase", text: "access key", hits: []string{"accessKey"}, misses: []string{"access level"}},
	{kind: "phrase", text: "secret key", hits: []string{"secret-key"}, misses: []string{"key"}},
	{kind: "phrase", text: "private key", hits: []string{"privateKey"}, misses: []string{"private note"}},
	{kind: "phrase", text: "signing key", hits: []string{"signing key"}, misses: []string{"signing date"}},
	{kind: "phrase", text: "access token", hits: []string{"access_token"}, misses: []string{"access"}},
	{kind: "phrase", text: "one time code", hits: []string{"one-time code", "oneTimeCode"}, misses: []string{"one time only"}},
	{kind: "phrase", text: "one time password", hits: []string{"one time password"}, misses: []string{"one time"}},
	{kind: "phrase", text: "verification code", hits: []string{"verificationCode"}, misses: []string{"verification status"}},
	{kind: "phrase", text: "security code", hits: []string{"security code"}, misses: []string{"security level"}},
	{kind: "phrase", text: "auth code", hits: []string{"authCode"}, misses: []string{"author code style"}},
	{kind: "phrase", text: "authentication code", hits: []string{"authentication code"}, misses: []string{"authentication method"}},
	{kind: "phrase", text: "login code", hits: []string{"login code"}, misses: []string{"login name"}},
	{kind: "phrase", text: "sms code", hits: []string{"sms_code"}, misses: []string{"sms opt in"}},
	{kind: "phrase", text: "recovery code", hits: []string{"recovery code"}, misses: []string{"recovery date"}},
	{kind: "phrase", text: "backup code", hits: []string{"backupCode"}, misses: []string{"backup frequency"}},
	{kind: "phrase", text: "pin code", hits: []string{"PIN code"}, misses: []string{"zip code"}},
	{kind: "phrase", text: "pin number", hits: []string{"pin_number"}, misses: []string{"pinned number"}},
	{kind: "phrase", text: "card number", hits: []string{"cardNumber", "Card number"}, misses: []string{"card holder name"}},
	{kind: "phrase", text: "card no", hits: []string{"card_no"}, misses: []string{"card note"}},
	{kind: "phrase", text: "cc number", hits: []string{"cc_number"}, misses: []string{"cc email"}},
	{kind: "phrase", text: "credit card", hits: []string{"creditCard"}, misses: []string{"credit score"}},
	{kind: "phrase", text: "debit card", hits: []string{"debit card"}, misses: []string{"debit date"}},
	{kind: "phrase", text: "card verification", hits: []string{"card verification value"}, misses: []string{"card design"}},
	{kind: "phrase", text: "bank account", hits: []string{"bankAccount"}, misses: []string{"bank name"}},
	{kind: "phrase", text: "account number", hits: []string{"account number"}, misses: []string{"account name"}},
	{kind: "phrase", text: "acct number", hits: []string{"acctNumber"}, misses: []string{"acct name"}},
	{kind: "phrase", text: "routing number", hits: []string{"routing_number"}, misses: []string{"routing rule"}},
	{kind: "phrase", text: "sort code", hits: []string{"sortCode"}, misses: []string{"sort order"}},
	{kind: "phrase", text: "swift code", hits: []string{"swift code"}, misses: []string{"swift version"}},
	{kind: "phrase", text: "social security", hits: []string{"Social Security"}, misses: []string{"social media"}},
	{kind: "phrase", text: "national insurance", hits: []string{"national insurance number"}, misses: []string{"national holiday"}},
	{kind: "phrase", text: "passport number", hits: []string{"passportNumber"}, misses: []string{"passport country"}},
	{kind: "phrase", text: "driver license", hits: []string{"driver license"}, misses: []string{"driver name"}},
	{kind: "phrase", text: "drivers license", hits: []string{"drivers_license"}, misses: []string{"drivers count"}},
	{kind: "phrase", text: "driving licence", hits: []string{"driving licence"}, misses: []string{"driving distance"}},
	{kind: "phrase", text: "tax id", hits: []string{"taxId"}, misses: []string{"tax year"}},
	{kind: "phrase", text: "taxpayer id", hits: []string{"taxpayer id"}, misses: []string{"taxpayer name"}},
	{kind: "phrase", text: "national id", hits: []string{"nationalId"}, misses: []string{"national team"}},
	{kind: "phrase", text: "seed phrase", hits: []string{"seed phrase"}, misses: []string{"seed count"}},
	{kind: "phrase", text: "recovery phrase", hits: []string{"recoveryPhrase"}, misses: []string{"recovery time"}},
	{kind: "phrase", text: "maiden name", hits: []string{"mother's maiden name"}, misses: []string{"middle name"}},
	{kind: "phrase", text: "security question", hits: []string{"security question"}, misses: []string{"security team"}},
	{kind: "phrase", text: "medical record", hits: []string{"medical record number"}, misses: []string{"medical team"}},
	{kind: "phrase", text: "health record", hits: []string{"healthRecord"}, misses: []string{"health tip"}},
	{kind: "squashed", text: "password", hits: []string{"p4ssw0rd", "pass_word", "PassWord1"}, misses: []string{"passport"}},
	{kind: "squashed", text: "passwd", hits: []string{"pa55wd"}, misses: []string{"pass"}},
	{kind: "squashed", text: "passphrase", hits: []string{"pass phrase"}, misses: []string{"phrasebook"}},
	{kind: "squashed", text: "passcode", hits: []string{"pass code"}, misses: []string{"pass count"}},
	{kind: "squashed", text: "apikey", hits: []string{"apikey", "myapikey2"}, misses: []string{"apiary"}},
	{kind: "squashed", text: "accesstoken", hits: []string{"ghaccesstoken"}, misses: []string{"access"}},
	{kind: "squashed", text: "authtoken", hits: []string{"authtoken"}, misses: []string{"author"}},
	{kind: "squashed", text: "clientsecret", hits: []string{"clientsecret"}, misses: []string{"client"}},
	{kind: "squashed", text: "privatekey", hits: []string{"privkey privatekey"}, misses: []string{"private"}},
	{kind: "squashed", text: "cardnumber", hits: []string{"cardnumber"}, misses: []string{"card"}},
	{kind: "squashed", text: "creditcard", hits: []string{"creditcardno"}, misses: []string{"credit"}},
	{kind: "squashed", text: "onetimecode", hits: []string{"onetimecode"}, misses: []string{"onetime"}},
	{kind: "squashed", text: "socialsecurity", hits: []string{"socialsecuritynumber"}, misses: []string{"social"}},
	{kind: "squashed", text: "routingnumber", hits: []string{"routingnumber"}, misses: []string{"routing"}},
	{kind: "squashed", text: "seedphrase", hits: []string{"walletseedphrase"}, misses: []string{"seedling"}},
}

// Indexes over sensitiveRules, built once.
var (
	sensitiveWords    = map[string]bool{}
	sensitivePhrases  [][]string
	sensitiveSquashed []string
)

func init() {
	for _, r := range sensitiveRules {
		switch r.kind {
		case "word":
			sensitiveWords[r.text] = true
		case "phrase":
			sensitivePhrases = append(sensitivePhrases, strings.Fields(r.text))
		case "squashed":
			sensitiveSquashed = append(sensitiveSquashed, r.text)
		}
	}
}

// labelLookalikes are the letters this guard folds beyond the scanners'
// table (scanners.ConfusableLatin): Greek lower case α ι κ ν ρ τ, which the
// scanners keep because they are everyday symbols beside Latin letters in
// formulas, and Cyrillic lower case в к м н т, drawn like small capitals.
// In a short form label neither use is likely and "pαssword" is a disguise.
// TestLabelLookalikesExtendScanners checks that none is in the scanners'
// table, so this stays an addition to it, not a copy.
var labelLookalikes = map[rune]rune{
	'α': 'a', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ρ': 'p', 'τ': 't',
	'в': 'b', 'к': 'k', 'м': 'm', 'н': 'h', 'т': 't',
}

// maxSensitiveText bounds the text examined per call.
const maxSensitiveText = 4096

// normalizeWords returns the lower-case words of s, camelCase split. The
// text goes through the scanners' Normalizer first (invisible and control
// characters removed, NFKC, look-alikes folded in mixed-script words); then
// every remaining look-alike the scanners know, and labelLookalikes, are
// folded too, since a label made only of look-alikes ("ОТР" in Cyrillic)
// is as much a disguise here.
func normalizeWords(s string) []string {
	if len(s) > maxSensitiveText {
		s = s[:maxSensitiveText]
	}
	var n scanners.Normalizer
	s = string(n.Append(nil, []byte(strings.ToValidUTF8(s, "\uFFFD")), true))
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		if c, ok := scanners.ConfusableLatin(r); ok {
			r = rune(c)
		} else if c, ok := labelLookalikes[r]; ok {
			r = c
		}
		if unicode.Is(unicode.Cf, r) {
			continue // zero-width and other format characters
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' || r == '@':
			// camelCase boundary: lower followed by upper.
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		case r == '\'' || r == '’':
			// "mother's" stays one word
			continue
		default:
			flush()
		}
		prev = r
	}
	flush()
	return words
}

var leet = strings.NewReplacer("4", "a", "@", "a", "0", "o", "1", "i", "3", "e", "5", "s", "$", "s", "7", "t")

// sensitiveText reports whether s asks for sensitive data. It returns the
// matched rule text, which is a fixed string of this file (safe for
// evidence), never part of s.
func sensitiveText(s string) (string, bool) {
	words := normalizeWords(s)
	if len(words) == 0 {
		return "", false
	}
	for _, w := range words {
		if sensitiveWords[w] {
			return w, true
		}
		// "p4ssw0rd" as one word: also try the de-leeted word.
		if lw := leet.Replace(w); lw != w && sensitiveWords[lw] {
			return lw, true
		}
	}
	for _, p := range sensitivePhrases {
		for i := 0; i+len(p) <= len(words); i++ {
			match := true
			for j, pw := range p {
				if words[i+j] != pw {
					match = false
					break
				}
			}
			if match {
				return strings.Join(p, " "), true
			}
		}
	}
	squashed := leet.Replace(strings.Join(words, ""))
	for _, q := range sensitiveSquashed {
		if strings.Contains(squashed, q) {
			return q, true
		}
	}
	return "", false
}
