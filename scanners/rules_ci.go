package scanners

import "strings"

// Rules for CI/CD services, deployment platforms and developer SaaS.

func ciRules() []ruleDef {
	hex := "0123456789abcdef"
	wd := base62Alphabet + "_-"
	b64 := base62Alphabet + "+/"
	circle := func(prefix string, seed uint32) string {
		return prefix + fakeChars(base62Alphabet, 22, seed) + "_" + fakeChars(hex, 40, seed+1)
	}
	circleShape := bodyShape(bodySeg{set: setAlnum, n: 22}, bodySeg{lit: "_"}, bodySeg{set: setHexLower, n: 40})
	tfc := func(seed uint32) string {
		return fakeChars(base62Alphabet, 14, seed) + ".atlasv1." + fakeChars(wd, 67, seed+1)
	}
	return []ruleDef{
		provRule("circleci-pat", "CircleCI", "high", "CircleCI personal API token (CCIPAT_, 22 base62, _, 40 hex)",
			[]form{strictForm(tokenSpec{prefixes: []string{"CCIPAT_"}, body: setWord, min: 63, max: 63, validate: circleShape})},
			func() (tp, fp []string) {
				tp = []string{
					circle("CCIPAT_", 1),
					"Circle-Token: " + circle("CCIPAT_", 3),
					"export CIRCLECI_TOKEN=" + circle("CCIPAT_", 5),
				}
				fp = []string{
					"CCIPAT_" + fakeChars(base62Alphabet, 40, 7),
					circle("CCIPAT_", 8) + "0",
					"ccipat_PLACEHOLDER_syncer_test_value",
				}
				return
			}),
		provRule("circleci-project-token", "CircleCI", "high", "CircleCI project API token (CCIPRJ_, 22 base62, _, 40 hex)",
			[]form{strictForm(tokenSpec{prefixes: []string{"CCIPRJ_"}, body: setWord, min: 63, max: 63, validate: circleShape})},
			func() (tp, fp []string) {
				tp = []string{
					circle("CCIPRJ_", 11),
					"main.svg?style=svg&circle-token=" + circle("CCIPRJ_", 13) + ")",
					"token: '" + circle("CCIPRJ_", 15) + "'",
				}
				fp = []string{
					"CCIPRJ_" + fakeChars(base62Alphabet, 22, 17) + "_" + fakeChars(hex, 39, 18),
					"CCIPRJ_" + fakeChars(base62Alphabet, 22, 19) + "-" + fakeChars(hex, 40, 20),
					"xCCIPRJ_" + circle("", 21),
				}
				return
			}),
		provRule("buildkite-token", "Buildkite", "high", "Buildkite user API access token (bkua_ and 40 of [a-z0-9])",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"bkua_"}, body: setLowerAlnum, min: 40, max: 40,
				validate: func(b []byte) (bool, ChecksumResult) {
					_, l, d := hasClasses(b)
					return l && d, ChecksumNone
				},
			})},
			func() (tp, fp []string) {
				tp = []string{
					"bkua_" + fakeChars(hex, 40, 1),
					"BUILDKITE_API_TOKEN=bkua_" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 40, 2),
					"Authorization: Bearer bkua_" + fakeChars(hex, 40, 3),
				}
				fp = []string{
					"bkua_" + fakeChars(hex, 39, 4),
					"bkua_" + strings.Repeat("x", 40),
					"bkua_" + fakeChars("ABCDEF0123456789", 40, 5),
				}
				return
			}),
		provRule("vercel-token", "Vercel", "medium", "Vercel personal access token (vcp_ and 24-64 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"vcp_"}, body: setAlnum, min: 24, max: 64, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"vcp_" + fakeChars(base62Alphabet, 40, 1),
					"VERCEL_TOKEN=vcp_" + fakeChars(base62Alphabet, 48, 2),
					"vercel deploy --token vcp_" + fakeChars(base62Alphabet, 32, 3),
				}
				fp = []string{
					"VERCEL_TOKEN=vcp_your_token_here",
					"vcp_" + fakeChars(base62Alphabet, 23, 4),
					"vcp_" + fakeChars("abcdefghijklmnopqrstuvwxyz", 40, 5),
				}
				return
			}),
		provRule("netlify-token", "Netlify", "high", "Netlify personal access token (nfp_ and 36-64 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"nfp_"}, body: setAlnum, min: 36, max: 64, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"nfp_" + fakeChars(base62Alphabet, 40, 1),
					"NETLIFY_AUTH_TOKEN=nfp_" + fakeChars(base62Alphabet, 36, 2),
					"netlify deploy --auth nfp_" + fakeChars(base62Alphabet, 44, 3),
				}
				fp = []string{
					"nfp_" + fakeChars(base62Alphabet, 35, 4),
					"nfp_" + strings.Repeat("x", 40),
					"infp_" + fakeChars(base62Alphabet, 40, 5),
				}
				return
			}),
		provRule("heroku-api-key", "Heroku", "high", "Heroku API key (HRKU-AA and 58 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"HRKU-AA"}, body: setWordDash, min: 58, max: 58, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"HRKU-AA" + fakeChars(wd, 58, 1),
					"HEROKU_API_KEY=HRKU-AA" + fakeChars(wd, 58, 2),
					"heroku: 'HRKU-AA" + fakeChars(base62Alphabet, 58, 3) + "'",
				}
				fp = []string{
					"HRKU-AA" + fakeChars(wd, 57, 4),
					"HRKU-AB" + fakeChars(wd, 58, 5),
					"HRKU-AA" + fakeChars(wd, 59, 6),
				}
				return
			}),
		dopplerRule("doppler-personal-token", "dp.pt.", "personal token", 1),
		dopplerRule("doppler-cli-token", "dp.ct.", "CLI token", 11),
		dopplerRule("doppler-service-account-token", "dp.sa.", "service account token", 21),
		dopplerRule("doppler-scim-token", "dp.scim.", "SCIM token", 31),
		dopplerRule("doppler-audit-token", "dp.audit.", "audit token", 41),
		provRule("doppler-service-token", "Doppler", "high", "Doppler service token (dp.st., optionally a config slug and '.', then 40-44 base62)",
			[]form{dopplerServiceForm()},
			func() (tp, fp []string) {
				tp = []string{
					"dp.st." + fakeChars(base62Alphabet, 43, 51),
					"DOPPLER_TOKEN=dp.st.dev." + fakeChars(base62Alphabet, 43, 52),
					"token: dp.st.prd_eu-1." + fakeChars(base62Alphabet, 40, 53) + ".",
				}
				fp = []string{
					"DOPPLER_TOKEN=dp.st.dev.xxxxxx",
					"dp.st.Dev." + fakeChars(base62Alphabet, 43, 54),
					"dp.st." + fakeChars(base62Alphabet, 45, 55),
					"hfdp.st.proxy",
				}
				return
			}),
		provRule("terraform-cloud-token", "HashiCorp", "high", "Terraform Cloud / Enterprise API token (14 base62, .atlasv1., 60-70 of [A-Za-z0-9_=-])",
			[]form{terraformForm()},
			func() (tp, fp []string) {
				tp = []string{
					tfc(1),
					"token = \"" + tfc(3) + "\"",
					"TF_TOKEN_app_terraform_io=" + tfc(5),
				}
				fp = []string{
					fakeChars(base62Alphabet, 13, 7) + ".atlasv1." + fakeChars(wd, 67, 8),
					fakeChars(base62Alphabet, 14, 9) + ".ATLASV1." + fakeChars(wd, 67, 10),
					fakeChars(base62Alphabet, 14, 11) + ".atlasv1." + fakeChars(wd, 59, 12),
					"x-" + tfc(13),
				}
				return
			}),
		provRule("pulumi-token", "Pulumi", "high", "Pulumi access token (pul- and 40 hex)",
			[]form{tokenSpec{prefixes: []string{"pul-"}, body: setHexLower, min: 40, max: 40, notBefore: setWordDash, notAfter: setWordDash}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"pul-" + fakeChars(hex, 40, 1),
					"PULUMI_ACCESS_TOKEN=pul-" + fakeChars(hex, 40, 2),
					"\"pul-" + fakeChars(hex, 40, 3) + "\"",
				}
				fp = []string{
					"pul-" + fakeChars(hex, 39, 4),
					"pul-" + fakeChars(hex, 41, 5),
					"pull-request-" + fakeChars(hex, 40, 6),
				}
				return
			}),
		provRule("flyio-token", "Fly.io", "high", "Fly.io organization token (fo1_ and 43 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"fo1_"}, body: setWordDash, min: 43, max: 43, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"fo1_" + fakeChars(wd, 43, 1),
					"FLY_API_TOKEN=fo1_" + fakeChars(wd, 43, 2),
					"flyctl deploy -t fo1_" + fakeChars(wd, 43, 3),
				}
				fp = []string{
					"fo1_" + fakeChars(wd, 42, 4),
					"fo1_" + fakeChars(wd, 44, 5),
					"info1_" + fakeChars(wd, 43, 6),
				}
				return
			}),
		provRule("flyio-macaroon", "Fly.io", "high", "Fly.io macaroon token (fm1a_, fm1r_, fm2_ and 100+ base64), as in \"FlyV1 fm2_...\"",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"fm1a_", "fm1r_", "fm2_"}, body: setBase64Pad, min: 100, max: 4096,
				validate: func(b []byte) (bool, ChecksumResult) { return paddedBase64(b), ChecksumNone },
			})},
			func() (tp, fp []string) {
				tp = []string{
					"FlyV1 fm2_" + fakeChars(b64, 400, 1) + "==",
					"FLY_API_TOKEN=\"FlyV1 fm2_" + fakeChars(b64, 300, 2) + ",fm2_" + fakeChars(b64, 200, 3) + "\"",
					"fm1r_" + fakeChars(b64, 120, 4),
				}
				fp = []string{
					"fm2_" + fakeChars(b64, 99, 5),
					"fm2_" + fakeChars(b64, 150, 6) + "====",
					"fm2_" + fakeChars(b64, 100, 7) + "=" + fakeChars(b64, 10, 8),
					"xfm1a_" + fakeChars(b64, 120, 9),
				}
				return
			}),
		provRule("render-api-key", "Render", "medium", "Render API key (rnd_ and 24-48 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"rnd_"}, body: setAlnum, min: 24, max: 48, validate: mixes3})},
			func() (tp, fp []string) {
				tp = []string{
					"rnd_" + fakeChars(base62Alphabet, 32, 1),
					"RENDER_API_KEY=rnd_" + fakeChars(base62Alphabet, 28, 2),
					"Authorization: Bearer rnd_" + fakeChars(base62Alphabet, 32, 3),
				}
				fp = []string{
					"rnd_generatorStateForSimulation",
					"rnd_" + fakeChars(base62Alphabet, 23, 4),
					"x_rnd_" + fakeChars(base62Alphabet, 32, 5),
				}
				return
			}),
		provRule("linear-api-key", "Linear", "high", "Linear personal API key (lin_api_ and 40 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"lin_api_"}, body: setAlnum, min: 40, max: 40, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"lin_api_" + fakeChars(base62Alphabet, 40, 1),
					"LINEAR_API_KEY=lin_api_" + fakeChars(base62Alphabet, 40, 2),
					"Authorization: lin_api_" + fakeChars(base62Alphabet, 40, 3),
				}
				fp = []string{
					"lin_api_" + fakeChars(base62Alphabet, 39, 4),
					"lin_api_" + fakeChars(base62Alphabet, 41, 5),
					"berlin_api_" + fakeChars(base62Alphabet, 40, 6),
				}
				return
			}),
		provRule("notion-token", "Notion", "high", "Notion integration token (ntn_, 11 digits, 35 base62)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"ntn_"}, body: setAlnum, min: 46, max: 46,
				validate: bodyShape(bodySeg{set: setDigits, n: 11}, bodySeg{set: setAlnum, n: 35}),
			})},
			func() (tp, fp []string) {
				tp = []string{
					"ntn_" + fakeChars("0123456789", 11, 1) + fakeChars(base62Alphabet, 35, 2),
					"NOTION_TOKEN=ntn_" + fakeChars("0123456789", 11, 3) + fakeChars(base62Alphabet, 35, 4),
					"new Client({ auth: \"ntn_" + fakeChars("0123456789", 11, 5) + fakeChars(base62Alphabet, 35, 6) + "\" })",
				}
				fp = []string{
					"ntn_" + fakeChars(base62Alphabet, 46, 7),
					"ntn_" + fakeChars("0123456789", 11, 8) + fakeChars(base62Alphabet, 34, 9),
					"ntn_" + fakeChars("0123456789", 11, 10) + fakeChars(base62Alphabet, 36, 11),
				}
				return
			}),
		provRule("postman-api-key", "Postman", "high", "Postman API key (PMAK-, 24 hex, -, 34 hex)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"PMAK-"}, body: makeSet("0-9a-fA-F-"), min: 59, max: 59, notBefore: setWordDash, notAfter: setWordDash,
				validate: bodyShape(bodySeg{set: makeSet("0-9a-fA-F"), n: 24}, bodySeg{lit: "-"}, bodySeg{set: makeSet("0-9a-fA-F"), n: 34}),
			})},
			func() (tp, fp []string) {
				tp = []string{
					"PMAK-" + fakeChars(hex, 24, 1) + "-" + fakeChars(hex, 34, 2),
					"X-Api-Key: PMAK-" + fakeChars(hex, 24, 3) + "-" + fakeChars(hex, 34, 4),
					"POSTMAN_API_KEY='PMAK-" + fakeChars("0123456789ABCDEF", 24, 5) + "-" + fakeChars(hex, 34, 6) + "'",
				}
				fp = []string{
					"PMAK-" + fakeChars(hex, 24, 7) + "-" + fakeChars(hex, 33, 8),
					"PMAK-" + fakeChars(hex, 59, 9),
					"PMAK-" + fakeChars(base62Alphabet, 24, 10) + "-" + fakeChars(base62Alphabet, 34, 11),
				}
				return
			}),
		provRule("figma-token", "Figma", "high", "Figma personal access token (figd_ and 36-64 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"figd_"}, body: setWordDash, min: 36, max: 64, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"figd_" + fakeChars(wd, 40, 1),
					"FIGMA_TOKEN=figd_" + fakeChars(wd, 43, 2),
					"X-Figma-Token: figd_" + fakeChars(wd, 38, 3),
				}
				fp = []string{
					"figd_" + fakeChars(wd, 35, 4),
					"figd_" + strings.Repeat("x", 40),
					"configd_" + fakeChars(wd, 40, 5),
				}
				return
			}),
		provRule("sonarqube-token", "SonarSource", "high", "SonarQube / SonarCloud token (squ_ user, sqp_ project, sqa_ global analysis, and 40 hex)",
			[]form{tokenSpec{prefixes: []string{"squ_", "sqp_", "sqa_"}, body: setHexLower, min: 40, max: 40}.form()},
			func() (tp, fp []string) {
				tp = []string{
					"squ_" + fakeChars(hex, 40, 1),
					"sonar.token=sqp_" + fakeChars(hex, 40, 2),
					"SONAR_TOKEN: sqa_" + fakeChars(hex, 40, 3),
				}
				fp = []string{
					"squ_" + fakeChars(hex, 39, 4),
					"sqx_" + fakeChars(hex, 40, 5),
					"squ_" + fakeChars("0123456789ABCDEF", 40, 6),
				}
				return
			}),
		provRule("harness-token", "Harness", "high", "Harness personal or service account token (pat. / sat., 22, ., 24, ., 20)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"pat.", "sat."}, body: setWordDashDot, min: 68, max: 68,
				validate: bodyShape(bodySeg{set: setWordDash, n: 22}, bodySeg{lit: "."}, bodySeg{set: setAlnum, n: 24}, bodySeg{lit: "."}, bodySeg{set: setAlnum, n: 20}),
			})},
			func() (tp, fp []string) {
				tp = []string{
					"pat." + fakeChars(wd, 22, 1) + "." + fakeChars(base62Alphabet, 24, 2) + "." + fakeChars(base62Alphabet, 20, 3),
					"HARNESS_API_KEY=sat." + fakeChars(wd, 22, 4) + "." + fakeChars(base62Alphabet, 24, 5) + "." + fakeChars(base62Alphabet, 20, 6),
					"x-api-key: pat." + fakeChars(wd, 22, 7) + "." + fakeChars(base62Alphabet, 24, 8) + "." + fakeChars(base62Alphabet, 20, 9) + "\n",
				}
				fp = []string{
					"pat." + fakeChars(wd, 22, 10) + "." + fakeChars(base62Alphabet, 24, 11),
					"compat." + fakeChars(wd, 22, 12) + "." + fakeChars(base62Alphabet, 24, 13) + "." + fakeChars(base62Alphabet, 20, 14),
					"see pat.md and sat.txt",
				}
				return
			}),
		provRule("infracost-api-key", "Infracost", "high", "Infracost API key (ico- and 32 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"ico-"}, body: setAlnum, min: 32, max: 32, notBefore: setWordDash, notAfter: setWordDash, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"ico-" + fakeChars(base62Alphabet, 32, 1),
					"INFRACOST_API_KEY=ico-" + fakeChars(base62Alphabet, 32, 2),
					"api_key: \"ico-" + fakeChars(base62Alphabet, 32, 3) + "\"",
				}
				fp = []string{
					"favico-" + fakeChars(base62Alphabet, 32, 4),
					"ico-" + fakeChars(base62Alphabet, 31, 5),
					"ico-" + fakeChars("abcdefghijklmnopqrstuvwxyz", 32, 6),
				}
				return
			}),
		provRule("prefect-api-key", "Prefect", "high", "Prefect Cloud API key (pnu_ and 36 base62)",
			[]form{strictForm(tokenSpec{prefixes: []string{"pnu_"}, body: setAlnum, min: 36, max: 36, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"pnu_" + fakeChars(base62Alphabet, 36, 1),
					"PREFECT_API_KEY=pnu_" + fakeChars(base62Alphabet, 36, 2),
					"prefect cloud login -k pnu_" + fakeChars(base62Alphabet, 36, 3),
				}
				fp = []string{
					"pnu_" + fakeChars(base62Alphabet, 35, 4),
					"pnu_" + fakeChars(base62Alphabet, 37, 5),
					"gpnu_" + fakeChars(base62Alphabet, 36, 6),
				}
				return
			}),
		provRule("scalingo-api-token", "Scalingo", "high", "Scalingo API token (tk-us- and 48 of [A-Za-z0-9_-])",
			[]form{strictForm(tokenSpec{prefixes: []string{"tk-us-"}, body: setWordDash, min: 48, max: 48, validate: mixes2})},
			func() (tp, fp []string) {
				tp = []string{
					"tk-us-" + fakeChars(wd, 48, 1),
					"SCALINGO_API_TOKEN=tk-us-" + fakeChars(wd, 48, 2),
					"scalingo login --api-token tk-us-" + fakeChars(wd, 48, 3),
				}
				fp = []string{
					"tk-us-" + fakeChars(wd, 47, 4),
					"tk-us-east-1-cluster-configuration-for-production-workloads",
					"atk-us-" + fakeChars(wd, 48, 5),
				}
				return
			}),
		provRule("octopus-deploy-api-key", "Octopus Deploy", "medium", "Octopus Deploy API key (API- and 26 of [A-Z0-9] with letters and digits)",
			[]form{strictForm(tokenSpec{
				prefixes: []string{"API-"}, body: setUpperAlnum, min: 26, max: 26, notBefore: setWordDash, notAfter: setWordDash,
				validate: func(b []byte) (bool, ChecksumResult) {
					u, _, d := hasClasses(b)
					return u && d, ChecksumNone
				},
			})},
			func() (tp, fp []string) {
				tp = []string{
					"API-" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 26, 1),
					"X-Octopus-ApiKey: API-" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 26, 2),
					"OCTOPUS_API_KEY=API-" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 26, 3),
				}
				fp = []string{
					"API-ABCDEFGHIJKLMNOPQRSTUVWXYZ",
					"API-" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 25, 4),
					"my-API-" + fakeChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 26, 5),
					"api-" + fakeChars("abcdefghijklmnopqrstuvwxyz0123456789", 26, 6),
				}
				return
			}),
	}
}

