package pipeline

import (
	"encoding/base64"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// The media types of the binary rules (binary.go): how a mimeType is read,
// which types are text, the signatures of the binary types, the note of a
// replaced block.
// binaryNote is the text of a replaced block, in the style of the other
// notes ("[OUTPUT_TRUNCATED: …]"); mime is restricted (noteMIME) or empty.
func binaryNote(r wire.Reason, mime string) string {
	what := "binary content without a type"
	if mime != "" {
		what = "binary content of type " + mime
	}
	why := "type not allowed"
	switch r {
	case wire.ReasonBinaryTypeMismatch:
		why = "its bytes are not of the declared type"
	case wire.ReasonBinaryHoldBytes:
		why = "its type came after more data than can be held"
	}
	return "[BINARY_REMOVED: " + what + " was removed: " + why + "]"
}

// noteMIME restricts a media type to [a-z0-9.+/-] and 64 bytes for the
// note and evidence.
func noteMIME(m []byte) string {
	b := make([]byte, 0, min(len(m), 64))
	for _, c := range m[:min(len(m), 64)] {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' || c == '/' {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}

// mimeEssence appends the media type of m lower-cased, without
// parameters and blanks (as mimeAllowed reads it), at most 128 bytes.
func mimeEssence(dst, m []byte) []byte {
	for _, c := range m {
		if c == ';' {
			break
		}
		if c == ' ' || c == '\t' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if len(dst) == 128 {
			break
		}
		dst = append(dst, c)
	}
	return dst
}

// textMIME reports whether a media type (an essence) is text that is
// sanitized: text/*, the JSON, XML, YAML, TOML and NDJSON application
// types, and every type with a +json, +xml or +yaml suffix (image/svg+xml
// among them).
func textMIME(m []byte) bool {
	s := string(m)
	if len(s) > 5 && s[:5] == "text/" {
		return true
	}
	switch s {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml",
		"application/toml", "application/x-ndjson", "application/ndjson", "application/jsonl":
		return true
	}
	for _, suf := range [...]string{"+json", "+xml", "+yaml"} {
		if len(s) > len(suf) && s[len(s)-len(suf):] == suf {
			return true
		}
	}
	return false
}

// sigOf names the signature family of a media type.
func sigOf(m []byte) string {
	switch string(m) {
	case "image/png", "image/apng":
		return "png"
	case "image/jpeg", "image/jpg", "image/pjpeg":
		return "jpeg"
	case "image/gif":
		return "gif"
	case "image/webp":
		return "webp"
	case "image/bmp", "image/x-bmp", "image/x-ms-bmp":
		return "bmp"
	case "image/tiff":
		return "tiff"
	case "image/x-icon", "image/vnd.microsoft.icon":
		return "ico"
	case "image/avif", "image/heic", "image/heif", "audio/mp4", "audio/x-m4a", "audio/m4a", "video/mp4", "video/quicktime":
		return "ftyp"
	case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave":
		return "wav"
	case "audio/mpeg", "audio/mp3", "audio/mpeg3", "audio/x-mpeg-3":
		return "mp3"
	case "audio/ogg", "audio/opus", "audio/vorbis", "application/ogg", "video/ogg":
		return "ogg"
	case "audio/flac", "audio/x-flac":
		return "flac"
	case "audio/aac", "audio/x-aac", "audio/aacp":
		return "aac"
	case "audio/webm", "video/webm", "audio/x-matroska", "video/x-matroska":
		return "ebml"
	case "application/pdf":
		return "pdf"
	}
	return ""
}

func sigKnown(m []byte) bool { return sigOf(m) != "" }

// sigMatch reports whether b, the first decoded bytes of a value (all of
// them when it is shorter), starts with a signature of media type m.
func sigMatch(m, b []byte) bool {
	has := func(off int, s string) bool {
		return len(b) >= off+len(s) && string(b[off:off+len(s)]) == s
	}
	switch sigOf(m) {
	case "png":
		return has(0, "\x89PNG\r\n\x1a\n")
	case "jpeg":
		return has(0, "\xff\xd8\xff")
	case "gif":
		return has(0, "GIF87a") || has(0, "GIF89a")
	case "webp":
		return has(0, "RIFF") && has(8, "WEBP")
	case "bmp":
		return has(0, "BM")
	case "tiff":
		return has(0, "II*\x00") || has(0, "MM\x00*")
	case "ico":
		return has(0, "\x00\x00\x01\x00") || has(0, "\x00\x00\x02\x00")
	case "ftyp":
		return has(4, "ftyp")
	case "wav":
		return has(0, "RIFF") && has(8, "WAVE")
	case "mp3":
		return has(0, "ID3") || len(b) >= 2 && b[0] == 0xff && b[1]&0xe0 == 0xe0
	case "ogg":
		return has(0, "OggS")
	case "flac":
		return has(0, "fLaC")
	case "aac":
		return has(0, "ADIF") || len(b) >= 2 && b[0] == 0xff && b[1]&0xf6 == 0xf0
	case "ebml":
		return has(0, "\x1a\x45\xdf\xa3")
	case "pdf":
		return has(0, "%PDF-")
	}
	return true
}

// decodeHead decodes the whole quanta of the kept head characters.
func decodeHead(h []byte) []byte {
	var out [headChars / 4 * 3]byte
	n, _ := base64.StdEncoding.Decode(out[:], h[:len(h)/4*4])
	return out[:n]
}

// sigAny reports whether b starts with the signature of a binary format:
// one of the media types of sigMatch, or gzip, zip, 7z, xz or zstd.
func sigAny(b []byte) bool {
	for _, m := range [...]string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff",
		"image/x-icon", "video/mp4", "audio/wav", "audio/ogg", "audio/flac", "video/webm", "application/pdf"} {
		if sigMatch([]byte(m), b) {
			return true
		}
	}
	if len(b) >= 3 && string(b[:3]) == "ID3" {
		return true
	}
	for _, s := range [...]string{"\x1f\x8b", "PK\x03\x04", "7z\xbc\xaf\x27\x1c", "\xfd7zXZ\x00", "\x28\xb5\x2f\xfd"} {
		if len(b) >= len(s) && string(b[:len(s)]) == s {
			return true
		}
	}
	return false
}
