package bench

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"net/url"
	"strings"
)

// This file holds independent generators of format-valid fake credentials,
// one per provider format, written from vendor documentation and the public
// gitleaks v8.30.1 rule set (token prefixes, alphabets, lengths). They do
// not look at this module's rules or their examples: the corpus must
// measure the catalog, not mirror it. Every value is drawn from the
// generator's random source at run time; nothing credential-shaped is a
// literal here besides public prefixes.

// fake is one generated credential and how it is written.
type fake struct {
	family   string // ai, vcs-ci, cloud, payments, messaging, registry, database, observability, identity, vault, private-key, generic, encoded
	provider string // github, aws, ...
	typ      string // stable corpus type, e.g. "github-classic-pat"
	// name is the variable or key the value is assigned to ("GITHUB_TOKEN");
	// empty when the value carries its own context (a URL, a header).
	name string
	// lead is written before value when name is empty or the shape has no
	// assignment syntax ("Authorization: Basic ", "postgres://app:").
	lead string
	// value is the labeled span; tail follows it ("@db:5432/app").
	value, tail string
	// needles must all vanish (nil: value itself).
	needles []string
	// inner is the credential inside an encoded value.
	inner     string
	multiline bool
	// prose values are set inside a sentence (decoys such as lorem ipsum).
	prose bool
	// jsonText values are already escaped for a JSON document and go only
	// into JSON text (the private key of a service-account file).
	jsonText bool
	// standalone values must keep lead and tail (a URL's password means
	// nothing without its URL); assignment contexts then assign the
	// whole lead+value+tail.
	standalone bool
}

// fakeKind builds one fake.
type fakeKind struct {
	typ string
	gen func(g *gen) fake
}

const (
	digits   = "0123456789"
	lowerHex = "0123456789abcdef"
	alnumLow = "0123456789abcdefghijklmnopqrstuvwxyz"
	letters  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	upperAN  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	pwChars  = base62 + "!#%*+-_.~"
)

func tok(family, provider, typ, name, value string) fake {
	return fake{family: family, provider: provider, typ: typ, name: name, value: value}
}

