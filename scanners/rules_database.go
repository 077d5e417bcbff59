package scanners

import "bytes"

// Databases: connection URLs and connection strings with passwords, and the
// tokens of hosted database services.
//
// Policy for connection URLs and strings: only the password is replaced, so
// that "postgres://app:[REDACTED:postgres-url]@db.internal:5432/shop" keeps
// the user, host and database readable. A literal weak password ("password",
// "changeme", "postgres") is a real leak and is redacted; only template
// placeholders (see templatePlaceholder) are left alone.

func databaseRules() []ruleDef {
	hex := "0123456789abcdef"
	pw := func(seed uint32) string { return fakeChars(base62Alphabet+"!%^*-_.~", 20, seed) }
	url := func(id, provider, desc string, schemes []string, drivers bool, examples func() (tp, fp []string)) ruleDef {
		return ruleDef{
			id: id, provider: provider, kind: KindSecret, confidence: "high",
			desc:     desc + " connection URL with a password (scheme://user:password@host); only the password is redacted, template placeholders are not",
			forms:    []form{dbURLForm(schemes, drivers)},
			examples: examples,
		}
	}
	return []ruleDef{
		{
			id: "planetscale-api-token", provider: "PlanetScale", kind: KindSecret, confidence: "high",
			desc:  "PlanetScale service token (pscale_tkn_ and 32-64 of [A-Za-z0-9_=.-])",
			forms: []form{tokenSpec{prefixes: []string{"pscale_tkn_"}, body: setPscale, notBefore: setPscaleNB, min: 32, max: 64}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"pscale_tkn_" + fakeChars(base62Alphabet+"_", 43, 35),
					"PLANETSCALE_SERVICE_TOKEN=pscale_tkn_" + fakeChars(base62Alphabet, 32, 36),
					"token: \"pscale_tkn_" + fakeChars(base62Alphabet+"-.", 64, 37) + "\"",
				}
				fp = []string{
					"pscale_tkn_" + fakeChars(base62Alphabet, 31, 38),
					"pscale_tkn_" + fakeChars(base62Alphabet, 65, 39),
					"mypscale_tkn_" + fakeChars(base62Alphabet, 43, 40),
				}
				return
			},
		},
		{
			id: "planetscale-password", provider: "PlanetScale", kind: KindSecret, confidence: "high",
			desc:  "PlanetScale database password (pscale_pw_ and 32-64 of [A-Za-z0-9_=.-])",
			forms: []form{tokenSpec{prefixes: []string{"pscale_pw_"}, body: setPscale, notBefore: setPscaleNB, min: 32, max: 64}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"pscale_pw_" + fakeChars(base62Alphabet+"_", 43, 41),
					"mysql://u:pscale_pw_" + fakeChars(base62Alphabet, 43, 42) + "@aws.connect.psdb.cloud/db",
					"DATABASE_PASSWORD='pscale_pw_" + fakeChars(base62Alphabet, 40, 43) + "'",
				}
				fp = []string{
					"pscale_pw_" + fakeChars(base62Alphabet, 20, 44),
					"pscale_pw_<your password>",
					"xpscale_pw_" + fakeChars(base62Alphabet, 43, 45),
				}
				return
			},
		},
		{
			id: "planetscale-oauth-token", provider: "PlanetScale", kind: KindSecret, confidence: "high",
			desc:  "PlanetScale OAuth token (pscale_oauth_ and 32-64 of [A-Za-z0-9_=.-])",
			forms: []form{tokenSpec{prefixes: []string{"pscale_oauth_"}, body: setPscale, notBefore: setPscaleNB, min: 32, max: 64}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"pscale_oauth_" + fakeChars(base62Alphabet, 43, 46),
					"Authorization: pscale_oauth_" + fakeChars(base62Alphabet+"_", 50, 47),
					"{\"token\":\"pscale_oauth_" + fakeChars(base62Alphabet, 32, 48) + "\"}",
				}
				fp = []string{
					"pscale_oauth_" + fakeChars(base62Alphabet, 16, 49),
					"pscale_oauth_token",
					"pscale_oauth_" + fakeChars(base62Alphabet, 70, 50),
				}
				return
			},
		},
		{
			id: "supabase-access-token", provider: "Supabase", kind: KindSecret, confidence: "high",
			desc:  "Supabase personal access token (sbp_ and 40 hex)",
			forms: []form{tokenSpec{prefixes: []string{"sbp_"}, body: makeSet("a-f0-9"), min: 40, max: 40}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"sbp_" + fakeChars(hex, 40, 51),
					"SUPABASE_ACCESS_TOKEN=sbp_" + fakeChars(hex, 40, 52),
					"supabase login --token sbp_" + fakeChars(hex, 40, 53),
				}
				fp = []string{
					"sbp_" + fakeChars(hex, 39, 54),
					"sbp_" + fakeChars(hex, 40, 55) + "0",
					"sbp_" + fakeChars("ghijklmnopqrstuvwxyz", 40, 56),
				}
				return
			},
		},
		{
			id: "supabase-secret-key", provider: "Supabase", kind: KindSecret, confidence: "high",
			desc:  "Supabase secret API key (sb_secret_ and 24-64 of [A-Za-z0-9_-]); sb_publishable_ keys are public",
			forms: []form{tokenSpec{prefixes: []string{"sb_secret_"}, body: setWordDash, min: 24, max: 64}.form()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"sb_secret_" + fakeChars(base62Alphabet+"_-", 31, 57),
					"SUPABASE_SECRET_KEY=sb_secret_" + fakeChars(base62Alphabet, 40, 58),
					"'sb_secret_" + fakeChars(base62Alphabet, 24, 59) + "'",
				}
				fp = []string{
					"sb_publishable_" + fakeChars(base62Alphabet, 31, 60),
					"sb_secret_" + fakeChars(base62Alphabet, 12, 61),
					"sb_secret_key_name",
				}
				return
			},
		},
		{
			id: "clickhouse-cloud-key", provider: "ClickHouse", kind: KindSecret, confidence: "medium",
			desc: "ClickHouse Cloud API secret key (4b1d and 38 alphanumerics mixing letters and digits)",
			forms: []form{plainForm(tokenSpec{prefixes: []string{"4b1d"}, body: setAlnum, min: 38, max: 38, validate: func(b []byte) (bool, ChecksumResult) {
				u, l, d := hasClasses(b)
				return d && (u || l), ChecksumNone
			}})},
			examples: func() (tp, fp []string) {
				tp = []string{
					"4b1d" + fakeChars(base62Alphabet, 38, 62),
					"CLICKHOUSE_KEY_SECRET=4b1d" + fakeChars(base62Alphabet, 38, 63),
					"key_secret: \"4b1d" + fakeChars(base62Alphabet, 38, 64) + "\"",
				}
				fp = []string{
					"4b1d" + fakeChars(base62Alphabet, 37, 65),
					"e3b04b1d" + fakeChars(hex, 38, 66),
					"4b1d" + fakeChars("abcdefghijklmnopqrstuvwxyz", 38, 67),
				}
				return
			},
		},
		url("postgres-url", "PostgreSQL", "PostgreSQL (postgres://, postgresql://, postgresql+driver://)", []string{"postgres", "postgresql"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"DATABASE_URL=postgres://app:" + pw(1) + "@db.internal:5432/shop",
					"postgresql+psycopg2://admin:password@localhost/test",
					"jdbc:postgresql://report:" + pw(2) + "@10.0.0.5/warehouse?sslmode=require",
					"postgres://svc:p@ss/w0rd@db:5432/x",
				}
				fp = []string{
					"postgres://app:${DB_PASSWORD}@db.internal:5432/shop",
					"postgres://app@db.internal:5432/shop",
					"postgresql://<user>:<password>@<host>:<port>/<db>",
					"postgres://db.internal:5432/shop?application_name=a@b",
					"mypostgres://app:" + pw(3) + "@db/x",
				}
				return
			}),
		url("mysql-url", "MySQL", "MySQL (mysql://, mysqlx://, mysql+driver://)", []string{"mysql", "mysqlx"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"mysql://root:" + pw(4) + "@127.0.0.1:3306/app",
					"SQLALCHEMY_DATABASE_URI = 'mysql+pymysql://web:changeme@mysql/web'",
					"mysqlx://u:" + pw(5) + "@h:33060/db",
				}
				fp = []string{
					"mysql://root:****@127.0.0.1:3306/app",
					"mysql://root@localhost/app",
					"mysql://user:$MYSQL_PASSWORD@db/app",
					"mysql://host:3306/db@archive",
				}
				return
			}),
		url("mariadb-url", "MariaDB", "MariaDB (mariadb://, mariadb+driver://)", []string{"mariadb"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"mariadb://app:" + pw(6) + "@maria:3306/app",
					"mariadb+mariadbconnector://u:" + pw(7) + "@h/db",
					"url: \"mariadb://:" + pw(8) + "@h/db\"",
				}
				fp = []string{
					"mariadb://app:{{ .Password }}@maria/app",
					"mariadb://maria:3306/app",
					"mariadb://app:[password]@maria/app",
				}
				return
			}),
		url("mongodb-url", "MongoDB", "MongoDB (mongodb://, mongodb+srv://)", []string{"mongodb"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"mongodb+srv://atlas:" + pw(9) + "@cluster0.ab1cd.mongodb.net/?retryWrites=true&w=majority",
					"MONGO_URL=mongodb://root:example@mongo:27017,mongo2:27017/admin?replicaSet=rs0",
					"mongodb://u%40corp:" + pw(10) + "@m1/db",
				}
				fp = []string{
					"mongodb+srv://atlas:<password>@cluster0.ab1cd.mongodb.net/",
					"mongodb://mongo:27017/admin",
					"mongodb+srv://cluster0.ab1cd.mongodb.net/db --username atlas",
				}
				return
			}),
		url("redis-url", "Redis", "Redis and Valkey (redis://, rediss://, redis+sentinel://, valkey://)", []string{"redis", "rediss", "valkey", "valkeys"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"REDIS_URL=redis://:" + pw(11) + "@cache:6379/0",
					"rediss://default:" + pw(12) + "@eu1-upstash.io:6379",
					"redis+sentinel://:" + pw(13) + "@s1:26379/mymaster",
				}
				fp = []string{
					"redis://cache:6379/0",
					"redis://:%(redis_password)s@cache:6379",
					"rediss://default:xxxxxxxx@host:6379",
				}
				return
			}),
		url("amqp-url", "RabbitMQ", "AMQP brokers (amqp://, amqps://)", []string{"amqp", "amqps"}, false,
			func() (tp, fp []string) {
				tp = []string{
					"amqp://guest:guest@localhost:5672/",
					"CELERY_BROKER_URL=amqps://worker:" + pw(14) + "@b-1.mq.eu-west-1.amazonaws.com:5671",
					"'amqp://svc:" + pw(15) + "@rabbit/vhost'",
				}
				fp = []string{
					"amqp://localhost:5672/",
					"amqp://guest:${RABBIT_PASS}@localhost:5672/",
					"xamqp://guest:" + pw(16) + "@h/",
				}
				return
			}),
		url("sqlserver-url", "Microsoft SQL Server", "SQL Server (sqlserver://, mssql://, mssql+driver://)", []string{"sqlserver", "mssql"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"sqlserver://sa:" + pw(17) + "@localhost:1433?database=master",
					"mssql+pyodbc://sa:Passw0rd!@sql/db?driver=ODBC+Driver+18",
					"mssql://app:" + pw(18) + "@sql.internal/app",
				}
				fp = []string{
					"sqlserver://localhost:1433?database=master",
					"mssql://sa:<YourStrong!Passw0rd>@localhost",
					"sqlserver://sa:...@localhost",
				}
				return
			}),
		url("clickhouse-url", "ClickHouse", "ClickHouse (clickhouse://, clickhouse+driver://)", []string{"clickhouse"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"clickhouse://default:" + pw(19) + "@ch.example.internal:9000/default",
					"clickhouse+native://u:" + pw(20) + "@ch/db",
					"dsn: clickhouse://reader:" + pw(21) + "@10.1.2.3:8123",
				}
				fp = []string{
					"clickhouse://ch.example.internal:9000/default",
					"clickhouse://default:$CH_PASSWORD@ch:9000",
					"clickhouse-client --host ch --password",
				}
				return
			}),
		url("cockroachdb-url", "CockroachDB", "CockroachDB (cockroachdb://, cockroach://, cockroachdb+driver://)", []string{"cockroachdb", "cockroach"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"cockroachdb://root:" + pw(22) + "@crdb:26257/defaultdb?sslmode=verify-full",
					"cockroachdb+psycopg2://app:" + pw(23) + "@crdb/app",
					"cockroach://u:" + pw(24) + "@h:26257/db",
				}
				fp = []string{
					"cockroachdb://root@crdb:26257/defaultdb",
					"cockroachdb://app:{password}@crdb/app",
					"cockroach start --insecure",
				}
				return
			}),
		url("snowflake-url", "Snowflake", "Snowflake (snowflake://)", []string{"snowflake"}, false,
			func() (tp, fp []string) {
				tp = []string{
					"snowflake://etl:" + pw(25) + "@xy12345.eu-central-1/analytics/public?warehouse=wh",
					"SNOWFLAKE_URL=snowflake://svc:" + pw(26) + "@acct/db",
					"\"snowflake://dbt:" + pw(27) + "@org-acct/raw\"",
				}
				fp = []string{
					"snowflake://etl@xy12345/analytics?authenticator=externalbrowser",
					"snowflake://etl:<password>@xy12345/analytics",
					"snowflake://xy12345.snowflakecomputing.com",
				}
				return
			}),
		url("neo4j-url", "Neo4j", "Neo4j (neo4j://, neo4j+s://, bolt://, bolt+s://)", []string{"neo4j", "bolt"}, true,
			func() (tp, fp []string) {
				tp = []string{
					"neo4j+s://neo4j:" + pw(28) + "@abcd1234.databases.neo4j.io",
					"bolt://neo4j:test@localhost:7687",
					"NEO4J_URI=neo4j://app:" + pw(29) + "@graph:7687",
				}
				fp = []string{
					"neo4j+s://abcd1234.databases.neo4j.io",
					"bolt://localhost:7687",
					"neo4j://neo4j:${NEO4J_PASSWORD}@graph:7687",
				}
				return
			}),
		{
			id: "oracle-jdbc-password", provider: "Oracle", kind: KindSecret, confidence: "high",
			desc:  "Oracle JDBC URL with user/password (jdbc:oracle:thin:user/password@host); only the password is redacted",
			forms: []form{oracleForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"jdbc:oracle:thin:scott/tiger@db.example.com:1521/ORCL",
					"url=jdbc:oracle:thin:app/" + pw(30) + "@//ora:1521/svc",
					"jdbc:oracle:oci:hr/" + pw(31) + "@orcl",
				}
				fp = []string{
					"jdbc:oracle:thin:@db.example.com:1521/ORCL",
					"jdbc:oracle:thin:app/${ORACLE_PASSWORD}@ora:1521/svc",
					"jdbc:oracle:thin:@//ora:1521/svc user/pass in properties",
				}
				return
			},
		},
		{
			id: "connection-string-password", provider: "generic", kind: KindSecret, confidence: "high",
			desc: "Password inside an ADO.NET, ODBC or JDBC connection string: ;Password= or ;Pwd= " +
				"(a {braced} or 'quoted' value is read to its closing brace or quote); only the value is redacted, template placeholders are not",
			forms: []form{connStringForm()},
			examples: func() (tp, fp []string) {
				tp = []string{
					"Server=tcp:sql.database.windows.net,1433;Initial Catalog=app;User ID=app;Password=" + pw(32) + ";Encrypt=True;",
					"Driver={ODBC Driver 18 for SQL Server};Server=sql;Uid=sa;Pwd={" + pw(33) + ";x};",
					"jdbc:sqlserver://sql:1433;databaseName=app;user=app;password=" + pw(34) + ";encrypt=true",
					"Data Source=ora;User Id=hr; Password = '" + pw(35) + "';",
				}
				fp = []string{
					"Server=sql;Database=app;Password=${SQL_PASSWORD};",
					"Server=sql;Database=app;Integrated Security=true;",
					"Server=sql;Database=app;Password=;",
					"see the docs; password reset is self-service",
					"Server=sql;Password Expiry=30;",
				}
				return
			},
		},
	}
}

