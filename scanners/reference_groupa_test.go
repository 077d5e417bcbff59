package scanners

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Reference forms of the provider rules of rules_ai.go, rules_vcs.go,
// rules_cloud.go, rules_ci.go and rules_payments.go that are not in
// reference_test.go: regexps and plain string code, written independently of
// the rule declarations.

func init() {
	refFormsMore = append(refFormsMore, func() map[string][]refForm {
		m := map[string][]refForm{}
		for _, part := range []map[string][]refForm{refVCS(), refAI(), refCloud(), refCI(), refPayments()} {
			for id, f := range part {
				if m[id] != nil {
					panic("two group A references for " + id)
				}
				m[id] = f
			}
		}
		return m
	})
}

const (
	refW   = `A-Za-z0-9_`   // word bytes
	refWD  = `A-Za-z0-9_-`  // word bytes and '-'
	refWDE = `A-Za-z0-9_=-` // word bytes, '-' and '='
)

// refTok is refToken with one class for both boundaries.
func refTok(keywords []string, re, class string, post func(string) (bool, ChecksumResult)) refForm {
	return refToken(keywords, re, class, class, post)
}

// refHexCRC: the last 8 bytes of m are the upper-case hex CRC32 of the rest.
func refHexCRC(m string) ChecksumResult {
	if fmt.Sprintf("%08X", crc32.ChecksumIEEE([]byte(m[:len(m)-8]))) == m[len(m)-8:] {
		return ChecksumValid
	}
	return ChecksumInvalid
}

// refClasses counts the classes (upper, lower, digit) present in m.
func refClasses(m string) int {
	n := 0
	for _, re := range []*regexp.Regexp{refUpper, refLower, refDigit} {
		if re.MatchString(m) {
			n++
		}
	}
	return n
}

// refAfterPrefix returns a post func applying f to what follows the first
// occurrence of sep in the match (the token body after its prefix).
func refBody(prefixLen int, minClasses int) func(string) (bool, ChecksumResult) {
	return func(m string) (bool, ChecksumResult) {
		return refClasses(m[prefixLen:]) >= minClasses, ChecksumNone
	}
}

// refGitLab: the GitLab body and, when present and bounded, the routable
// suffix .vv.ccccccccc.
func refGitLab(prefix string, min, max int) refForm {
	base := refToken([]string{prefix}, regexp.QuoteMeta(prefix)+fmt.Sprintf(`[A-Za-z0-9_=-]{%d,%d}`, min, max), refWD, refWDE, nil)
	suffix := regexp.MustCompile(`^\.[0-9a-z]{2}\.[0-9a-z]{9}`)
	bound := regexp.MustCompile(`^[A-Za-z0-9_=-]`)
	return refForm{keywords: base.keywords, at: func(s string, p int) (int, int, ChecksumResult, bool) {
		a, e, cs, ok := base.atKw(s, p, len(prefix))
		if !ok {
			return 0, 0, 0, false
		}
		if suffix.MatchString(s[e:]) && !bound.MatchString(s[e+13:]) {
			e += 13
		}
		return a, e, cs, true
	}}
}

func refVCS() map[string][]refForm {
	gl := func(prefix string, min int) []refForm { return []refForm{refGitLab(prefix, min, 300)} }
	return map[string][]refForm{
		"gitlab-pat":                       gl("glpat-", 20),
		"gitlab-pipeline-trigger-token":    {refTok([]string{"glptt-"}, `glptt-[0-9a-f]{40}`, refWD, nil)},
		"gitlab-runner-token":              gl("glrt-", 20),
		"gitlab-runner-registration-token": {refTok([]string{"gr1348941"}, `GR1348941[A-Za-z0-9_-]{20,64}`, refWD, refBody(9, 2))},
		"gitlab-deploy-token":              gl("gldt-", 20),
		"gitlab-feed-token":                gl("glft-", 20),
		"gitlab-incoming-mail-token":       gl("glimt-", 25),
		"gitlab-agent-token":               gl("glagent-", 50),
		"gitlab-oauth-app-secret":          gl("gloas-", 64),
		"gitlab-scim-token":                gl("glsoat-", 20),
		"gitlab-ci-job-token":              gl("glcbt-", 20),
		"gitlab-feature-flags-token":       gl("glffct-", 20),
		"gitlab-session-cookie":            {refTok([]string{"_gitlab_session="}, `_gitlab_session=[0-9a-f]{32}`, refW, nil)},
		"bitbucket-app-password": {refTok([]string{"atbb"}, `ATBB[A-Za-z0-9]{24}[0-9A-F]{8}`, refW, func(m string) (bool, ChecksumResult) {
			return true, refHexCRC(m)
		})},
		"atlassian-api-token": {refToken([]string{"atatt3"}, `ATATT3[A-Za-z0-9_-]{170,190}=[0-9A-F]{8}`, refWD, refWDE, func(m string) (bool, ChecksumResult) {
			return true, refHexCRC(m)
		})},
		"sourcegraph-token": {refTok([]string{"sgp_"}, `sgp_(?:[0-9a-fA-F]{16}_[0-9a-fA-F]{40}|local_[0-9a-fA-F]{40}|[0-9a-fA-F]{40})`, refW, nil)},
	}
}

