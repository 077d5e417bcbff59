package errsan

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

// caseAt names a table case by the line that defines it.
func caseAt(name string) string {
	_, _, line, _ := runtime.Caller(1)
	return fmt.Sprintf("line%d/%s", line, name)
}

// sdkCase is one error text: what must survive (keep, in order) and what
// must not (gone), and the kinds that must be reported.
type sdkCase struct {
	name  string
	in    string
	keep  []string
	gone  []string
	kinds []string
	code  int
}

// The error shapes of the official SDKs and of the two reference servers
// (@modelcontextprotocol/server-everything and server-filesystem).
var sdkCases = []sdkCase{
	// TypeScript SDK: McpError and the Zod issues it writes as JSON.
	{name: caseAt("ts unknown tool"), in: "MCP error -32602: Tool no-such-tool not found",
		keep: []string{"MCP error -32602: ", "Tool no-such-tool not found"}, code: -32602},
	{name: caseAt("ts zod v3 issues"), in: "MCP error -32602: Input validation error: Invalid arguments for tool add: [\n  {\n    \"code\": \"invalid_type\",\n    \"expected\": \"number\",\n    \"received\": \"string\",\n    \"path\": [\n      \"a\"\n    ],\n    \"message\": \"Expected number, received string\"\n  }\n]",
		keep: []string{"MCP error -32602: ", "Invalid arguments for tool add: Expected number, received string at a"}, gone: []string{"invalid_type", "{"}, code: -32602},
	{name: caseAt("ts zod v4 issues nested path"), in: `Invalid arguments for tool zip: [{"expected":"string","code":"invalid_type","path":["files",0,"name"],"message":"Invalid input: expected string, received number"},{"code":"unrecognized_keys","keys":["x"],"path":[],"message":"Unrecognized key: \"x\""}]`,
		keep: []string{"Invalid input: expected string, received number at files[0].name", `; Unrecognized key: "x"`}},
	{name: caseAt("ts wrapped twice keeps the inner code"), in: "MCP error -32603: MCP error -32602: Cannot specify both head and tail parameters",
		keep: []string{"MCP error -32602: Cannot specify both head and tail parameters"}, gone: []string{"-32603"}, code: -32602},
	{name: caseAt("ts node stack"), in: "Error: Cannot read properties of undefined (reading 'x')\n    at handler (/app/dist/tools/add.js:42:17)\n    at async Server.<anonymous> (file:///app/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js:88:24)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
		keep: []string{"Error: Cannot read properties of undefined (reading 'x')"}, gone: []string{"/app", "add.js", "node_modules", "task_queues"}, kinds: []string{"stack-trace"}},
	// The reference servers' real messages.
	{name: caseAt("everything zod plain"), in: "expected number, received string at a", keep: []string{"expected number, received string at a"}},
	{name: caseAt("filesystem head and tail"), in: "Error: Cannot specify both head and tail parameters simultaneously",
		keep: []string{"Error: Cannot specify both head and tail parameters simultaneously"}},
	{name: caseAt("filesystem access denied"), in: "Error: Access denied - path outside allowed directories: /etc/shadow not in /srv/mcp/allowed, /home/alice/projects",
		keep: []string{"Error: Access denied - path outside allowed directories: [path] not in [path], [path]"}, gone: []string{"/etc", "alice", "/srv"}, kinds: []string{"file-path"}},
	{name: caseAt("filesystem enoent"), in: "Error: ENOENT: no such file or directory, open '/srv/mcp/allowed/missing.txt'",
		keep: []string{"Error: ENOENT: no such file or directory, open '[path]'"}, gone: []string{"/srv", "missing.txt"}},
	{name: caseAt("filesystem windows"), in: `Error: EPERM: operation not permitted, open 'C:\Users\bob\secret.txt'`,
		keep: []string{"EPERM: operation not permitted, open '[path]'"}, gone: []string{"bob", `C:\`}},
	{name: caseAt("unc path"), in: `Permission denied: \\fileserver01\share$\hr\salaries.xlsx`,
		keep: []string{"Permission denied: [path]"}, gone: []string{"fileserver01", "salaries"}},
	{name: caseAt("file url"), in: "Resource not found: file:///var/lib/app/data.db",
		keep: []string{"Resource not found: [path]"}, gone: []string{"/var", "data.db"}},
	// Python SDK: pydantic text and JSON, tracebacks.
	{name: caseAt("python pydantic text"), in: "Error executing tool add: 1 validation error for addArguments\nb\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='sk_live_notreal', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.11/v/int_parsing",
		keep: []string{"Error executing tool add: 1 validation error for addArguments\nb\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_type=str]"},
		gone: []string{"sk_live", "pydantic.dev", "visit"}, kinds: []string{"echoed-input"}},
	{name: caseAt("python pydantic json"), in: `Invalid params: [{"type":"missing","loc":["city"],"msg":"Field required","input":{"token":"x"}}]`,
		keep: []string{"Invalid params: Field required at city"}, gone: []string{"token", "missing"}, kinds: []string{"echoed-input"}},
	{name: caseAt("python unknown tool"), in: "Unknown tool: no-such-tool", keep: []string{"Unknown tool: no-such-tool"}},
	{name: caseAt("python traceback"), in: "Traceback (most recent call last):\n  File \"/usr/lib/python3.12/site-packages/mcp/server/lowlevel/server.py\", line 512, in _handle_request\n    response = await handler(req)\n               ^^^^^^^^^^^^^^^^^^\n  File \"/srv/app/tools.py\", line 33, in divide\n    return a / b\n           ~~^~~\nZeroDivisionError: division by zero",
		keep: []string{"ZeroDivisionError: division by zero"}, gone: []string{"server.py", "/srv", "handler", "return a"}, kinds: []string{"stack-trace"}},
	{name: caseAt("python chained"), in: "Traceback (most recent call last):\n  File \"/a/b.py\", line 1, in f\n    x()\nKeyError: 'user'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"/a/c.py\", line 9, in g\n    raise LookupError('no user')\nLookupError: no user",
		keep: []string{"KeyError: 'user'", "LookupError: no user"}, gone: []string{"b.py", "raise", "During"}},
	// Go SDK: the jsonschema-go chains and its wire errors.
	{name: caseAt("go sdk missing"), in: `validating "arguments": validating root: required: missing properties: ["b"]`,
		keep: []string{`validating "arguments": validating root: required: missing properties: ["b"]`}},
	{name: caseAt("go sdk type with pointer"), in: `validating "arguments": validating root: validating /properties/a: type: x has type "string", want "number"`,
		keep: []string{`validating /properties/a: type: x has type "string", want "number"`}},
	{name: caseAt("go sdk unknown tool"), in: `invalid params: unknown tool "no-such-tool"`, keep: []string{`invalid params: unknown tool "no-such-tool"`}},
	{name: caseAt("go panic"), in: "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 18 [running]:\nmain.(*Server).handle(0xc000123450, {0x7f3a, 0x2})\n\t/home/dev/src/server/main.go:42 +0x1d\ncreated by main.serve in goroutine 1\n\t/home/dev/src/server/main.go:30 +0x45",
		keep: []string{"panic: runtime error: index out of range [5] with length 3"}, gone: []string{"goroutine", "main.go", "/home", "0xc000"}, kinds: []string{"stack-trace"}},
	{name: caseAt("go error with file:line"), in: "open config: read failed at store.go:118: permission denied",
		keep: []string{"open config: read failed at [path]: permission denied"}, gone: []string{"store.go"}},
	// Java, Kotlin, .NET, Rust, Ruby, PHP.
	{name: caseAt("java"), in: "java.lang.IllegalArgumentException: limit must be positive\n\tat com.acme.tools.Search.run(Search.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)\n\t... 12 more\nCaused by: java.lang.NumberFormatException: For input string: \"-1\"",
		keep: []string{"limit must be positive", "Caused by: java.lang.NumberFormatException"}, gone: []string{"Search.java", "Thread.run", "12 more"}},
	{name: caseAt("kotlin"), in: "kotlin.UninitializedPropertyAccessException: lateinit property repo has not been initialized\n\tat dev.acme.mcp.Tools.list(Tools.kt:17)",
		keep: []string{"lateinit property repo has not been initialized"}, gone: []string{"Tools.kt"}},
	{name: caseAt(".net"), in: "System.ArgumentNullException: Value cannot be null. (Parameter 'name')\n   at Acme.Mcp.Tools.Greet(String name) in C:\\src\\Acme\\Tools.cs:line 27\n   at Acme.Mcp.Program.<Main>d__0.MoveNext()\n--- End of stack trace from previous location ---",
		keep: []string{"Value cannot be null. (Parameter 'name')"}, gone: []string{"Tools.cs", "MoveNext", "End of stack"}},
	{name: caseAt("rust"), in: "thread 'tokio-runtime-worker' panicked at src/tools/read.rs:41:18:\ncalled `Result::unwrap()` on an `Err` value: NotFound\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/abc/library/std/src/panicking.rs:645:5\n   1: core::result::unwrap_failed\nnote: run with `RUST_BACKTRACE=full` for a verbose backtrace.",
		keep: []string{"panicked at [path]", "`Err` value: NotFound"}, gone: []string{"read.rs", "/rustc", "rust_begin_unwind", "RUST_BACKTRACE"}},
	{name: caseAt("ruby"), in: "/srv/app/tools.rb:12:in `fetch': record not found (ActiveRecord::RecordNotFound)\n\tfrom /srv/app/server.rb:40:in `call'",
		keep: []string{"record not found (ActiveRecord::RecordNotFound)"}, gone: []string{"/srv", "server.rb"}},
	{name: caseAt("php"), in: "PDOException: could not find driver in /var/www/html/db.php:14\nStack trace:\n#0 /var/www/html/db.php(14): PDO->__construct('mysql:host=10.0...')\n#1 {main}",
		keep: []string{"PDOException: could not find driver in [path]"}, gone: []string{"/var", "#0", "{main}", "10.0"}},
	// Backend text, SQL, hosts, addresses, environment, secrets.
	{name: caseAt("pq"), in: `Failed to list users: pq: password authentication failed for user "app"`,
		keep: []string{"Failed to list users: [backend error]"}, gone: []string{"authentication", `"app"`}, kinds: []string{"backend-error"}},
	{name: caseAt("node econnrefused"), in: "Database unavailable: connect ECONNREFUSED 10.0.0.3:5432",
		keep: []string{"Database unavailable: [backend error]"}, gone: []string{"10.0.0.3", "5432"}},
	{name: caseAt("mysql 1045"), in: "Query failed: ERROR 1045 (28000): Access denied for user 'root'@'db-7.prod.internal' (using password: YES)",
		keep: []string{"Query failed: [backend error]"}, gone: []string{"root", "db-7", "28000"}},
	{name: caseAt("go dial"), in: "fetching orders: dial tcp 172.16.4.2:6379: connect: connection refused",
		keep: []string{"fetching orders: [backend error]"}, gone: []string{"172.16", "6379"}},
	{name: caseAt("sql statement"), in: "query failed near SELECT id, email, password_hash FROM users WHERE tenant = 'acme'; retry later",
		keep: []string{"query failed near [sql]; retry later"}, gone: []string{"password_hash", "acme"}, kinds: []string{"sql"}},
	{name: caseAt("insert statement"), in: "could not save: INSERT INTO audit (who, what) VALUES ($1, $2)",
		keep: []string{"could not save: [sql]"}, gone: []string{"audit"}},
	{name: caseAt("url and host"), in: "Upstream https://api.internal.acme.corp:8443/v2/orders?key=abc returned 503; cache at cache-01.acme.internal:11211 is down",
		keep: []string{"Upstream [url] returned 503; cache at [host] is down"}, gone: []string{"acme", "8443", "11211", "key=abc"}},
	{name: caseAt("ipv6"), in: "cannot reach [2001:db8::17]:9000 or fe80::1ff:fe23:4567:890a", keep: []string{"cannot reach [address] or [address]"}, gone: []string{"2001", "fe80"}},
	{name: caseAt("environment dump"), in: "spawn failed with env:\nPATH=/usr/local/bin:/usr/bin\nHOME=/home/svc\nDATABASE_URL=postgres://app:hunter2@db:5432/app\nexport AWS_REGION=eu-west-1",
		keep: []string{"spawn failed with env:"}, gone: []string{"PATH", "hunter2", "AWS_REGION", "/home"}, kinds: []string{"environment"}},
	{name: caseAt("python environ"), in: "config missing in environ({'HOME': '/root', 'API_TOKEN': 'zzz'})", keep: []string{"config missing in [environment]"}, gone: []string{"/root", "zzz"}},
	{name: caseAt("credential assignment"), in: "auth failed: password=hunter2 token: 'abcd1234' Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.x",
		keep: []string{"auth failed: password=[secret] token: [secret] Authorization: [secret]"}, gone: []string{"hunter2", "abcd1234", "eyJ"}, kinds: []string{"secret"}},
	// Messages that keep everything.
	{name: caseAt("not found"), in: "Resource not found: note://42", keep: []string{"Resource not found: [url]"}},
	{name: caseAt("permission denied"), in: "Permission denied", keep: []string{"Permission denied"}},
	{name: caseAt("and/or and ratios"), in: "Provide a start and/or end date (use 1/2 of the range)", keep: []string{"Provide a start and/or end date (use 1/2 of the range)"}},
	{name: caseAt("mapped code prefix"), in: "NOT_FOUND: city Atlantis", keep: []string{"NOT_FOUND: city Atlantis"}},
}

func TestSanitizeSDKShapes(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range sdkCases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := s.Sanitize(tc.in)
			rest := out
			for _, k := range tc.keep {
				i := strings.Index(rest, k)
				if i < 0 {
					t.Fatalf("lost %q:\nin:  %q\nout: %q", k, tc.in, out)
				}
				rest = rest[i+len(k):]
			}
			for _, g := range tc.gone {
				if strings.Contains(out, g) {
					t.Errorf("kept %q:\nout: %q", g, out)
				}
			}
			for _, l := range strings.Split(out, "\n") {
				if refLeak(l) {
					t.Errorf("a path or frame survived in %q", l)
				}
			}
			kinds := strings.Join(rep.Kinds(), ",")
			for _, k := range tc.kinds {
				if !strings.Contains(","+kinds+",", ","+k+",") {
					t.Errorf("kinds %q, want %q among them", kinds, k)
				}
			}
			if rep.RPCCode != tc.code {
				t.Errorf("RPCCode %d, want %d", rep.RPCCode, tc.code)
			}
		})
	}
}