var (
	setPscale   = makeSet("A-Za-z0-9_=.-")
	setPscaleNB = makeSet("A-Za-z0-9_.-") // '=' may precede: NAME=pscale_…
	// setB64NB is the notBefore of tokens with a base64 body: a base64 or
	// word byte, but not '=' (NAME=token).
	setB64NB = makeSet("A-Za-z0-9+/_")
)

// plainForm is t.form() for a spec whose validate never reports
// ChecksumValid: the byte before the prefix is then tested without calling
// the check (the check rejects it too), which keeps runs such as "AAAA…"
// inside base64 cheap.
func plainForm(t tokenSpec) form {
	f := t.form()
	if t.notBefore == nil {
		t.notBefore = union(t.body, setWord)
	}
	f.notBefore = t.notBefore
	return f
}

// scanCursor reads a view's data and remembers whether it looked past the end,
// so that a check can ask for more bytes (see done).
type scanCursor struct {
	d     []byte
	short bool
}

// at returns the byte at i, or -1 past the data (recording that).
func (c *scanCursor) at(i int) int {
	if i >= 0 && i < len(c.d) {
		return int(c.d[i])
	}
	if i >= len(c.d) {
		c.short = true
	}
	return -1
}

// run returns the end of the run of set bytes from i, reading at most
// max+1 of them (so that a run longer than max is reported as max+1).
func (c *scanCursor) run(i int, set *byteSet, max int) int {
	s := i
	for i-s <= max {
		b := c.at(i)
		if b < 0 || !set[b] {
			break
		}
		i++
	}
	return i
}