// refUUID is a lower-case hex UUID.
const refUUID = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

// refKeyed: a key name, 1..8 separator bytes, then the value (n base62 bytes
// of all three classes) not followed by a word byte; the match is the value.
func refKeyed(keywords []string, n int) refForm {
	rx := regexp.MustCompile(fmt.Sprintf("^(?i:%s)[\\t\\n\\f\\r \"'`:=>,]{1,8}([A-Za-z0-9]{%d})", strings.Join(keywords, "|"), n))
	word := regexp.MustCompile(`^[A-Za-z0-9_]`)
	return refForm{keywords: keywords, at: func(s string, p int) (int, int, ChecksumResult, bool) {
		m := rx.FindStringSubmatchIndex(s[p:])
		if m == nil || word.MatchString(s[p+m[3]:]) || refClasses(s[p+m[2]:p+m[3]]) != 3 {
			return 0, 0, 0, false
		}
		return p + m[2], p + m[3], ChecksumNone, true
	}}
}

func refAI() map[string][]refForm {
	return map[string][]refForm{
		"huggingface-org": {refToken([]string{"api_org_"}, `api_org_[A-Za-z]{34,64}`, refW, refWD, func(m string) (bool, ChecksumResult) {
			return refUpper.MatchString(m[8:]) && refLower.MatchString(m[8:]), ChecksumNone
		})},
		"groq":       {refTok([]string{"gsk_"}, `gsk_[A-Za-z0-9]{20}WGdyb3FY[A-Za-z0-9]{24}`, refW, nil)},
		"replicate":  {refTok([]string{"r8_"}, `r8_[A-Za-z0-9_-]{37}`, refWD, refBody(3, 2))},
		"perplexity": {refTok([]string{"pplx-"}, `pplx-[A-Za-z0-9]{48}`, refWD, refBody(5, 2))},
		"xai":        {refTok([]string{"xai-"}, `xai-[A-Za-z0-9_]{80}`, refWD, refBody(4, 2))},
		"langsmith":  {refTok([]string{"lsv2_pt_", "lsv2_sk_"}, `lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}`, refW, nil)},
		"openrouter": {refTok([]string{"sk-or-v1-"}, `sk-or-v1-[0-9a-f]{64}`, refWD, nil)},
		"elevenlabs": {refTok([]string{"sk_"}, `sk_[0-9a-f]{48}`, refW, nil)},
		"nvidia":     {refTok([]string{"nvapi-"}, `nvapi-[A-Za-z0-9_-]{64}`, refWD, refBody(6, 2))},
		"pinecone": {refTok([]string{"pcsk_"}, `pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,80}`, refW, func(m string) (bool, ChecksumResult) {
			return refClasses(m[strings.LastIndexByte(m, '_')+1:]) >= 2, ChecksumNone
		})},
		"together": {refTok([]string{"tgp_v1_"}, `tgp_v1_[A-Za-z0-9_-]{43}`, refWD, refBody(7, 2))},
		"langfuse": {refTok([]string{"sk-lf-"}, `sk-lf-`+refUUID, refWD, nil)},
		"tavily": {refTok([]string{"tvly-", "tvly-dev-", "tvly-prod-"}, `tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}`, refWD, func(m string) (bool, ChecksumResult) {
			return refClasses(m[strings.LastIndexByte(m, '-')+1:]) >= 2, ChecksumNone
		})},
		"cohere": {refKeyed([]string{"cohere_api_key", "cohere-api-key", "co_api_key"}, 40)},
	}
}