// fakeKinds lists every fake credential type of the corpus, in a stable
// order (the corpus cycles through it).
var fakeKinds = []fakeKind{
	// ---- AI providers ----
	{"openai-project-key", func(g *gen) fake {
		n := g.pick([]string{"74", "58"})
		l := 74
		if n == "58" {
			l = 58
		}
		return tok("ai", "openai", "openai-project-key", g.pick([]string{"OPENAI_API_KEY", "openai_api_key", "OPENAI_KEY"}),
			"sk-proj-"+g.mixed(wordDash, l)+"T3BlbkFJ"+g.mixed(wordDash, l))
	}},
	{"openai-service-account-key", func(g *gen) fake {
		return tok("ai", "openai", "openai-service-account-key", "OPENAI_API_KEY", "sk-svcacct-"+g.mixed(wordDash, 74)+"T3BlbkFJ"+g.mixed(wordDash, 74))
	}},
	{"openai-legacy-key", func(g *gen) fake {
		return tok("ai", "openai", "openai-legacy-key", "OPENAI_API_KEY", "sk-"+g.mixed(base62, 20)+"T3BlbkFJ"+g.mixed(base62, 20))
	}},
	{"anthropic-api-key", func(g *gen) fake {
		return tok("ai", "anthropic", "anthropic-api-key", g.pick([]string{"ANTHROPIC_API_KEY", "anthropic_key", "x-api-key"}), "sk-ant-api03-"+g.mixed(wordDash, 93)+"AA")
	}},
	{"anthropic-admin-key", func(g *gen) fake {
		return tok("ai", "anthropic", "anthropic-admin-key", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-"+g.mixed(wordDash, 93)+"AA")
	}},
	{"huggingface-token", func(g *gen) fake {
		return tok("ai", "huggingface", "huggingface-token", g.pick([]string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"}), "hf_"+g.mixedLetters(34))
	}},
	{"cohere-api-key", func(g *gen) fake {
		return tok("ai", "cohere", "cohere-api-key", g.pick([]string{"COHERE_API_KEY", "CO_API_KEY"}), g.mixed(base62, 40))
	}},
	{"groq-api-key", func(g *gen) fake {
		// 52 base62 with the marker WGdyb3FY (base64 of "Xgroq") at byte 20.
		return tok("ai", "groq", "groq-api-key", "GROQ_API_KEY", "gsk_"+g.mixed(base62, 20)+"WGdyb3FY"+g.mixed(base62, 24))
	}},
	{"replicate-api-token", func(g *gen) fake {
		return tok("ai", "replicate", "replicate-api-token", "REPLICATE_API_TOKEN", "r8_"+g.mixed(base62, 37))
	}},
	{"perplexity-api-key", func(g *gen) fake {
		return tok("ai", "perplexity", "perplexity-api-key", "PERPLEXITY_API_KEY", "pplx-"+g.mixed(base62, 48))
	}},

	{"xai-api-key", func(g *gen) fake {
		return tok("ai", "xai", "xai-api-key", "XAI_API_KEY", "xai-"+g.mixed(base62, 80))
	}},
	{"openrouter-api-key", func(g *gen) fake {
		return tok("ai", "openrouter", "openrouter-api-key", "OPENROUTER_API_KEY", "sk-or-v1-"+g.chars(lowerHex, 64))
	}},
	{"nvidia-api-key", func(g *gen) fake {
		return tok("ai", "nvidia", "nvidia-api-key", "NVIDIA_API_KEY", "nvapi-"+g.mixed(wordDash, 64))
	}},
	{"tavily-api-key", func(g *gen) fake {
		return tok("ai", "tavily", "tavily-api-key", "TAVILY_API_KEY", "tvly-"+g.pick([]string{"", "dev-", "prod-"})+g.mixed(base62, 32))
	}},
	{"langfuse-secret-key", func(g *gen) fake {
		return tok("ai", "langfuse", "langfuse-secret-key", "LANGFUSE_SECRET_KEY", "sk-lf-"+g.uuid())
	}},
	{"langsmith-api-key", func(g *gen) fake {
		return tok("ai", "langsmith", "langsmith-api-key", "LANGSMITH_API_KEY", g.pick([]string{"lsv2_pt_", "lsv2_sk_"})+g.chars(lowerHex, 32)+"_"+g.chars(lowerHex, 10))
	}},

	// ---- source hosting and CI ----
	{"github-classic-pat", func(g *gen) fake {
		return tok("vcs-ci", "github", "github-classic-pat", g.pick([]string{"GITHUB_TOKEN", "GH_TOKEN", "github_token"}), withCRC("ghp_", g.mixed(base62, 30)))
	}},
	{"github-fine-grained-pat", func(g *gen) fake {
		return tok("vcs-ci", "github", "github-fine-grained-pat", "GITHUB_TOKEN", "github_pat_"+g.mixed(base62, 22)+"_"+g.mixed(base62, 59))
	}},
	{"github-oauth-token", func(g *gen) fake {
		return tok("vcs-ci", "github", "github-oauth-token", "access_token", withCRC("gho_", g.mixed(base62, 30)))
	}},
	{"github-user-to-server-token", func(g *gen) fake {
		return tok("vcs-ci", "github", "github-user-to-server-token", "GH_APP_USER_TOKEN", withCRC("ghu_", g.mixed(base62, 30)))
	}},
	{"github-app-installation-token", func(g *gen) fake {
		return tok("vcs-ci", "github", "github-app-installation-token", "GITHUB_APP_TOKEN", withCRC("ghs_", g.mixed(base62, 30)))
	}},
	{"github-refresh-token", func(g *gen) fake {
		return tok("vcs-ci", "github", "github-refresh-token", "refresh_token", withCRC("ghr_", g.mixed(base62, 30)))
	}},
	{"gitlab-pat", func(g *gen) fake {
		return tok("vcs-ci", "gitlab", "gitlab-pat", g.pick([]string{"GITLAB_TOKEN", "CI_JOB_PAT", "PRIVATE-TOKEN"}), "glpat-"+g.mixed(wordDash, 20))
	}},
	{"gitlab-pipeline-trigger-token", func(g *gen) fake {
		return tok("vcs-ci", "gitlab", "gitlab-pipeline-trigger-token", "TRIGGER_TOKEN", "glptt-"+g.chars(lowerHex, 40))
	}},
	{"gitlab-runner-token", func(g *gen) fake {
		return tok("vcs-ci", "gitlab", "gitlab-runner-token", "RUNNER_TOKEN", "glrt-"+g.mixed(wordDash, 20))
	}},
	{"gitlab-deploy-token", func(g *gen) fake {
		return tok("vcs-ci", "gitlab", "gitlab-deploy-token", "DEPLOY_TOKEN", "gldt-"+g.mixed(base62, 20))
	}},
	{"bitbucket-app-password", func(g *gen) fake {
		// ATBB, 24 base62, then the upper-case hex CRC32 of what precedes.
		return tok("vcs-ci", "bitbucket", "bitbucket-app-password", "BITBUCKET_APP_PASSWORD", withHexCRC("ATBB"+g.mixed(base62, 24)))
	}},
	{"atlassian-api-token", func(g *gen) fake {
		// ATATT3, 177 URL-safe characters and "=", then the upper-case hex
		// CRC32 of what precedes.
		return tok("vcs-ci", "atlassian", "atlassian-api-token", "JIRA_API_TOKEN", withHexCRC("ATATT3"+g.mixed(wordDash, 177)+"="))
	}},
	{"circleci-personal-token", func(g *gen) fake {
		return tok("vcs-ci", "circleci", "circleci-personal-token", "CIRCLECI_TOKEN", "CCIPAT_"+g.mixed(base62, 22)+"_"+g.chars(lowerHex, 40))
	}},

	// ---- cloud ----
	{"aws-access-key-id", func(g *gen) fake {
		return tok("cloud", "aws", "aws-access-key-id", g.pick([]string{"AWS_ACCESS_KEY_ID", "aws_access_key_id", "AccessKeyId"}),
			g.pick([]string{"AKIA", "ASIA"})+g.chars(upperB32, 16))
	}},
	{"aws-secret-access-key", func(g *gen) fake {
		return tok("cloud", "aws", "aws-secret-access-key", g.pick([]string{"AWS_SECRET_ACCESS_KEY", "aws_secret_access_key", "SecretAccessKey"}), g.mixed(b64chars, 40))
	}},
	{"gcp-api-key", func(g *gen) fake {
		return tok("cloud", "gcp", "gcp-api-key", g.pick([]string{"GOOGLE_API_KEY", "GEMINI_API_KEY", "apiKey"}), "AIza"+g.mixed(wordDash, 35))
	}},
	{"azure-storage-account-key", func(g *gen) fake {
		key := g.b64(64)
		return fake{family: "cloud", provider: "azure", typ: "azure-storage-account-key", name: "AZURE_STORAGE_CONNECTION_STRING",
			lead:  "DefaultEndpointsProtocol=https;AccountName=" + strings.ReplaceAll(g.pick(words), "-", "") + fmt.Sprint(g.rng.IntN(100)) + ";AccountKey=",
			value: key, tail: ";EndpointSuffix=core.windows.net", standalone: true}
	}},
	{"azure-sas-token", func(g *gen) fake {
		sig := url.QueryEscape(g.b64(32))
		return fake{family: "cloud", provider: "azure", typ: "azure-sas-token", name: "BLOB_SAS_URL",
			lead: fmt.Sprintf("https://%s.blob.core.windows.net/%s?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-12-31T23:59:59Z&st=2025-01-01T00:00:00Z&spr=https&sig=",
				strings.ReplaceAll(g.pick(words), "-", "")+"store", g.pick(words)),
			value: sig, standalone: true}
	}},
	{"azure-ad-client-secret", func(g *gen) fake {
		return tok("cloud", "azure", "azure-ad-client-secret", g.pick([]string{"AZURE_CLIENT_SECRET", "ClientSecret"}),
			g.chars(base62, 3)+g.chars(digits, 1)+"Q~"+g.mixed(base62+"_~.-", 34))
	}},
	{"digitalocean-pat", func(g *gen) fake {
		return tok("cloud", "digitalocean", "digitalocean-pat", "DIGITALOCEAN_TOKEN", g.pick([]string{"dop_v1_", "doo_v1_"})+g.chars(lowerHex, 64))
	}},
	{"cloudflare-api-token", func(g *gen) fake {
		return tok("cloud", "cloudflare", "cloudflare-api-token", "CLOUDFLARE_API_TOKEN", g.mixed(wordDash, 40))
	}},
	{"cloudflare-global-api-key", func(g *gen) fake {
		return tok("cloud", "cloudflare", "cloudflare-global-api-key", "CF_API_KEY", g.chars(lowerHex, 37))
	}},
	{"heroku-api-key", func(g *gen) fake {
		return tok("cloud", "heroku", "heroku-api-key", "HEROKU_API_KEY", "HRKU-AA"+g.mixed(wordDash, 58))
	}},

	// ---- payments ----
	{"stripe-live-secret-key", func(g *gen) fake {
		return tok("payments", "stripe", "stripe-live-secret-key", g.pick([]string{"STRIPE_SECRET_KEY", "stripe_api_key"}), "sk_live_"+g.mixed(base62, 24+g.rng.IntN(76)))
	}},
	{"stripe-test-secret-key", func(g *gen) fake {
		return tok("payments", "stripe", "stripe-test-secret-key", "STRIPE_SECRET_KEY", "sk_test_"+g.mixed(base62, 24+g.rng.IntN(76)))
	}},
	{"stripe-restricted-key", func(g *gen) fake {
		return tok("payments", "stripe", "stripe-restricted-key", "STRIPE_RESTRICTED_KEY", "rk_live_"+g.mixed(base62, 24+g.rng.IntN(76)))
	}},
	{"stripe-webhook-secret", func(g *gen) fake {
		return tok("payments", "stripe", "stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", "whsec_"+g.mixed(base62, 32))
	}},
	{"square-access-token", func(g *gen) fake {
		v := "EAAA" + g.mixed(wordDash, 60)
		if g.rng.IntN(2) == 0 {
			v = "sq0atp-" + g.mixed(wordDash, 22)
		}
		return tok("payments", "square", "square-access-token", "SQUARE_ACCESS_TOKEN", v)
	}},
	{"square-oauth-secret", func(g *gen) fake {
		return tok("payments", "square", "square-oauth-secret", "SQUARE_APPLICATION_SECRET", "sq0csp-"+g.mixed(wordDash, 43))
	}},
	{"braintree-access-token", func(g *gen) fake {
		return tok("payments", "paypal", "braintree-access-token", "BRAINTREE_ACCESS_TOKEN",
			"access_token$production$"+g.chars(alnumLow, 16)+"$"+g.chars(lowerHex, 32))
	}},
	{"paypal-client-secret", func(g *gen) fake {
		return tok("payments", "paypal", "paypal-client-secret", "PAYPAL_CLIENT_SECRET", "E"+g.mixed(wordDash, 79))
	}},

	// ---- messaging ----
	{"slack-bot-token", func(g *gen) fake {
		return tok("messaging", "slack", "slack-bot-token", g.pick([]string{"SLACK_BOT_TOKEN", "slack_token"}),
			"xoxb-"+g.chars(digits, 12)+"-"+g.chars(digits, 13)+"-"+g.mixed(base62, 24))
	}},
	{"slack-user-token", func(g *gen) fake {
		return tok("messaging", "slack", "slack-user-token", "SLACK_USER_TOKEN",
			"xoxp-"+g.chars(digits, 12)+"-"+g.chars(digits, 12)+"-"+g.chars(digits, 13)+"-"+g.chars(lowerHex, 32))
	}},
	{"slack-app-token", func(g *gen) fake {
		return tok("messaging", "slack", "slack-app-token", "SLACK_APP_TOKEN",
			"xapp-1-A"+g.chars(upperAN, 10)+"-"+g.chars(digits, 13)+"-"+g.chars(lowerHex, 64))
	}},
	{"slack-webhook-url", func(g *gen) fake {
		sec := g.mixed(base62, 24)
		return fake{family: "messaging", provider: "slack", typ: "slack-webhook-url", name: "SLACK_WEBHOOK_URL",
			value: "https://hooks.slack.com/services/T" + g.chars(upperAN, 8) + "/B" + g.chars(upperAN, 10) + "/" + sec, needles: []string{sec}}
	}},
	{"twilio-api-key", func(g *gen) fake {
		return tok("messaging", "twilio", "twilio-api-key", "TWILIO_API_KEY", "SK"+g.chars(lowerHex, 32))
	}},
	{"twilio-auth-token", func(g *gen) fake {
		return tok("messaging", "twilio", "twilio-auth-token", "TWILIO_AUTH_TOKEN", g.chars(lowerHex, 32))
	}},
	{"sendgrid-api-key", func(g *gen) fake {
		return tok("messaging", "sendgrid", "sendgrid-api-key", "SENDGRID_API_KEY", "SG."+g.mixed(wordDash, 22)+"."+g.mixed(wordDash, 43))
	}},
	{"mailgun-api-key", func(g *gen) fake {
		return tok("messaging", "mailgun", "mailgun-api-key", "MAILGUN_API_KEY", "key-"+g.chars(lowerHex, 32))
	}},
	{"discord-bot-token", func(g *gen) fake {
		id := base64.RawStdEncoding.EncodeToString([]byte("1" + g.chars(digits, 17)))
		return tok("messaging", "discord", "discord-bot-token", "DISCORD_BOT_TOKEN", id+"."+g.mixed(wordDash, 6)+"."+g.mixed(wordDash, 38))
	}},
	{"discord-webhook-url", func(g *gen) fake {
		sec := g.mixed(wordDash, 68)
		return fake{family: "messaging", provider: "discord", typ: "discord-webhook-url", name: "DISCORD_WEBHOOK",
			value: "https://discord.com/api/webhooks/1" + g.chars(digits, 18) + "/" + sec, needles: []string{sec}}
	}},
	{"telegram-bot-token", func(g *gen) fake {
		return tok("messaging", "telegram", "telegram-bot-token", "TELEGRAM_BOT_TOKEN", "1"+g.chars(digits, 9)+":AA"+g.mixed(wordDash, 33))
	}},

	// ---- package registries ----
	{"npm-access-token", func(g *gen) fake {
		return tok("registry", "npm", "npm-access-token", g.pick([]string{"NPM_TOKEN", "//registry.npmjs.org/:_authToken"}), "npm_"+g.mixed(base62, 36))
	}},
	{"pypi-upload-token", func(g *gen) fake {
		return tok("registry", "pypi", "pypi-upload-token", g.pick([]string{"PYPI_TOKEN", "TWINE_PASSWORD"}), "pypi-AgEIcHlwaS5vcmc"+g.mixed(wordDash, 50+g.rng.IntN(120)))
	}},
	{"rubygems-api-key", func(g *gen) fake {
		return tok("registry", "rubygems", "rubygems-api-key", "GEM_HOST_API_KEY", "rubygems_"+g.chars(lowerHex, 48))
	}},
	{"nuget-api-key", func(g *gen) fake {
		return tok("registry", "nuget", "nuget-api-key", "NUGET_API_KEY", "oy2"+g.chars(alnumLow, 43))
	}},
	{"dockerhub-pat", func(g *gen) fake {
		return tok("registry", "docker", "dockerhub-pat", "DOCKERHUB_TOKEN", "dckr_pat_"+g.mixed(wordDash, 27))
	}},

	// ---- developer tools and SaaS ----
	{"shopify-access-token", func(g *gen) fake {
		return tok("devtools", "shopify", "shopify-access-token", "SHOPIFY_ACCESS_TOKEN", g.pick([]string{"shpat_", "shpss_", "shpca_", "shppa_"})+g.chars(lowerHex, 32))
	}},
	{"linear-api-key", func(g *gen) fake {
		return tok("devtools", "linear", "linear-api-key", "LINEAR_API_KEY", "lin_api_"+g.mixed(base62, 40))
	}},
	{"postman-api-key", func(g *gen) fake {
		return tok("devtools", "postman", "postman-api-key", "POSTMAN_API_KEY", "PMAK-"+g.chars(lowerHex, 24)+"-"+g.chars(lowerHex, 34))
	}},
	{"doppler-token", func(g *gen) fake {
		return tok("devtools", "doppler", "doppler-token", "DOPPLER_TOKEN", "dp.pt."+g.mixed(base62, 43))
	}},
	{"pulumi-access-token", func(g *gen) fake {
		return tok("devtools", "pulumi", "pulumi-access-token", "PULUMI_ACCESS_TOKEN", "pul-"+g.chars(lowerHex, 40))
	}},
	{"terraform-cloud-token", func(g *gen) fake {
		return tok("devtools", "hashicorp", "terraform-cloud-token", "TFE_TOKEN", g.mixed(base62, 14)+".atlasv1."+g.mixed(wordDash, 67))
	}},
	{"flyio-token", func(g *gen) fake {
		return tok("devtools", "flyio", "flyio-token", "FLY_API_TOKEN", "fo1_"+g.mixed(wordDash, 43))
	}},
	{"sourcegraph-token", func(g *gen) fake {
		return tok("devtools", "sourcegraph", "sourcegraph-token", "SRC_ACCESS_TOKEN", "sgp_"+g.chars(lowerHex, 16)+"_"+g.chars(lowerHex, 40))
	}},
	{"databricks-token", func(g *gen) fake {
		return tok("devtools", "databricks", "databricks-token", "DATABRICKS_TOKEN", "dapi"+g.chars(lowerHex, 32))
	}},
	{"planetscale-password", func(g *gen) fake {
		return tok("devtools", "planetscale", "planetscale-password", "PLANETSCALE_PASSWORD", "pscale_pw_"+g.mixed(wordDash, 43))
	}},
	{"airtable-pat", func(g *gen) fake {
		return tok("devtools", "airtable", "airtable-pat", "AIRTABLE_TOKEN", "pat"+g.mixed(base62, 14)+"."+g.chars(lowerHex, 64))
	}},
	{"infracost-api-key", func(g *gen) fake {
		return tok("devtools", "infracost", "infracost-api-key", "INFRACOST_API_KEY", "ico-"+g.mixed(base62, 32))
	}},
	{"openshift-token", func(g *gen) fake {
		return tok("devtools", "openshift", "openshift-token", "OPENSHIFT_TOKEN", "sha256~"+g.mixed(wordDash, 43))
	}},
	{"alibaba-access-key-id", func(g *gen) fake {
		return tok("cloud", "alibaba", "alibaba-access-key-id", "ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAI"+g.mixed(base62, 20))
	}},
	{"dynatrace-token", func(g *gen) fake {
		return tok("observability", "dynatrace", "dynatrace-token", "DT_API_TOKEN", "dt0c01."+g.chars(upperAN, 24)+"."+g.chars(upperAN, 64))
	}},
	{"brevo-api-key", func(g *gen) fake {
		return tok("messaging", "brevo", "brevo-api-key", "BREVO_API_KEY", "xkeysib-"+g.chars(lowerHex, 64)+"-"+g.mixed(base62, 16))
	}},
	{"mailchimp-api-key", func(g *gen) fake {
		return tok("messaging", "mailchimp", "mailchimp-api-key", "MAILCHIMP_API_KEY", g.chars(lowerHex, 32)+fmt.Sprintf("-us%d", 1+g.rng.IntN(21)))
	}},
	{"shippo-api-token", func(g *gen) fake {
		return tok("payments", "shippo", "shippo-api-token", "SHIPPO_API_KEY", g.pick([]string{"shippo_live_", "shippo_test_"})+g.chars(lowerHex, 40))
	}},
	{"easypost-api-key", func(g *gen) fake {
		return tok("payments", "easypost", "easypost-api-key", "EASYPOST_API_KEY", g.pick([]string{"EZAK", "EZTK"})+g.chars(alnumLow, 54))
	}},

	// ---- databases: connection strings with passwords ----
	{"postgres-url", func(g *gen) fake {
		return g.dbURL("postgres", g.pick([]string{"postgres", "postgresql"}), "db.internal:5432/app?sslmode=require")
	}},
	{"mysql-url", func(g *gen) fake { return g.dbURL("mysql", "mysql", "mysql-primary:3306/shop") }},
	{"mongodb-url", func(g *gen) fake {
		return g.dbURL("mongodb", g.pick([]string{"mongodb", "mongodb+srv"}), "cluster0.ab1cd.mongodb.net/orders?retryWrites=true&w=majority")
	}},
	{"redis-url", func(g *gen) fake {
		return g.dbURL("redis", g.pick([]string{"redis", "rediss"}), "cache.internal:6379/0")
	}},
	{"amqp-url", func(g *gen) fake {
		return g.dbURL("amqp", g.pick([]string{"amqp", "amqps"}), "rabbit.internal:5672/jobs")
	}},

	// ---- observability ----
	{"datadog-api-key", func(g *gen) fake {
		return tok("observability", "datadog", "datadog-api-key", g.pick([]string{"DD_API_KEY", "DATADOG_API_KEY"}), g.chars(lowerHex, 32))
	}},
	{"datadog-app-key", func(g *gen) fake {
		return tok("observability", "datadog", "datadog-app-key", "DD_APP_KEY", g.chars(lowerHex, 40))
	}},
	{"newrelic-user-api-key", func(g *gen) fake {
		return tok("observability", "newrelic", "newrelic-user-api-key", "NEW_RELIC_API_KEY", "NRAK-"+g.chars(upperAN, 27))
	}},
	{"newrelic-license-key", func(g *gen) fake {
		return tok("observability", "newrelic", "newrelic-license-key", "NEW_RELIC_LICENSE_KEY", g.chars(lowerHex, 36)+"NRAL")
	}},
	{"sentry-dsn", func(g *gen) fake {
		k := g.chars(lowerHex, 32)
		return fake{family: "observability", provider: "sentry", typ: "sentry-dsn", name: "SENTRY_DSN",
			lead: "https://", value: k, tail: fmt.Sprintf("@o%d.ingest.sentry.io/%d", 100000+g.rng.IntN(900000), 1000000+g.rng.IntN(9000000)), standalone: true}
	}},
	{"sentry-user-token", func(g *gen) fake {
		return tok("observability", "sentry", "sentry-user-token", "SENTRY_AUTH_TOKEN", "sntryu_"+g.chars(lowerHex, 64))
	}},
	{"sentry-org-token", func(g *gen) fake {
		payload := fmt.Sprintf(`{"iat":%d.0,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"%s"}`, 1700000000+g.rng.IntN(1<<24), g.pick(words))
		v := "sntrys_" + base64.RawStdEncoding.EncodeToString([]byte(payload)) + "_" + g.b64(32)[:43]
		return tok("observability", "sentry", "sentry-org-token", "SENTRY_AUTH_TOKEN", v)
	}},
	{"grafana-service-account-token", func(g *gen) fake {
		return tok("observability", "grafana", "grafana-service-account-token", "GRAFANA_TOKEN", "glsa_"+g.mixed(base62, 32)+"_"+g.chars(lowerHex, 8))
	}},
	{"grafana-cloud-token", func(g *gen) fake {
		payload := fmt.Sprintf(`{"o":"%d","n":"%s","k":"%s","m":{"r":"prod-us-east-0"}}`, 100000+g.rng.IntN(900000), g.ident(), g.mixed(base62, 24))
		return tok("observability", "grafana", "grafana-cloud-token", "GRAFANA_CLOUD_TOKEN", "glc_"+base64.StdEncoding.EncodeToString([]byte(payload)))
	}},

	// ---- identity ----
	{"jwt", func(g *gen) fake {
		return tok("identity", "jwt", "jwt", g.pick([]string{"id_token", "ACCESS_TOKEN", "jwt"}), g.jwt())
	}},
	{"okta-api-token", func(g *gen) fake {
		return tok("identity", "okta", "okta-api-token", "OKTA_API_TOKEN", "00"+g.mixed(wordDash, 40))
	}},
	{"auth0-client-secret", func(g *gen) fake {
		return tok("identity", "auth0", "auth0-client-secret", "AUTH0_CLIENT_SECRET", g.mixed(wordDash, 64))
	}},

	// ---- HashiCorp Vault, age ----
	{"vault-service-token", func(g *gen) fake {
		return tok("vault", "hashicorp", "vault-service-token", "VAULT_TOKEN", "hvs."+g.mixed(wordDash, 90+g.rng.IntN(30)))
	}},
	{"vault-batch-token", func(g *gen) fake {
		return tok("vault", "hashicorp", "vault-batch-token", "VAULT_TOKEN", "hvb."+g.mixed(wordDash, 138+g.rng.IntN(40)))
	}},
	{"age-secret-key", func(g *gen) fake {
		return tok("vault", "age", "age-secret-key", "AGE_KEY", "AGE-SECRET-KEY-1"+g.chars(bech32, 58))
	}},

	// ---- private key blocks ----
	{"pem-rsa", func(g *gen) fake { return g.pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 64, 20+g.rng.IntN(6)) }},
	{"pem-ec", func(g *gen) fake { return g.pem("EC PRIVATE KEY", "MHcCAQEEI", 64, 3) }},
	{"pem-dsa", func(g *gen) fake { return g.pem("DSA PRIVATE KEY", "MIIBuwIBAAKBgQ", 64, 7) }},
	{"pem-pkcs8", func(g *gen) fake {
		return g.pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 64, 20+g.rng.IntN(6))
	}},
	{"pem-pkcs8-encrypted", func(g *gen) fake { return g.pem("ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkq", 64, 20) }},
	{"openssh-private-key", func(g *gen) fake {
		return g.pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAA", 70, 5+g.rng.IntN(20))
	}},
	{"pgp-private-key", func(g *gen) fake { return g.pgp() }},
	{"putty-private-key", func(g *gen) fake { return g.putty() }},
	{"gcp-service-account-key", func(g *gen) fake {
		// Written inside a service-account JSON: the value is the JSON
		// string body, so its line breaks are the two characters \n.
		f := g.pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 64, 20+g.rng.IntN(6))
		f.family, f.provider, f.typ, f.name = "cloud", "gcp", "gcp-service-account-key", "private_key"
		f.value = strings.ReplaceAll(f.value, "\n", `\n`) + `\n`
		f.multiline, f.jsonText = false, true
		return f
	}},

	// ---- generic context rules ----
	{"password-assignment", func(g *gen) fake {
		return tok("generic", "generic", "password-assignment", g.pick([]string{"DB_PASSWORD", "password", "PASSWORD", "spring.datasource.password", "admin_password", "passwd"}), g.password(14+g.rng.IntN(14)))
	}},
	{"secret-assignment", func(g *gen) fake {
		return tok("generic", "generic", "secret-assignment", g.pick([]string{"SECRET_KEY", "client_secret", "JWT_SECRET", "app_secret", "SESSION_SECRET"}), g.mixed(wordDash, 32+g.rng.IntN(32)))
	}},
	{"api-key-assignment", func(g *gen) fake {
		return tok("generic", "generic", "api-key-assignment", g.pick([]string{"api_key", "API_KEY", "apiKey", "x-api-key", "SERVICE_API_KEY"}), g.mixed(base62, 32+g.rng.IntN(16)))
	}},
	{"authorization-basic", func(g *gen) fake {
		cred := base64.StdEncoding.EncodeToString([]byte(g.ident() + ":" + g.password(12+g.rng.IntN(12))))
		return fake{family: "generic", provider: "generic", typ: "authorization-basic", lead: "Authorization: Basic ", value: cred, standalone: true}
	}},
	{"authorization-bearer", func(g *gen) fake {
		return fake{family: "generic", provider: "generic", typ: "authorization-bearer", lead: "Authorization: Bearer ", value: g.mixed(wordDash+".", 40+g.rng.IntN(24)), standalone: true}
	}},
	{"url-credentials", func(g *gen) fake {
		pw := g.password(12 + g.rng.IntN(12))
		pw = strings.NewReplacer("#", "x", "%", "y").Replace(pw) // no URL syntax inside
		return fake{family: "generic", provider: "generic", typ: "url-credentials", name: "REMOTE_URL",
			lead: g.pick([]string{"https://", "ftp://", "https://"}) + g.ident() + ":", value: pw,
			tail: "@" + g.pick([]string{"git.example.com/org/repo.git", "files.example.net/pub", "nexus.corp.example:8443/repository/maven"}), standalone: true}
	}},
	{"password-low-entropy", func(g *gen) fake {
		season := g.pick([]string{"Summer", "Winter", "Spring", "Autumn", "Welcome", "Password", "Company"})
		return tok("generic", "generic", "password-low-entropy", g.pick([]string{"DB_PASSWORD", "password", "admin_password"}), fmt.Sprintf("%s%d!", season, 2019+g.rng.IntN(8)))
	}},

	// ---- evasion: a token written so a byte-level scanner misses it ----
	{"zero-width-split-token", func(g *gen) fake {
		t := g.innerToken()
		k := 8 + g.rng.IntN(len(t)-15)
		return fake{family: "evasion", provider: "zero-width", typ: "zero-width-split-token", name: g.pick([]string{"TOKEN", "api_key", "GITHUB_TOKEN"}),
			value: t[:k] + g.pick([]string{"\u200b", "\u200d", "\u2060", "\u00ad"}) + t[k:], needles: []string{t, t[:k], t[k:]}}
	}},
	{"fullwidth-token", func(g *gen) fake {
		t := g.innerToken()
		var b strings.Builder
		for _, r := range t {
			b.WriteRune(r + 0xFEE0) // ASCII ! to ~ have full-width forms at U+FF01..U+FF5E
		}
		return fake{family: "evasion", provider: "fullwidth", typ: "fullwidth-token", name: g.pick([]string{"TOKEN", "api_key"}),
			value: b.String(), needles: []string{t, b.String()}}
	}},

	// ---- encoded runs ----
	{"base64-encoded-token", func(g *gen) fake {
		inner := g.innerToken()
		return fake{family: "encoded", provider: "base64", typ: "base64-encoded-token", name: g.pick([]string{"GITHUB_TOKEN", "api-token", "token"}),
			value: base64.StdEncoding.EncodeToString([]byte(inner)), inner: inner}
	}},
	{"base64-encoded-env", func(g *gen) fake {
		inner := g.innerToken()
		env := "STRIPE_KEY=" + inner + "\nLOG_LEVEL=info\n"
		return fake{family: "encoded", provider: "base64", typ: "base64-encoded-env", name: "ENV_FILE_B64",
			value: base64.StdEncoding.EncodeToString([]byte(env)), inner: inner}
	}},
	{"hex-encoded-token", func(g *gen) fake {
		inner := g.innerToken()
		return fake{family: "encoded", provider: "hex", typ: "hex-encoded-token", name: "token_hex", value: hex.EncodeToString([]byte(inner)), inner: inner}
	}},
	{"percent-encoded-db-url", func(g *gen) fake {
		pw := g.mixed(base62, 20)
		raw := "postgres://app:" + pw + "@db.internal:5432/app"
		return fake{family: "encoded", provider: "percent", typ: "percent-encoded-db-url", lead: "https://console.example.com/connect?dsn=",
			value: url.QueryEscape(raw), inner: pw, standalone: true}
	}},
	{"percent-encoded-token", func(g *gen) fake {
		inner := g.innerToken()
		var b strings.Builder
		for i := 0; i < len(inner); i++ {
			fmt.Fprintf(&b, "%%%02X", inner[i])
		}
		return fake{family: "encoded", provider: "percent", typ: "percent-encoded-token", lead: "https://app.example.com/oauth/callback?state=" + g.chars(lowerHex, 8) + "&token=",
			value: b.String(), inner: inner, standalone: true}
	}},
}

