package scanners

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Reference of the encoded-run decoding (decode.go): runs found by a regexp
// over the whole string, decoded with the standard library, and the decoded
// text redacted by the reference itself one level deeper.

var (
	refRun    = regexp.MustCompile(`[A-Za-z0-9+/_%-]+={0,2}`)
	refAllHex = regexp.MustCompile(`^[0-9A-Fa-f]+$`)
)

// refEncoded returns a candidate for every decodable run of s holding a
// secret.
func refEncoded(cat *Catalog, opts CatalogOptions, key []byte, s string, depth int) []refCand {
	maxRun, maxDepth := opts.MaxDecodeRun, opts.MaxDecodeDepth
	if maxRun == 0 {
		maxRun = DefaultMaxDecodeRun
	}
	if maxDepth == 0 {
		maxDepth = DefaultMaxDecodeDepth
	}
	if opts.DisableDecoding || depth >= maxDepth {
		return nil
	}
	var out []refCand
	for _, m := range refRun.FindAllStringIndex(s, -1) {
		run := s[m[0]:m[1]]
		if len(run) < decodeMinRun || len(run) > maxRun {
			continue
		}
		dec, enc, ok := refDecode(run)
		if !ok || !utf8.ValidString(dec) || strings.IndexFunc(dec, func(r rune) bool {
			return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
		}) >= 0 {
			continue
		}
		_, fs := refRedactDepth(cat, opts, key, dec, depth+1)
		for _, f := range fs {
			if f.Kind == KindSecret {
				out = append(out, refCand{start: m[0], end: m[1], rule: f.Rule, cs: f.Checksum, enc: enc, fp: f.Fingerprint})
				break
			}
		}
	}
	return out
}

func refDecode(run string) (string, Encoding, bool) {
	if strings.Contains(run, "%") {
		d, err := url.PathUnescape(run)
		return d, EncodingPercent, err == nil
	}
	if refAllHex.MatchString(run) && len(run)%2 == 0 && len(run) >= 32 {
		d, err := hex.DecodeString(run)
		return string(d), EncodingHex, err == nil
	}
	std := strings.ContainsAny(run, "+/")
	urlSafe := strings.ContainsAny(run, "-_")
	if std && urlSafe {
		return "", 0, false
	}
	body := strings.TrimRight(run, "=")
	if urlSafe {
		d, err := base64.RawURLEncoding.DecodeString(body)
		return string(d), EncodingBase64URL, err == nil
	}
	d, err := base64.RawStdEncoding.DecodeString(body)
	return string(d), EncodingBase64, err == nil
}