func refCloud() map[string][]refForm {
	padded := func(prefixLen, min, max int) func(string) (bool, ChecksumResult) {
		return func(m string) (bool, ChecksumResult) {
			n := len(m) - prefixLen
			return n >= min && n <= max, ChecksumNone
		}
	}
	const b64, b64Class = `[A-Za-z0-9+/]`, `A-Za-z0-9_+/=`
	return map[string][]refForm{
		"aws-session-token": {refTok([]string{"iqojb3jpz2lux2vj", "fwogzxivyxdze", "fqogzxivyxdze"}, `(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE|FQoGZXIvYXdzE)`+b64+`+={0,3}`, b64Class, func(m string) (bool, ChecksumResult) {
			n := len(m) - 13
			if strings.HasPrefix(m, "IQoJ") {
				n -= 3
			}
			return n >= 100 && n <= 4096, ChecksumNone
		})},
		"aws-bedrock-api-key": {
			refTok([]string{"ABSK"}, `ABSKQmVkcm9ja0FQSUtleS1`+b64+`+={0,3}`, b64Class, padded(23, 80, 400)),
			refToken([]string{"bedrock-api-key-"}, `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t`+b64+`+={0,3}`, refWD, b64Class, padded(44, 100, 8192)),
		},
		"gcp-oauth-client-secret": {refTok([]string{"gocspx-"}, `GOCSPX-[A-Za-z0-9_-]{28}`, refWD, refBody(7, 2))},
		"google-oauth-access-token": {refTok([]string{"ya29.", "ya29.c."}, `ya29\.(?:c\.)?[A-Za-z0-9_-]+`, refWD, func(m string) (bool, ChecksumResult) {
			body := m[strings.LastIndexByte(m, '.')+1:]
			return len(body) >= 30 && len(body) <= 2048 && refClasses(body) >= 2, ChecksumNone
		})},
		"azure-storage-account-key": {refTok([]string{"accountkey="}, `(?i:AccountKey=)`+b64+`{86}==`, b64Class, nil),
			refEscapedSlashes(`AccountKey=`, `A-Za-z0-9+=`, 88, 88, `A-Za-z0-9+/=_`, `A-Za-z0-9+/=_`, func(m string) (bool, ChecksumResult) {
				return regexp.MustCompile(`^(?i:AccountKey=)[A-Za-z0-9+/]{86}==$`).MatchString(m), ChecksumNone
			})},
		"azure-shared-access-key": {refTok([]string{"sharedaccesskey="}, `(?i:SharedAccessKey=)`+b64+`{43}=`, b64Class, nil),
			refEscapedSlashes(`SharedAccessKey=`, `A-Za-z0-9+=`, 44, 44, `A-Za-z0-9+/=_`, `A-Za-z0-9+/=_`, func(m string) (bool, ChecksumResult) {
				return regexp.MustCompile(`^(?i:SharedAccessKey=)[A-Za-z0-9+/]{43}=$`).MatchString(m), ChecksumNone
			})},
		"azure-sas-token":          {{keywords: []string{"sv=", "SharedAccessSignature sr="}, atKw: refSAS}},
		"azure-ad-client-secret":   {{keywords: []string{"q~"}, at: refAzureAD}},
		"cloudflare-origin-ca-key": {refTok([]string{"v1.0-"}, `v1\.0-[0-9a-f]{24}-[0-9a-f]{146}`, refWD, nil)},
		"alibaba-access-key-id":    {refTok([]string{"ltai"}, `LTAI[A-Za-z0-9]{12,20}`, refW, refBody(4, 2))},
		"tencent-secret-id":        {refTok([]string{"akid"}, `AKID[A-Za-z0-9]{32}`, refW, refBody(4, 2))},
		"scaleway-access-key": {refTok([]string{"scw"}, `SCW[A-Z0-9]{17}`, refW, func(m string) (bool, ChecksumResult) {
			return refUpper.MatchString(m[3:]) && refDigit.MatchString(m[3:]), ChecksumNone
		})},
		"yandex-api-key":   {refTok([]string{"aqvn"}, `AQVN[A-Za-z0-9_-]{35,38}`, refWD, refBody(4, 2))},
		"databricks-token": {refToken([]string{"dapi"}, `dapi[0-9a-f]{32}`, refW, refW, nil)},
	}
}