// withHexCRC appends the upper-case hex CRC32 of s (Atlassian tokens).
func withHexCRC(s string) string {
	return fmt.Sprintf("%s%08X", s, crc32.ChecksumIEEE([]byte(s)))
}

// innerToken draws a high-confidence provider token to hide in an encoding.
func (g *gen) innerToken() string {
	switch g.rng.IntN(4) {
	case 0:
		return withCRC("ghp_", g.mixed(base62, 30))
	case 1:
		return "sk_live_" + g.mixed(base62, 32)
	case 2:
		return "xoxb-" + g.chars(digits, 12) + "-" + g.chars(digits, 13) + "-" + g.mixed(base62, 24)
	}
	return "AKIA" + g.chars(upperB32, 16)
}

func (g *gen) mixedLetters(n int) string {
	for {
		s := g.chars(letters, n)
		if strings.ToLower(s) != s && strings.ToUpper(s) != s {
			return s
		}
	}
}

// b64 is the standard base64 of n random bytes.
func (g *gen) b64(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	return base64.StdEncoding.EncodeToString(b)
}

// password draws a random password with letters, digits and symbols.
func (g *gen) password(n int) string {
	for {
		s := g.mixed(pwChars, n)
		if strings.ContainsAny(s, "!#%*+-_.~") && !strings.HasPrefix(s, "-") {
			return s
		}
	}
}

