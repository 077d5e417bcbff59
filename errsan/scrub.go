package errsan

import (
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/internal/lazyre"
)

// Replacements of removed spans.
const (
	markPath    = "[path]"
	markURL     = "[url]"
	markHost    = "[host]"
	markAddress = "[address]"
	markSQL     = "[sql]"
	markBackend = "[backend error]"
	markSecret  = "[secret]"
	markEnv     = "[environment]"
)

// A scrubber replaces one class of internals inside a kept line. quick,
// when set, is an ASCII lower-case substring every match holds (a cheap
// filter before the pattern).
type scrubber struct {
	quick string
	apply func(l string, rep *Report) string
}

// replaceAll replaces every match of re in l by mark, counting kind.
func replaceAll(re *lazyre.Regexp, l, mark string, kind Kind, rep *Report) string {
	idx := re.FindAllStringIndex(l, -1)
	if idx == nil {
		return l
	}
	var b strings.Builder
	last := 0
	for _, m := range idx {
		b.WriteString(l[last:m[0]])
		b.WriteString(mark)
		last = m[1]
		rep.Counts[kind]++
	}
	b.WriteString(l[last:])
	return b.String()
}

// toEnd replaces, from the first match of re, the rest of the line by mark.
func toEnd(re *lazyre.Regexp, mark string, kind Kind) func(string, *Report) string {
	return func(l string, rep *Report) string {
		m := re.FindStringIndex(l)
		if m == nil {
			return l
		}
		rep.Counts[kind]++
		return l[:m[0]] + mark
	}
}

func pattern(re *lazyre.Regexp, mark string, kind Kind) func(string, *Report) string {
	return func(l string, rep *Report) string { return replaceAll(re, l, mark, kind, rep) }
}