var (
	refSASValue = regexp.MustCompile(`^[A-Za-z0-9%+/=]*`)
	refSASSig   = regexp.MustCompile(`^[A-Za-z0-9+/]{32,88}={0,2}$`)
	refSASQuery = regexp.MustCompile(`^[A-Za-z0-9._~:/?@!$&()*+,;=%\[\]\\-]*`)
	refSASSigAt = regexp.MustCompile(`&sig=|\\u0026sig=`)
	refSASName  = regexp.MustCompile(`^[A-Za-z0-9_.~%-]$`)
)

// refSAS mirrors azureSASForm with url.PathUnescape and regexps.
func refSAS(s string, p, kwLen int) (int, int, ChecksumResult, bool) {
	if kwLen == 3 && (s[p:p+3] != "sv=" || p > 0 && refSASName.MatchString(s[p-1:p]) && !strings.HasSuffix(s[:p], `\u0026`)) {
		return 0, 0, 0, false
	}
	q := refSASQuery.FindString(s[p+kwLen:])
	if len(q) > 512 {
		q = q[:512]
	}
	m := refSASSigAt.FindStringIndex(q)
	if m == nil {
		return 0, 0, 0, false
	}
	a := p + kwLen + m[1]
	val := refSASValue.FindString(s[a:])
	if len(val) > 200 {
		return 0, 0, 0, false
	}
	if dec, err := url.PathUnescape(val); err != nil || !refSASSig.MatchString(dec) {
		return 0, 0, 0, false
	}
	return a, a + len(val), ChecksumNone, true
}

var (
	refADHead = regexp.MustCompile(`^[A-Za-z0-9_~.]{3}[0-9]$`)
	refADTail = regexp.MustCompile(`^Q~[A-Za-z0-9_~.-]{31,34}`)
	refADByte = regexp.MustCompile(`^[A-Za-z0-9_~.-]`)
)