// paddedBase64 reports whether b is base64 whose '=' bytes, at most three,
// all come at the end.
func paddedBase64(b []byte) bool {
	n := len(b)
	for n > 0 && b[n-1] == '=' {
		n--
	}
	if len(b)-n > 3 {
		return false
	}
	for _, c := range b[:n] {
		if c == '=' {
			return false
		}
	}
	return true
}

// dopplerRule declares a Doppler token type: prefix and 40-44 base62.
func dopplerRule(id, prefix, what string, seed uint32) ruleDef {
	return provRule(id, "Doppler", "high", "Doppler "+what+" ("+prefix+" and 40-44 base62)",
		[]form{strictForm(tokenSpec{prefixes: []string{prefix}, body: setAlnum, min: 40, max: 44, notBefore: setWordDashDot, notAfter: setWordDash, validate: mixes3})},
		func() (tp, fp []string) {
			tp = []string{
				prefix + fakeChars(base62Alphabet, 43, seed),
				"DOPPLER_TOKEN=" + prefix + fakeChars(base62Alphabet, 43, seed+1),
				"doppler secrets --token " + prefix + fakeChars(base62Alphabet, 40, seed+2) + ".",
			}
			fp = []string{
				prefix + fakeChars(base62Alphabet, 39, seed+3),
				prefix + "example",
				"x" + prefix + fakeChars(base62Alphabet, 43, seed+4),
				prefix + fakeChars(base62Alphabet, 43, seed+5) + "_x",
			}
			return
		})
}