// is reports whether the byte at i is in set.
func (c *scanCursor) is(i int, set *byteSet) bool {
	b := c.at(i)
	return b >= 0 && set[b]
}

// done turns r into resMore when the check looked past the data and the
// string goes on: its answer could depend on the missing bytes.
func (c *scanCursor) done(v *view, r result) result {
	if c.short && !v.atEnd {
		return result{status: resMore}
	}
	return r
}

// templatePlaceholder reports whether a value is a template placeholder rather
// than a literal: it contains ${, {{ or $(; or it is <…>, […], {…}, %…%,
// %(…, %s, $NAME, or only '*', only '.', only x/X. "[…]" also covers the
// redaction markers, so a second pass changes nothing.
func templatePlaceholder(v []byte) bool {
	n := len(v)
	if n == 0 {
		return true
	}
	if bytes.Contains(v, []byte("${")) || bytes.Contains(v, []byte("{{")) || bytes.Contains(v, []byte("$(")) {
		return true
	}
	f, l := v[0], v[n-1]
	switch {
	case n >= 2 && (f == '<' && l == '>' || f == '[' && l == ']' || f == '{' && l == '}'):
		return true
	case n >= 2 && f == '%' && (l == '%' || v[1] == '(' || n == 2 && v[1] == 's'):
		return true
	case n >= 2 && f == '$':
		for _, c := range v[1:] {
			if !setWord[c] {
				return false
			}
		}
		return true
	}
	switch f {
	case '*', '.':
		return bytes.Count(v, v[:1]) == n
	case 'x', 'X':
		for _, c := range v {
			if c != 'x' && c != 'X' {
				return false
			}
		}
		return true
	}
	return false
}

