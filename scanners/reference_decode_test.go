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
		if len(run) < decodeMinRun {
			continue
		}
		if len(run) <= maxRun {
			if c, ok := refDecodeScan(cat, opts, key, s, m[0], m[1], depth, false); ok {
				out = append(out, c)
			}
			continue
		}
		// A long run, in windows (decodeWindow): [ws, ws+wl) while the run
		// goes on past it, then [ws, end).
		wl, step := decodeWindow(maxRun)
		cover := m[0]
		for ws := m[0]; ; ws += int(step) {
			we, last := ws+int(wl), false
			if m[1]-ws <= int(wl) {
				we, last = m[1], true
			}
			if c, ok := refDecodeScan(cat, opts, key, s, ws, we, depth, true); ok {
				c.start = max(ws, cover)
				cover = we
				out = append(out, c)
			}
			if last {
				break
			}
		}
	}
	return out
}

// refDecodeScan decodes s[a:b] and reports a candidate for it when the
// decoded text holds a secret; window: a window of a long run, whose cut
// UTF-8 sequences at the edges are left out.
func refDecodeScan(cat *Catalog, opts CatalogOptions, key []byte, s string, a, b, depth int, window bool) (refCand, bool) {
	dec, enc, ok := refDecode(s[a:b])
	if window {
		for i := 0; i < 3 && dec != "" && dec[0]&0xC0 == 0x80; i++ {
			dec = dec[1:]
		}
		if r, n := utf8.DecodeLastRuneInString(dec); r == utf8.RuneError && n == 1 {
			// Drop an incomplete sequence at the end, whole.
			for i := 1; i <= 3 && i <= len(dec); i++ {
				if c := dec[len(dec)-i]; c >= 0xC0 {
					if !utf8.FullRuneInString(dec[len(dec)-i:]) {
						dec = dec[:len(dec)-i]
					}
					break
				} else if c < 0x80 {
					break
				}
			}
		}
	}
	if !ok || !utf8.ValidString(dec) || strings.IndexFunc(dec, func(r rune) bool {
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
	}) >= 0 {
		return refCand{}, false
	}
	_, fs := refRedactDepth(cat, opts, key, dec, depth+1)
	for _, f := range fs {
		if f.Kind == KindSecret {
			return refCand{start: a, end: b, rule: f.Rule, cs: f.Checksum, enc: enc, fp: f.Fingerprint}, true
		}
	}
	return refCand{}, false
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