// dopplerServiceForm: "dp.st." not preceded by a byte of [A-Za-z0-9_.-],
// then optionally a config slug (1-35 of [a-z0-9_-]) and '.', then 40-44
// base62 holding all three classes, not followed by a byte of [A-Za-z0-9_-].
func dopplerServiceForm() form {
	const pre, maxSlug, maxTok = "dp.st.", 35, 44
	return form{
		keywords:  []string{pre},
		back:      1,
		ahead:     len(pre) + maxSlug + 1 + maxTok + 2,
		notBefore: setWordDashDot,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != pre || ks > 0 && setWordDashDot[d[ks-1]] {
				return noMatch
			}
			// run returns the end of the run of [A-Za-z0-9_-] from i, at
			// most maxTok+1 long.
			run := func(i int) int {
				for n := 0; i < len(d) && n <= maxTok && setWordDash[d[i]]; n++ {
					i++
				}
				return i
			}
			s := ke
			e := run(s)
			if v.more(e) {
				return result{status: resMore}
			}
			if n := e - s; n >= 1 && n <= maxSlug && e < len(d) && d[e] == '.' && lowerSlug(d[s:e]) {
				s = e + 1
				e = run(s)
				if v.more(e) {
					return result{status: resMore}
				}
			}
			tok := d[s:e]
			if len(tok) < 40 || len(tok) > maxTok {
				return noMatch
			}
			for _, c := range tok {
				if !setAlnum[c] {
					return noMatch
				}
			}
			if ok, _ := mixes3(tok); !ok {
				return noMatch
			}
			return result{status: resMatch, start: ks, end: e}
		},
	}
}

