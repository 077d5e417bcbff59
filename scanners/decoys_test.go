package scanners

import (
	"strings"
	"testing"
)

// Legitimate identifiers in real tool output, as a class: commit SHAs,
// UUIDs, content hashes, request and trace ids, ARNs and policy names, CSS
// selectors, method calls, environment lookups, shell and template
// variables, URLs whose "password" is a port. Each class is generated in
// many spellings and surroundings; none may be redacted.

// decoyClasses returns the decoys by class, deterministically.
func decoyClasses() map[string][]string {
	hex := "0123456789abcdef"
	out := map[string][]string{}
	add := func(class string, ss ...string) { out[class] = append(out[class], ss...) }
	for i := uint32(1); i <= 12; i++ {
		sha := fakeChars(hex, 40, i)
		short := sha[:7+int(i%6)]
		add("commit-sha",
			"commit "+sha,
			`{"sha": "`+sha+`", "message": "fix: handle empty input"}`,
			"git checkout "+short,
			"https://github.com/org/repo/commit/"+sha,
			"Merge "+short+" into main",
			"  "+short+" (HEAD -> main, origin/main) docs: update README",
			"revision: "+strings.ToUpper(sha),
			`"parents": [{"sha": "`+sha+`"}]`,
		)
		uuid := fakeUUID(i)
		add("uuid",
			"request_id="+uuid,
			"X-Request-Id: "+uuid,
			`{"id": "`+uuid+`", "status": "done"}`,
			"{"+strings.ToUpper(uuid)+"}",
			"token_id: "+uuid,
			"session: "+uuid,
			"urn:uuid:"+uuid,
		)
		sum := fakeChars(hex, 64, i+100)
		add("content-hash",
			"sha256:"+sum,
			`"digest": "sha256:`+sum+`"`,
			"docker pull nginx@sha256:"+sum,
			`ETag: "`+sum[:32]+`"`,
			"md5: "+sum[:32],
			sum+"  dist/app.tar.gz",
			"integrity: sha512-"+fakeChars(base62Alphabet+"+/", 86, i)+"==",
			"checksum = \""+sum[:40]+"\"",
		)
		add("trace-id",
			"traceparent: 00-"+sum[:32]+"-"+sum[32:48]+"-01",
			"X-Amzn-Trace-Id: Root=1-"+sum[:8]+"-"+sum[8:32],
			`{"trace_id": "`+sum[:32]+`", "span_id": "`+sum[32:48]+`"}`,
			"span="+sum[:16]+" parent="+sum[16:32],
			"x-b3-traceid: "+sum[:32],
			"correlationId="+uuid,
		)
		acct := fakeChars("0123456789", 12, i)
		add("arn",
			"arn:aws:iam::"+acct+":role/service-role/LambdaExecution",
			"arn:aws:iam::aws:policy/AdministratorAccess",
			"arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
			"arn:aws:s3:::my-bucket-"+short+"/logs/*",
			"arn:aws:secretsmanager:us-east-1:"+acct+":secret:prod/db/password-"+fakeChars(base62Alphabet, 6, i),
			`"PolicyArn": "arn:aws:iam::`+acct+`:policy/ReadOnlySecretsAccess"`,
			"arn:aws:kms:eu-west-1:"+acct+":key/"+uuid,
			"arn:aws:ssm:us-west-2:"+acct+":parameter/app/api_key",
		)
	}
	for _, name := range []string{"password", "token", "secret", "apiKey", "api-key", "passwd", "access_token", "private_key"} {
		add("css-selector",
			"input[type="+name+"]",
			`[data-testid="`+name+`-input"]`,
			"."+name+"-field:focus { outline: none; }",
			"#"+name+"Form > .form__row .label",
			"document.querySelector('#"+name+"')",
			"label[for='"+name+"'] + input",
		)
		title := strings.ToUpper(name[:1]) + strings.NewReplacer("-", "", "_", "").Replace(name[1:])
		add("method-call",
			"getMaster"+"User"+title+"()",
			"user.get"+title+"()",
			"this."+name[:1]+strings.NewReplacer("-", "", "_", "").Replace(name[1:])+"Service.rotate()",
			"const value = await vault.read"+title+"(path)",
			"set"+title+"(form."+strings.NewReplacer("-", "", "_", "").Replace(name)+".value)",
			"if (!validate"+title+"(input)) return;",
		)
		upper := strings.ToUpper(strings.NewReplacer("-", "_").Replace(name))
		add("env-lookup",
			"process.env."+upper+` || "not-set"`,
			"process.env."+upper+" ?? ''",
			`os.getenv("`+upper+`", "default")`,
			`os.environ["`+upper+`"]`,
			`ENV.fetch("`+upper+`")`,
			`System.getenv("`+upper+`")`,
			"${{ secrets."+upper+" }}",
			`env::var("`+upper+`").unwrap_or_default()`,
		)
		add("variable",
			name+"=$"+upper,
			name+": ${"+upper+"}",
			name+`: "${`+upper+`:-}"`,
			name+": {{ .Values."+strings.NewReplacer("-", "", "_", "").Replace(name)+" }}",
			name+" = {{ "+strings.NewReplacer("-", "_").Replace(name)+" }}",
			name+"=%"+upper+"%",
			name+": <"+strings.NewReplacer("_", "-").Replace(name)+">",
			`"`+name+`": "{{`+strings.NewReplacer("-", "_").Replace(name)+`}}"`,
			name+"=$("+"cat /run/secrets/"+strings.NewReplacer("_", "-").Replace(name)+")",
		)
	}
	for i, host := range []string{"localhost", "db.internal", "cache", "10.0.0.12", "api.example.com"} {
		port := []string{"8080", "5432", "6379", "3306", "443"}[i]
		add("url-port",
			"http://"+host+":"+port+"/health",
			"postgres://"+host+":"+port+"/app",
			"redis://"+host+":"+port+"/0",
			"https://deploy@"+host+":"+port+"/org/repo.git",
			"mysql://root@"+host+":"+port+"/shop",
			"amqp://"+host+":"+port,
			"listening on "+host+":"+port,
			"http://"+host+":"+port+"/path?user=alice&page=2",
		)
	}
	return out
}

// TestDecoysKept: no decoy of any class is changed by the default catalog
// (after the Normalizer, as in the pipeline), bare or in a log line.
func TestDecoysKept(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	classes := decoyClasses()
	total := 0
	for class, ds := range classes {
		for i, d := range ds {
			for _, text := range []string{d, "2026-12-07T10:00:00Z INFO app: " + d + "\n"} {
				total++
				var n Normalizer
				in := normalizeOnce(&n, text)
				out, fs := redactChunks(t, r, in, 0)
				if out != in {
					t.Errorf("%s[%d] %q: changed to %q (%v)", class, i, text, out, ruleNames(c, fs))
				}
			}
		}
	}
	if total < 600 {
		t.Fatalf("only %d decoys", total)
	}
	t.Logf("%d decoys in %d classes", total, len(classes))
}