// refAzureAD mirrors azureADSecretForm.
func refAzureAD(s string, p int) (int, int, ChecksumResult, bool) {
	if p < 4 || !refADHead.MatchString(s[p-4:p]) || p > 4 && refADByte.MatchString(s[p-5:p-4]) {
		return 0, 0, 0, false
	}
	m := refADTail.FindString(s[p:])
	if m == "" || refADByte.MatchString(s[p+len(m):]) || refClasses(s[p-4:p+len(m)]) != 3 || placeholderBody([]byte(s[p+2:p+len(m)])) {
		return 0, 0, 0, false
	}
	return p - 4, p + len(m), ChecksumNone, true
}
func refCI() map[string][]refForm {
	classes3 := func(n int) func(string) (bool, ChecksumResult) { return refBody(n, 3) }
	doppler := func(prefix string) []refForm {
		return []refForm{refToken([]string{prefix}, regexp.QuoteMeta(prefix)+`[A-Za-z0-9]{40,44}`, `A-Za-z0-9_.-`, refWD, classes3(len(prefix)))}
	}
	return map[string][]refForm{
		"circleci-pat":           {refTok([]string{"ccipat_"}, `CCIPAT_[A-Za-z0-9]{22}_[0-9a-f]{40}`, refW, nil)},
		"circleci-project-token": {refTok([]string{"cciprj_"}, `CCIPRJ_[A-Za-z0-9]{22}_[0-9a-f]{40}`, refW, nil)},
		"buildkite-token": {refTok([]string{"bkua_"}, `bkua_[a-z0-9]{40}`, refW, func(m string) (bool, ChecksumResult) {
			return refLower.MatchString(m[5:]) && refDigit.MatchString(m[5:]), ChecksumNone
		})},
		"vercel-token":                  {refTok([]string{"vcp_"}, `vcp_[A-Za-z0-9]{24,64}`, refW, classes3(4))},
		"netlify-token":                 {refTok([]string{"nfp_"}, `nfp_[A-Za-z0-9]{36,64}`, refW, classes3(4))},
		"heroku-api-key":                {refTok([]string{"hrku-aa"}, `HRKU-AA[A-Za-z0-9_-]{58}`, refWD, refBody(7, 2))},
		"doppler-personal-token":        doppler("dp.pt."),
		"doppler-cli-token":             doppler("dp.ct."),
		"doppler-service-account-token": doppler("dp.sa."),
		"doppler-scim-token":            doppler("dp.scim."),
		"doppler-audit-token":           doppler("dp.audit."),
		"doppler-service-token": {refToken([]string{"dp.st."}, `dp\.st\.(?:[a-z0-9_-]{1,35}\.)?[A-Za-z0-9]{40,44}`, `A-Za-z0-9_.-`, refWD, func(m string) (bool, ChecksumResult) {
			return refClasses(m[strings.LastIndexByte(m, '.')+1:]) == 3, ChecksumNone
		})},
		"terraform-cloud-token": {{keywords: []string{".atlasv1."}, at: func() func(string, int) (int, int, ChecksumResult, bool) {
			lead := regexp.MustCompile(`^[A-Za-z0-9]{14}$`)
			tail := regexp.MustCompile(`^\.atlasv1\.[A-Za-z0-9_=-]{60,70}`)
			edge := regexp.MustCompile(`^[A-Za-z0-9_=-]`)
			wd := regexp.MustCompile(`^[A-Za-z0-9_-]`)
			return func(s string, p int) (int, int, ChecksumResult, bool) {
				if p < 14 || !lead.MatchString(s[p-14:p]) || p > 14 && wd.MatchString(s[p-15:p-14]) {
					return 0, 0, 0, false
				}
				m := tail.FindString(s[p:])
				if m == "" || edge.MatchString(s[p+len(m):]) || placeholderBody([]byte(s[p-14:p])) || placeholderBody([]byte(m[9:])) {
					return 0, 0, 0, false
				}
				return p - 14, p + len(m), ChecksumNone, true
			}
		}()}},
		"pulumi-token": {refTok([]string{"pul-"}, `pul-[0-9a-f]{40}`, refWD, nil)},
		"flyio-token":  {refTok([]string{"fo1_"}, `fo1_[A-Za-z0-9_-]{43}`, refWD, refBody(4, 2))},
		"flyio-macaroon": {refTok([]string{"fm1a_", "fm1r_", "fm2_"}, `fm(?:1a|1r|2)_[A-Za-z0-9+/]+={0,3}`, `A-Za-z0-9_+/=`, func(m string) (bool, ChecksumResult) {
			n := len(m) - strings.IndexByte(m, '_') - 1
			return n >= 100 && n <= 4096, ChecksumNone
		})},
		"render-api-key":     {refTok([]string{"rnd_"}, `rnd_[A-Za-z0-9]{24,48}`, refW, classes3(4))},
		"linear-api-key":     {refTok([]string{"lin_api_"}, `lin_api_[A-Za-z0-9]{40}`, refW, refBody(8, 2))},
		"notion-token":       {refTok([]string{"ntn_"}, `ntn_[0-9]{11}[A-Za-z0-9]{35}`, refW, nil)},
		"postman-api-key":    {refTok([]string{"pmak-"}, `PMAK-[0-9a-fA-F]{24}-[0-9a-fA-F]{34}`, refWD, nil)},
		"figma-token":        {refTok([]string{"figd_"}, `figd_[A-Za-z0-9_-]{36,64}`, refWD, refBody(5, 2))},
		"sonarqube-token":    {refTok([]string{"squ_", "sqp_", "sqa_"}, `sq[upa]_[0-9a-f]{40}`, refW, nil)},
		"harness-token":      {refTok([]string{"pat.", "sat."}, `[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`, `A-Za-z0-9_.-`, nil)},
		"infracost-api-key":  {refTok([]string{"ico-"}, `ico-[A-Za-z0-9]{32}`, refWD, refBody(4, 2))},
		"prefect-api-key":    {refTok([]string{"pnu_"}, `pnu_[A-Za-z0-9]{36}`, refW, refBody(4, 2))},
		"scalingo-api-token": {refTok([]string{"tk-us-"}, `tk-us-[A-Za-z0-9_-]{48}`, refWD, refBody(6, 2))},
		"octopus-deploy-api-key": {refTok([]string{"api-"}, `API-[A-Z0-9]{26}`, refWD, func(m string) (bool, ChecksumResult) {
			return refUpper.MatchString(m[4:]) && refDigit.MatchString(m[4:]), ChecksumNone
		})},
	}
}
func refPayments() map[string][]refForm {
	return map[string][]refForm{
		"paystack-secret-key": {refTok([]string{"sk_live_", "sk_test_"}, `sk_(?:live|test)_[0-9a-f]{40}`, refW, nil)},
		"square-access-token": {
			refTok([]string{"eaaa"}, `EAAA[A-Za-z0-9_-]{60}`, refWD, refBody(4, 2)),
			refTok([]string{"sq0atp-"}, `sq0atp-[A-Za-z0-9_-]{22}`, refWD, refBody(7, 2)),
		},
		"square-oauth-secret":    {refTok([]string{"sq0csp-"}, `sq0csp-[A-Za-z0-9_-]{43}`, refWD, refBody(7, 2))},
		"braintree-access-token": {refTok([]string{"access_token$production$", "access_token$sandbox$"}, `access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[0-9a-f]{32}`, refW+`$`, nil)},
		"razorpay-key-id":        {refTok([]string{"rzp_live_", "rzp_test_"}, `rzp_(?:live|test)_[A-Za-z0-9]{14}`, refW, refBody(9, 2))},
		"plaid-access-token":     {refTok([]string{"access-production-", "access-development-", "access-sandbox-"}, `access-(?:production|development|sandbox)-`+refUUID, refWD, nil)},
		"flutterwave-secret-key": {refTok([]string{"FLWSECK-", "FLWSECK_TEST-"}, `FLWSECK(?:_TEST)?-[0-9a-fA-F]{32}-X`, refWD, nil)},
		"shippo-api-token":       {refTok([]string{"shippo_live_", "shippo_test_"}, `shippo_(?:live|test)_[0-9a-fA-F]{40}`, refW, nil)},
		"easypost-api-key":       {refTok([]string{"EZAK", "EZTK"}, `EZ[AT]K[A-Za-z0-9]{54}`, refW, refBody(4, 2))},
		"duffel-api-token":       {refToken([]string{"duffel_live_", "duffel_test_"}, `duffel_(?:live|test)_[A-Za-z0-9_=-]{43}`, refWD, refWDE, refBody(12, 2))},
		"xendit-secret-key": {refTok([]string{"xnd_production_", "xnd_development_"}, `xnd_(?:production|development)_[A-Za-z0-9]{55,70}`, refW, func(m string) (bool, ChecksumResult) {
			return refClasses(m[strings.LastIndexByte(m, '_')+1:]) == 3, ChecksumNone
		})},
		"paddle-api-key": {refTok([]string{"pdl_live_apikey_", "pdl_sdbx_apikey_"}, `pdl_(?:live|sdbx)_apikey_[A-Za-z0-9_]{40,80}`, refW, refBody(16, 2))},
	}
}