// dbURLMax bounds the authority (user:password@host) of a connection URL.
const dbURLMax = 256

var (
	setURLStop  = makeSet("\t\n\f\r \"'`<>\\?#")
	setSchemeNB = makeSet("A-Za-z0-9_+.-")
	setDriver   = makeSet("A-Za-z0-9_")
	setDecimal  = makeSet("0-9")
)

// dbURLForm: scheme "://" (or scheme "+" driver "://" when drivers, the
// driver 1-24 of [A-Za-z0-9_]), not preceded by [A-Za-z0-9_+.-]; "://" may
// also be written ":\/\/" (JSON text with escaped slashes). The
// authority is what follows, up to the first of whitespace, quote, <, >,
// backslash, ? or # and at most dbURLMax bytes. Its last '@' ends the user
// info; the first ':' in the user info separates user (no '/') from password.
// The password (between them) must be non-empty, not a placeholder and not
// digits followed by '/' (a port and a path: "host:5432/db@x"). The match is
// the password.
func dbURLForm(schemes []string, drivers bool) form {
	var kws []string
	for _, s := range schemes {
		kws = append(kws, s+"://", s+`:\/\/`)
		if drivers {
			kws = append(kws, s+"+")
		}
	}
	return form{
		keywords:  kws,
		back:      1,
		ahead:     18 + 25 + 5 + dbURLMax + 1,
		notBefore: setSchemeNB,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if ks > 0 && setSchemeNB[d[ks-1]] {
				return noMatch
			}
			c := scanCursor{d: d}
			i := ke
			if d[ke-1] == '+' {
				j := c.run(i, setDriver, 24)
				n := schemeSep(&c, j)
				if j == i || j-i > 24 || n == 0 {
					return c.done(v, noMatch)
				}
				i = j + n
			}
			s := i
			for i-s < dbURLMax {
				b := c.at(i)
				if b < 0 || setURLStop[b] {
					break
				}
				i++
			}
			t := d[s:min(i, len(d))]
			at := bytes.LastIndexByte(t, '@')
			if at < 0 {
				return c.done(v, noMatch)
			}
			colon := bytes.IndexByte(t[:at], ':')
			if colon < 0 || bytes.IndexByte(t[:colon], '/') >= 0 {
				return c.done(v, noMatch)
			}
			p := t[colon+1 : at]
			if templatePlaceholder(p) || portPath(p) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: s + colon + 1, end: s + at})
		},
	}
}