// A bare stack trace leaves nothing: the caller uses its generic message.
func TestSanitizeNothingLeft(t *testing.T) {
	s, _ := New(Options{})
	for _, in := range []string{
		"    at f (/a/b.js:1:2)\n    at g (/a/c.js:3:4)",
		"goroutine 1 [running]:\nmain.main()\n\t/x/main.go:3 +0x1",
		"  \n\t\n",
		"",
	} {
		if out, _ := s.Sanitize(in); out != "" {
			t.Errorf("Sanitize(%q) = %q, want empty", in, out)
		}
	}
	if out, _ := s.Sanitize("MCP error -32603: \n    at f (/a/b.js:1:2)"); out != "MCP error -32603: " {
		t.Errorf("prefix only: %q", out)
	}
}

func TestSanitizeBounds(t *testing.T) {
	s, _ := New(Options{MaxBytes: 64, MaxLines: 3})
	out, rep := s.Sanitize(strings.Repeat("é too long ", 40))
	if len(out) > 64 || !strings.HasSuffix(out, CutMark) || !rep.Cut || !strings.HasPrefix(out, "é too long") {
		t.Fatalf("bytes bound: %d %q %v", len(out), out, rep.Cut)
	}
	out, rep = s.Sanitize("a\nb\nc\nd\ne")
	if out != "a\nb\nc"+CutMark || !rep.Cut {
		t.Fatalf("lines bound: %q", out)
	}
	big := strings.Repeat("x", DefaultMaxInput+10) + "/etc/passwd"
	d, _ := New(Options{MaxBytes: maxMaxBytes})
	out, rep = d.Sanitize(big)
	if !rep.Cut || strings.Contains(out, "passwd") || len(out) > maxMaxBytes {
		t.Fatalf("input bound: cut %v len %d", rep.Cut, len(out))
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{MaxBytes: 8}, {MaxBytes: 1 << 20}, {MaxLines: -1}, {MaxInput: 10}, {SecretMarker: strings.Repeat("x", 65)}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// The scanners' Redactor removes the catalog's secrets first; markers
// already in the text count as secrets.
func TestSanitizeRedactor(t *testing.T) {
	cat, err := scanners.NewCatalog(scanners.CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Redactor: cat.NewRedactor([]byte("k")), SecretMarker: "[REDACTED:"})
	if err != nil {
		t.Fatal(err)
	}
	pat := "ghp_" + strings.Repeat("A1b2C3d4E5", 3) + "xyzAB9"
	out, rep := s.Sanitize("GitHub said 401 for " + pat)
	if strings.Contains(out, pat) || rep.Counts[KindSecret] == 0 || !strings.HasPrefix(out, "GitHub said 401 for ") {
		t.Fatalf("redactor: %q %v", out, rep.Counts)
	}
	out, rep = s.Sanitize("bad key [REDACTED:github-pat] token=[REDACTED:github-pat]")
	if out != "bad key [REDACTED:github-pat] token=[REDACTED:github-pat]" || rep.Counts[KindSecret] != 2 {
		t.Fatalf("marker: %q %v", out, rep.Counts)
	}
}

// refLeak is the test's own definition of a path or a frame in output,
// written apart from Check: an absolute POSIX path of two segments, a
// drive or UNC path, a file: URL, a source file with a line, a frame
// header of any of the runtimes above.
var refLeakRE = regexp.MustCompile(`(?i)(^|[\s'"(=:,\[])/[\w.@+-]+/[\w.@+-]|\b[a-z]:\\\w|\\\\\w+\\|file:/|\.(js|ts|mjs|py|go|java|kt|cs|rs|rb|php):\d|goroutine \d+ \[|\+0x[0-9a-f]{2,}|Traceback \(most|File "[^"]+", line \d|node:internal`)

// refFrameRE: JavaScript and JVM frame lines.
var refFrameRE = regexp.MustCompile(`^\s*at [\w$<>]+(\.[\w$<>]+)+ ?\(|^\s*at .*:\d+:\d+\)?\s*$`)

// schemaPtrRE is a JSON pointer into a schema, which the Go SDK writes
// into validation errors; it is not a path.
var schemaPtrRE = regexp.MustCompile(`(^|[^\w.~/-])/(properties|items|\$defs|definitions|prefixItems|patternProperties|additionalProperties|allOf|anyOf|oneOf)(/[\w$-]+)*([^\w$/-]|$)`)

func refLeak(l string) bool {
	l = schemaPtrRE.ReplaceAllString(l, " ")
	return refLeakRE.MatchString(l) || refFrameRE.MatchString(l)
}