// TestGroupADecoys: the rules of rules_ai.go, rules_vcs.go, rules_cloud.go,
// rules_ci.go and rules_payments.go leave alone the look-alikes that tool
// output is full of: UUIDs, hashes and git SHAs, base64 images and blobs,
// identifiers such as task-runner-7 or api_org_settings, versions.
func TestGroupADecoys(t *testing.T) {
	ours := map[string]bool{}
	for _, group := range [][]ruleDef{aiRules(), vcsRules(), cloudRules(), ciRules(), paymentRules()} {
		for _, r := range group {
			ours[r.id] = true
		}
	}
	rng := rand.New(rand.NewPCG(3, 7))
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const hexLower, hexUpper = "0123456789abcdef", "0123456789ABCDEF"
	b64 := base62Alphabet + "+/"
	var decoys []string
	for i := 0; i < 500; i++ {
		u := pick(hexLower, 8) + "-" + pick(hexLower, 4) + "-4" + pick(hexLower, 3) + "-8" + pick(hexLower, 3) + "-" + pick(hexLower, 12)
		decoys = append(decoys,
			u, strings.ToUpper(u), "req_"+u, "id-"+u,
			pick(hexLower, 40), pick(hexLower, 64), pick(hexLower, 32), pick(hexUpper, 40),
			"sha256:"+pick(hexLower, 64), "commit "+pick(hexLower, 40), "md5="+pick(hexLower, 32),
			"task-runner-"+pick("0123456789", 3), "api-gateway-"+pick("abcdefghijklmnopqrstuvwxyz", 8),
			"v1.0-"+pick("abcdefghijklmnopqrstuvwxyz", 6), "sk_"+pick("abcdefghijklmnopqrstuvwxyz", 12),
			pick(base62Alphabet, 20+rng.IntN(60)), pick(base62Alphabet+"_-", 43),
		)
	}
	for i := 0; i < 60; i++ {
		decoys = append(decoys,
			"data:image/png;base64,"+pick(b64, 200+rng.IntN(4000))+"==",
			"\"blob\": \""+pick(base62Alphabet+"_-", 100+rng.IntN(2000))+"\"",
		)
	}
	checkDecoys(t, decoys, ours)
}