// schemeSep returns the length of "://" or ":\/\/" at i, or 0.
func schemeSep(c *scanCursor, i int) int {
	if c.at(i) != ':' {
		return 0
	}
	if c.at(i+1) == '/' && c.at(i+2) == '/' {
		return 3
	}
	if c.at(i+1) == '\\' && c.at(i+2) == '/' && c.at(i+3) == '\\' && c.at(i+4) == '/' {
		return 5
	}
	return 0
}

// portPath reports whether p is digits followed by '/'.
func portPath(p []byte) bool {
	i := 0
	for i < len(p) && setDecimal[p[i]] {
		i++
	}
	return i > 0 && i < len(p) && p[i] == '/'
}

// oracleForm: "jdbc:oracle:thin:" or "jdbc:oracle:oci:", a user of 1-64
// [A-Za-z0-9_$#.], '/', then the password: 1-128 bytes up to the first '@'
// (no whitespace, quote, < or >), not a placeholder.
func oracleForm() form {
	user := makeSet("A-Za-z0-9_$#.")
	pass := union(makeSet("\x21-\x7e"), makeSet("\x80-\xff"))
	for _, b := range []byte("\"'`<>@\\") {
		pass[b] = false
	}
	return form{
		keywords: []string{"jdbc:oracle:thin:", "jdbc:oracle:oci:"},
		back:     1,
		ahead:    len("jdbc:oracle:thin:") + 65 + 130,
		check: func(v *view, ks, ke int) result {
			c := scanCursor{d: v.data}
			u := c.run(ke, user, 64)
			if u == ke || u-ke > 64 || c.at(u) != '/' {
				return c.done(v, noMatch)
			}
			p := c.run(u+1, pass, 128)
			if p == u+1 || p-(u+1) > 128 || c.at(p) != '@' || templatePlaceholder(v.data[u+1:p]) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: u + 1, end: p})
		},
	}
}

