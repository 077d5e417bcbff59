package scanners

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// More legitimate identifiers of real tool output, by class (issue 34,
// item 5, beside decoys_test.go): request ids as services write them,
// container image digests, lockfile integrity hashes, Kubernetes resource
// names, minified JavaScript, base64 of data that holds no secret. Each
// class is generated in many spellings; none may be redacted.

func moreDecoyClasses() map[string][]string {
	hex := "0123456789abcdef"
	b64 := base62Alphabet + "+/"
	out := map[string][]string{}
	add := func(class string, ss ...string) { out[class] = append(out[class], ss...) }
	enc := base64.StdEncoding.EncodeToString
	for i := uint32(1); i <= 10; i++ {
		sum := fakeChars(hex, 64, i+300)
		up := strings.ToUpper(sum)
		uuid := fakeUUID(i + 300)
		add("request-id",
			"Request-Id: req_"+fakeChars(base62Alphabet, 14, i),
			"x-amz-request-id: "+up[:16],
			"x-amz-cf-id: "+fakeChars(base62Alphabet+"_-", 56, i)+"==",
			"cf-ray: "+sum[:16]+"-FRA",
			"X-GitHub-Request-Id: "+up[:4]+":"+up[4:8]+":"+up[8:14]+":"+up[14:20]+":"+up[20:28],
			`{"requestId": "`+uuid+`", "took_ms": 12}`,
			"x-request-id="+sum[:32],
			"ms-request-id: "+uuid,
			"apigw-requestid: "+fakeChars(base62Alphabet, 16, i)+"=",
			"operation_id "+sum[:24]+" finished",
		)
		add("image-digest",
			"image: ghcr.io/org/api@sha256:"+sum,
			"FROM python:3.12-slim@sha256:"+sum,
			"Digest: sha256:"+sum,
			`"RepoDigests": ["nginx@sha256:`+sum+`"]`,
			"Status: Downloaded newer image for redis@sha256:"+sum,
			"imageID: docker-pullable://registry.k8s.io/pause@sha256:"+sum,
			sum[:12]+"   3 weeks ago   142MB",
			"containerd://"+sum,
		)
		add("lockfile-hash",
			`"integrity": "sha512-`+fakeChars(b64, 86, i)+`=="`,
			`  integrity sha1-`+fakeChars(b64, 27, i)+`=`,
			"  resolution: {integrity: sha512-"+fakeChars(b64, 86, i+1)+"==}",
			"golang.org/x/net v0.30.0 h1:"+fakeChars(b64, 43, i)+"=",
			"golang.org/x/net v0.30.0/go.mod h1:"+fakeChars(b64, 43, i+2)+"=",
			`checksum = "`+sum+`"`,
			`{file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:`+sum+`"}`,
			"    --hash=sha256:"+sum+" \\",
			`"resolved": "https://registry.npmjs.org/token-types/-/token-types-6.0.0.tgz"`,
		)
		pod := fakeChars("bcdfghjklmnpqrstvwxz2456789", 5, i)
		rs := fakeChars("bcdfghjklmnpqrstvwxz2456789", 9, i+7)
		add("k8s-name",
			"pod/api-server-"+rs+"-"+pod,
			"secret-store-csi-driver-"+pod+"   3/3   Running",
			"default-token-"+pod,
			"replicaset.apps/stripe-webhook-"+rs,
			"secretKeyRef: {name: db-credentials, key: password}",
			"serviceAccountName: token-refresher-"+pod,
			"kubectl get secret app-tls-"+pod+" -o yaml",
			"configmap/api-key-rotation-"+rs+" created",
			"job.batch/secret-scanner-"+fmt.Sprint(28391000+i)+" complete",
			"persistentvolumeclaim/password-vault-data-"+pod,
		)
		add("minified-js",
			`!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():e.lib=t()}(this,function(){return{apiKey:null}})`,
			`var a=function(t){return t.apiKey||""},o=function(n){return n.password||void 0};`,
			`e.exports={token:null,secret:void 0,password:""};`,
			`o.password=n.password||"",o.token=n.token||null;`,
			`__webpack_require__.p+"static/js/"+e+"."+{`+fmt.Sprint(100+i)+`:"`+sum[:8]+`"}[e]+".chunk.js"`,
			`function r(t){const{secret:n,...s}=t;return s}`,
		)
		envName := strings.ToUpper(fmt.Sprintf("REACT_APP_%s_SERVICE_%d_PASSWORD", []string{"FIREBASE_DEV", "PAYMENTS_GATEWAY", "ANALYTICS_INGEST"}[i%3], i))
		add("env-lookup-long",
			"const password = process.env."+envName+` || "not-set"`,
			"password: process.env."+envName+",",
			"api_key = settings."+strings.ToLower(envName),
			"token=config."+envName+"&&",
		)
		add("variable-path",
			envName+"=$"+strings.Replace(envName, "PASSWORD", "BASE_URL", 1)+"/classroom/#/forgot_password",
			"password_file=${HOME}/.config/app-"+fmt.Sprint(i)+"/password",
			"SECRET_PATH=$VAULT_ADDR/v1/secret/data/app"+fmt.Sprint(i),
		)
		add("base64-data",
			enc([]byte(fmt.Sprintf(`{"version":%d,"name":"app","replicas":3}`, i))),
			"data:image/png;base64,iVBORw0KGgo"+enc([]byte(strings.Repeat("\x00\x00\x00\rIHDR", int(i)))),
			enc([]byte("Lorem ipsum dolor sit amet, consectetur adipiscing elit "+fmt.Sprint(i))),
			"ca.crt: "+enc([]byte("-----BEGIN CERTIFICATE-----\nMIIB"+fakeChars(b64, 60, i)+"\n-----END CERTIFICATE-----\n")),
			`"thumbnail": "`+enc([]byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d"/>`, i)))+`"`,
			"Content-MD5: "+enc([]byte(sum[:16])),
		)
	}
	return out
}

// TestDecoysKeptMore: no decoy of these classes is changed by the default
// catalog (after the Normalizer, as in the pipeline), bare or in a log line.
func TestDecoysKeptMore(t *testing.T) {
	c := newTestCatalog(t, CatalogOptions{})
	r := c.NewRedactor(testKey)
	total := 0
	for class, ds := range moreDecoyClasses() {
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
	if total < 900 {
		t.Fatalf("only %d decoys", total)
	}
	t.Logf("%d decoys", total)
}