// TestGroupASpans pins what the structured provider rules cover and the
// checksum they record.
func TestGroupASpans(t *testing.T) {
	const b36 = "0123456789abcdefghijklmnopqrstuvwxyz"
	b64 := base62Alphabet + "+/"
	atbb := crc32Hex("ATBB" + fakeChars(base62Alphabet, 24, 1))
	atatt := crc32Hex("ATATT3" + fakeChars(base62Alphabet+"_-", 177, 2) + "=")
	flip := func(s string) string { // change the last checksum digit
		if s[len(s)-1] == '0' {
			return s[:len(s)-1] + "1"
		}
		return s[:len(s)-1] + "0"
	}
	glpat := "glpat-" + fakeChars(base62Alphabet, 38, 3)
	suffix := ".01." + fakeChars(b36, 9, 4)
	sig := fakeChars(b64, 43, 5) + "="
	ad := fakeChars(base62Alphabet, 3, 6) + "8Q~" + fakeChars(base62Alphabet, 34, 7)
	tfc := fakeChars(base62Alphabet, 14, 8) + ".atlasv1." + fakeChars(base62Alphabet, 67, 9)
	dst := "dp.st.dev." + fakeChars(base62Alphabet, 43, 10)
	for i, tt := range []struct {
		in, want string
		cs       ChecksumResult
	}{
		{"p=" + atbb + ";", "p=[REDACTED:bitbucket-app-password];", ChecksumValid},
		{"p=" + flip(atbb) + ";", "p=[REDACTED:bitbucket-app-password];", ChecksumInvalid},
		{"t " + atatt + " x", "t [REDACTED:atlassian-api-token] x", ChecksumValid},
		{"t " + flip(atatt) + " x", "t [REDACTED:atlassian-api-token] x", ChecksumInvalid},
		{glpat + suffix + ".", "[REDACTED:gitlab-pat].", ChecksumNone},
		{glpat + suffix + "x", "[REDACTED:gitlab-pat]" + suffix + "x", ChecksumNone},
		{glpat + ".01.abc", "[REDACTED:gitlab-pat].01.abc", ChecksumNone},
		{"?sv=2024-05-04&sp=r&sig=" + sig + "&se=1", "?sv=2024-05-04&sp=r&sig=[REDACTED:azure-sas-token]&se=1", ChecksumNone},
		{"?sp=r&sig=" + sig + "&se=1", "?sp=r&sig=" + sig + "&se=1", ChecksumNone},
		{`"?sp=r\u0026sv=2024-05-04\u0026sig=` + sig + `\u0026se=1"`, `"?sp=r\u0026sv=2024-05-04\u0026sig=[REDACTED:azure-sas-token]\u0026se=1"`, ChecksumNone},
		{"'" + ad + "'", "'[REDACTED:azure-ad-client-secret]'", ChecksumNone},
		{"token = " + tfc + "\n", "token = [REDACTED:terraform-cloud-token]\n", ChecksumNone},
		{dst + ".", "[REDACTED:doppler-service-token].", ChecksumNone},
		{"sk_live_" + fakeChars("0123456789abcdef", 40, 11), "[REDACTED:paystack-secret-key]", ChecksumNone},
		{"sk_live_" + fakeChars(base62Alphabet, 40, 12), "[REDACTED:stripe]", ChecksumNone},
		{"sk-or-v1-" + fakeChars("0123456789abcdef", 64, 13), "[REDACTED:openrouter]", ChecksumNone},
	} {
		c := newTestCatalog(t, CatalogOptions{})
		for _, n := range []int{0, 1, 5} {
			got, fs := redactChunks(t, c.NewRedactor(testKey), tt.in, n)
			if got != tt.want {
				t.Errorf("case %d chunk %d: got %q, want %q", i, n, got, tt.want)
				continue
			}
			if len(fs) > 0 && fs[0].Checksum != tt.cs {
				t.Errorf("case %d: checksum %d, want %d", i, fs[0].Checksum, tt.cs)
			}
		}
		checkAgainstReference(t, newTestCatalog(t, CatalogOptions{}), CatalogOptions{}, tt.in, 1, 3)
	}
}