// connStrMax bounds a connection-string password.
const connStrMax = 256

var (
	setConnStop = makeSet(";\r\n\"'`<>")
	setSpaceTab = makeSet(" \t")
)

// connStringForm: one of ";password", "; password", ";pwd", "; pwd" (any
// case), then at most 8 blanks, '=', at most 8 blanks, then the value: from
// an opening brace to the next closing brace, from a single quote to the
// next single quote, or else the bytes up to ';', a line end, a quote, < or
// >, with trailing blanks trimmed. At most connStrMax bytes (longer: no
// match), non-empty, not a placeholder. The match is the value (inside the
// braces or quotes). Passwords in URL queries (?password=) are left to the
// generic context rules (rules_context.go).
func connStringForm() form {
	return form{
		keywords: []string{";password", "; password", ";pwd", "; pwd"},
		back:     1,
		ahead:    len("; password") + 9 + 1 + 9 + connStrMax + 2,
		check: func(v *view, ks, ke int) result {
			d := v.data
			c := scanCursor{d: d}
			i := c.run(ke, setSpaceTab, 8)
			if i-ke > 8 || c.at(i) != '=' {
				return c.done(v, noMatch)
			}
			j := c.run(i+1, setSpaceTab, 8)
			if j-(i+1) > 8 {
				return c.done(v, noMatch)
			}
			s, e := j, j
			switch b := c.at(j); b {
			case '{', '\'':
				cl := byte('}')
				if b == '\'' {
					cl = '\''
				}
				s = j + 1
				e = s
				for e-s <= connStrMax {
					x := c.at(e)
					if x < 0 || x == int(cl) {
						break
					}
					e++
				}
				if c.at(e) != int(cl) {
					return c.done(v, noMatch)
				}
			default:
				for e-s <= connStrMax {
					x := c.at(e)
					if x < 0 || setConnStop[x] {
						break
					}
					e++
				}
				if e-s > connStrMax {
					return c.done(v, noMatch)
				}
				for e > s && setSpaceTab[d[e-1]] {
					e--
				}
			}
			if e-s > connStrMax || templatePlaceholder(d[s:e]) {
				return c.done(v, noMatch)
			}
			return c.done(v, result{status: resMatch, start: s, end: e})
		},
	}
}