func (g *gen) dbURL(provider, scheme, rest string) fake {
	user := g.pick([]string{"app", "svc_" + g.pick(words), "admin", "root", "default", g.pick(words)})
	pw := g.mixed(base62+"_-.~", 16+g.rng.IntN(12))
	return fake{family: "database", provider: provider, typ: provider + "-url", name: g.pick([]string{"DATABASE_URL", strings.ToUpper(provider) + "_URL", "dsn"}),
		lead: scheme + "://" + user + ":", value: pw, tail: "@" + rest, standalone: true}
}

func (g *gen) jwt() string {
	enc := base64.RawURLEncoding.EncodeToString
	hdr := enc([]byte(g.pick([]string{`{"alg":"HS256","typ":"JWT"}`, `{"alg":"RS256","typ":"JWT","kid":"` + g.chars(lowerHex, 16) + `"}`})))
	pay := enc(fmt.Appendf(nil, `{"sub":"%d","name":"%s","iat":%d,"exp":%d}`, g.rng.IntN(1<<30), g.ident(), 1700000000+g.rng.IntN(1<<24), 1800000000+g.rng.IntN(1<<24)))
	sig := make([]byte, 32+g.rng.IntN(2)*224)
	for i := range sig {
		sig[i] = byte(g.rng.Uint32())
	}
	return hdr + "." + pay + "." + enc(sig)
}