// lowerSlug reports whether b is made of [a-z0-9_-].
func lowerSlug(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// terraformForm: 14 base62 not preceded by a byte of [A-Za-z0-9_-], then
// ".atlasv1." (this case), then 60-70 of [A-Za-z0-9_=-] not followed by one.
func terraformForm() form {
	const kw, lead, min, max = ".atlasv1.", 14, 60, 70
	return form{
		keywords: []string{kw},
		back:     lead + 1,
		ahead:    len(kw) + max + 1,
		check: func(v *view, ks, ke int) result {
			d := v.data
			if string(d[ks:ke]) != kw || ks < lead || ks > lead && setWordDash[d[ks-lead-1]] {
				return noMatch
			}
			for _, c := range d[ks-lead : ks] {
				if !setAlnum[c] {
					return noMatch
				}
			}
			i := ke
			for i < len(d) && i-ke <= max && setWordDashEq[d[i]] {
				i++
			}
			if v.more(i) {
				return result{status: resMore}
			}
			if i-ke < min || i-ke > max || placeholderBody(d[ks-lead:ks]) || placeholderBody(d[ke:i]) {
				return noMatch // filler (xxxx….atlasv1.xxxx…)
			}
			return result{status: resMatch, start: ks - lead, end: i}
		},
	}
}