var (
	// Credential assignments and bearer tokens (the catalog's rules, when
	// a Redactor is given, run before).
	assignRE = lazyre.New(`(?i)\b(password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|api[_-]?key|access[_-]?key|private[_-]?key|auth|authorization|credentials?)(\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;)\]}\[][^\s,;)\]}]*)`)
	bearerRE = lazyre.New(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	// Python's os.environ repr.
	environRE = lazyre.New(`\benviron\(\{.*\}\)`)

	// Database and network driver error text: from the signature to the
	// end of the line.
	backendRE = lazyre.New(`(?i)\bpq: |\bERROR \d{4} \(\w{5}\)|\bSQLSTATE\b|\bSQLSTATE\[|\bORA-\d{5}|\b(psycopg2?|sqlalchemy|pymysql|asyncpg|sqlite3|pymongo|redis|mysql\.connector|MySQLdb|django\.db)\.[\w.]*(Error|Exception)\b|\bMongo\w*Error\b|\bSequelize\w*Error\b|\bPrismaClient\w*Error\b|\bjava\.sql\.\w+|\b\w*SQLException\b|\bduplicate key value violates\b|\bsyntax error at or near\b|\byou have an error in your SQL syntax|\bSQLITE_[A-Z]+\b|\baccess denied for user '|\b(dial|read|write|lookup) (tcp|udp|unix)[46]?\b|\b(connect )?(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)\b|\bgetaddrinfo\b|\bconnection refused\b|\bno pg_hba\.conf entry\b|\bpassword authentication failed\b|\bTNS:`)

	// SQL statements: the statement's start; it runs to a ';' or the end
	// of the line.
	sqlRE = lazyre.New(`(?i)\b(SELECT\s[^;]*?\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\S+\s+SET\s|DELETE\s+FROM\s|(CREATE|DROP)\s+(TEMP\s+|TEMPORARY\s+)?(TABLE|INDEX|VIEW|DATABASE|SCHEMA|USER|ROLE)\s|ALTER\s+(TABLE|USER|ROLE)\s|TRUNCATE\s+(TABLE\s+)?\S|GRANT\s+\w+.*\sON\s|MERGE\s+INTO\s)`)

	// A file: URL, also glued to the word before it ("at0file:///x"):
	// with its slash no word boundary is needed.
	fileURLRE = lazyre.New(`(?i)(?:\bfile:|file:/)[^\s"'<>()\[\]{}]*`)
	urlRE     = lazyre.New(`(?i)\b[a-z][a-z0-9+.-]{1,15}://[^\s"'<>()\[\]{}]*`)
	uncRE     = lazyre.New(`\\\\[^\s\\"'<>|]+\\[^\s"'<>|]*`)
	winRE     = lazyre.New(`\b[A-Za-z]:[\\/][^\s"'<>|*?]*`)
	nodeRE    = lazyre.New(`\bnode:[\w/.-]+(:\d+)*`)
	// A relative path of a source or data file, or a bare file:line.
	relSrcRE = lazyre.New(`/?\b[\w.@+-]+(?:[/\\][\w.@+-]+)+\.(?:` + srcExt + `)\b(?::\d+)*(?:\(\d+\))?|\b[\w.@+-]+\.(?:` + srcExt + `)(?:(?::\d+)+|\(\d+\)|:line \d+)`)
	// home-relative and dot-relative paths.
	dotPathRE = lazyre.New(`(?:^|[^\w.~-])((?:~|\.{1,2})[/\\][^\s"'<>()\[\]{},;|]*)`)

	ipv4RE = lazyre.New(`\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b`)
	ipv6RE = lazyre.New(`(?i)\[?\b(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}\b(?:\]:\d{1,5}|\])?|\[?\b(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6}\b)?(?:\]:\d{1,5}|\])?|\[::1?\](?::\d{1,5})?|\B::1\b`)
	hostRE = lazyre.New(`(?i)\b(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:internal|local|localdomain|lan|corp|intra|intranet|svc|home\.arpa)|(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|cloud|ai|app|info|biz))\b(?::\d{1,5}\b)?`)
	portRE = lazyre.New(`(?i)\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+:\d{2,5}\b`)
	// pydantic's echoed input and its documentation link.
	inputValueRE   = lazyre.New(`,?\s*input_value=(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,\]]*)`)
	pydanticLinkRE = lazyre.New(`^\s*For further information visit \S+\s*$`)
	emailRE        = lazyre.New(`(?i)\b[a-z0-9._%+-]+@\[host\]`)
)

// srcExt are the extensions of source files.
const srcExt = `js|mjs|cjs|ts|mts|cts|tsx|jsx|py|pyc|go|java|kt|kts|scala|cs|fs|vb|rs|rb|php|c|cc|cpp|cxx|h|hpp|swift|ex|exs|erl|clj|lua|pl|pm|sh|ps1`

// scrubbers run in this order on every kept line: secrets first (a token
// may hold slashes), then backend text and SQL (which hold addresses and
// paths), then URLs, paths, addresses and host names.
var scrubbers = []scrubber{
	{"for further information visit", pattern(pydanticLinkRE, "", KindURL)},
	{"input_value=", pattern(inputValueRE, "", KindEchoedInput)},
	{"", func(l string, rep *Report) string {
		l = replaceAll(bearerRE, l, markSecret, KindSecret, rep)
		idx := assignRE.FindAllStringSubmatchIndex(l, -1)
		if idx == nil {
			return l
		}
		var b strings.Builder
		last := 0
		for _, m := range idx {
			b.WriteString(l[last:m[5]])
			b.WriteString(markSecret)
			last = m[1]
			rep.Counts[KindSecret]++
		}
		b.WriteString(l[last:])
		return b.String()
	}},
	{"environ(", pattern(environRE, markEnv, KindEnv)},
	{"", backendText},
	{"", sqlStatements},
	{"file:", pattern(fileURLRE, markPath, KindPath)},
	{"://", pattern(urlRE, markURL, KindURL)},
	{`\\`, pattern(uncRE, markPath, KindPath)},
	{":", pattern(winRE, markPath, KindPath)},
	{"node:", pattern(nodeRE, markPath, KindPath)},
	{".", pattern(relSrcRE, markPath, KindPath)},
	{"/", posixPaths},
	{"", dotPaths},
	{".", pattern(ipv4RE, markAddress, KindAddress)},
	{":", pattern(ipv6RE, markAddress, KindAddress)},
	{"", pattern(hostRE, markHost, KindHost)},
	{":", pattern(portRE, markAddress, KindAddress)},
	{"@[host]", pattern(emailRE, markHost, KindHost)},
}

// backendWords holds, in lower case, a word of every backendRE match: a
// line with none of them is not matched (a cheap filter first).
var backendWords = []string{"pq: ", "error 1", "error 2", "sqlstate", "ora-", "psycopg", "sqlalchemy", "pymysql", "asyncpg",
	"sqlite3.", "pymongo.", "redis.", "mysql.connector", "mysqldb.", "django.db.", "mongo", "sequelize", "prisma",
	"sql", "duplicate key", "access denied for user", "tcp", "udp", "unix", "econn", "etimedout", "ehostunreach",
	"enetunreach", "enotfound", "eai_again", "getaddrinfo", "connection refused", "pg_hba", "password authentication", "tns:"}

var backendToEnd = toEnd(backendRE, markBackend, KindBackend)

// backendText replaces driver error text from its signature to the end of
// the line.
func backendText(l string, rep *Report) string {
	lower := strings.ToLower(l)
	for _, w := range backendWords {
		if strings.Contains(lower, w) {
			return backendToEnd(l, rep)
		}
	}
	return l
}

// sqlStatements replaces each SQL statement by markSQL: from its start to
// the next ';' or the end of the line.
func sqlStatements(l string, rep *Report) string {
	for n := 0; n < 8; n++ {
		m := sqlRE.FindStringIndex(l)
		if m == nil {
			return l
		}
		end := strings.IndexByte(l[m[0]:], ';')
		rep.Counts[KindSQL]++
		if end < 0 {
			return l[:m[0]] + markSQL
		}
		l = l[:m[0]] + markSQL + l[m[0]+end:]
	}
	return l
}

func dotPaths(l string, rep *Report) string {
	if !strings.Contains(l, "./") && !strings.Contains(l, "~/") && !strings.Contains(l, `.\`) && !strings.Contains(l, `~\`) {
		return l
	}
	idx := dotPathRE.FindAllStringSubmatchIndex(l, -1)
	var b strings.Builder
	last := 0
	for _, m := range idx {
		b.WriteString(l[last:m[2]])
		b.WriteString(markPath)
		last = m[3]
		rep.Counts[KindPath]++
	}
	b.WriteString(l[last:])
	return b.String()
}

// posixPaths replaces absolute POSIX paths: a '/' after the start of the
// line or a character that cannot end a word of a path, followed by a name
// character. A JSON pointer into a schema (its first token a JSON Schema
// keyword, as in the Go SDK's "validating /properties/a") is kept.
func posixPaths(l string, rep *Report) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(l); i++ {
		if l[i] != '/' || i > 0 && !pathBoundary(l[i-1]) || i+1 >= len(l) || !nameByte(l[i+1]) {
			continue
		}
		j := i + 1
		for j < len(l) && pathByte(l[j]) {
			j++
		}
		// A trailing '.' or ':' is punctuation of the sentence.
		for j > i+1 && (l[j-1] == '.' || l[j-1] == ':' || l[j-1] == ',') {
			j--
		}
		if schemaPointer(l[i:j]) {
			i = j - 1
			continue
		}
		b.WriteString(l[last:i])
		b.WriteString(markPath)
		last = j
		rep.Counts[KindPath]++
		i = j - 1
	}
	if last == 0 {
		return l
	}
	b.WriteString(l[last:])
	return b.String()
}

// pathBoundary reports whether c may come right before an absolute path
// (anything but a letter, digit or one of "_.-~/").
func pathBoundary(c byte) bool {
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '~' || c == '/' || c >= 0x80)
}

// nameByte reports whether c may start a path segment.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '@' || c == '+' || c == '$' || c == '~' || c >= 0x80
}

// pathByte reports whether c continues a path.
func pathByte(c byte) bool {
	return nameByte(c) || c == '/' || c == ':' || c == '%' || c == '=' || c == '#' || c == '!' || c == '&' || c == '*' || c == '\\'
}

var schemaKeywords = map[string]bool{
	"properties": true, "items": true, "$defs": true, "definitions": true, "prefixItems": true,
	"patternProperties": true, "additionalProperties": true, "allOf": true, "anyOf": true,
	"oneOf": true, "not": true, "if": true, "then": true, "else": true, "dependentSchemas": true,
	"contains": true, "propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true,
	"required": true, "type": true, "enum": true, "const": true,
}

// schemaPointer reports whether p is a JSON pointer into a schema: its
// first token a JSON Schema keyword, every token a short identifier or an
// index.
func schemaPointer(p string) bool {
	toks := strings.Split(p[1:], "/")
	if !schemaKeywords[toks[0]] {
		return false
	}
	for _, t := range toks {
		if t == "" || len(t) > 64 {
			return false
		}
		for i := 0; i < len(t); i++ {
			c := t[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '-') {
				return false
			}
		}
	}
	return true
}

// checkRE finds, in a line the scrubbers left, what must never be
// delivered: frames and paths.
var checkRE = lazyre.New(`(?i)file:/|\\\\[^\s\\]+\\|\b[a-z]:[\\/][\w.$~ -]|(?:^|[^\w.~/-])(?:~|\.{1,2})[/\\]\w|goroutine \d+ \[|\+0x[0-9a-f]|Traceback \(most|File "[^"]*", line \d|\bat\s+\S+\s+\([^)]*:\d+|node:internal|\.(?:js|mjs|cjs|ts|tsx|jsx|py|go|java|kt|cs|rs|rb|php|c|cc|cpp|h|swift|scala|ex|exs)(?::\d+|\(\d+\)|:line \d+)`)

// checkFrameRE finds the start of a JVM or JavaScript frame line.
var checkFrameRE = lazyre.New(`^\s*at\s+[\w$<>]+(?:\.[\w$<>]+)+\s*\(|^\s*at\s.*:\d+:\d+\)?\s*$`)

// Check reports whether line l holds a path or a stack frame: the test
// every line of a Sanitize result passes (a line that fails it after
// scrubbing is dropped).
func Check(l string) bool {
	if checkRE.MatchString(l) || checkFrameRE.MatchString(l) {
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] == '/' && (i == 0 || pathBoundary(l[i-1])) && i+1 < len(l) && nameByte(l[i+1]) {
			j := i + 1
			for j < len(l) && pathByte(l[j]) {
				j++
			}
			for j > i+1 && (l[j-1] == '.' || l[j-1] == ':' || l[j-1] == ',') {
				j--
			}
			if !schemaPointer(l[i:j]) {
				return true
			}
		}
	}
	return false
}