// pem builds a PEM block: lead (the DER prefix of the key type, as real
// keys start) then random base64, lines of width, needles = body lines.
func (g *gen) pem(label, derLead string, width, lines int) fake {
	body := derLead + g.chars(b64chars, width*lines-len(derLead)-g.rng.IntN(width/2))
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + "-----\n")
	var needles []string
	for i := 0; i < len(body); i += width {
		line := body[i:min(i+width, len(body))]
		if len(line) >= 16 {
			needles = append(needles, line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("-----END " + label + "-----")
	typ := map[string]string{"RSA PRIVATE KEY": "pem-rsa", "EC PRIVATE KEY": "pem-ec", "DSA PRIVATE KEY": "pem-dsa", "PRIVATE KEY": "pem-pkcs8",
		"ENCRYPTED PRIVATE KEY": "pem-pkcs8-encrypted", "OPENSSH PRIVATE KEY": "openssh-private-key"}[label]
	return fake{family: "private-key", provider: "pem", typ: typ, name: "private_key", value: b.String(), needles: needles, multiline: true}
}

func (g *gen) pgp() fake {
	var b strings.Builder
	b.WriteString("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n")
	var needles []string
	for range 12 + g.rng.IntN(10) {
		line := g.chars(b64chars, 64)
		needles = append(needles, line)
		b.WriteString(line + "\n")
	}
	b.WriteString("=" + g.chars(b64chars, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----")
	return fake{family: "private-key", provider: "pgp", typ: "pgp-private-key", name: "signing_key", value: b.String(), needles: needles, multiline: true}
}

func (g *gen) putty() fake {
	var b strings.Builder
	fmt.Fprintf(&b, "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: %s@%s\nPublic-Lines: 2\n", g.ident(), g.pick(words))
	b.WriteString("AAAAC3NzaC1lZDI1NTE5AAAAI" + g.chars(b64chars, 39) + "\n" + g.chars(b64chars, 20) + "\n")
	priv := "AAAAI" + g.chars(b64chars, 39) + "="
	mac := g.chars(lowerHex, 64)
	b.WriteString("Private-Lines: 1\n" + priv + "\nPrivate-MAC: " + mac)
	return fake{family: "private-key", provider: "putty", typ: "putty-private-key", name: "ppk", value: b.String(), needles: []string{priv}, multiline: true}
}

// FakeTypes lists the corpus credential types in their stable order.
func FakeTypes() []string {
	s := make([]string, len(fakeKinds))
	for i, k := range fakeKinds {
		s[i] = k.typ
	}
	return s
}
