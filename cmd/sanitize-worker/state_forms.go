package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/mcp-sanitize/mcp-sanitize/elicit"
	"github.com/mcp-sanitize/mcp-sanitize/statekeys"
)

// Form elicitation for `sanitize-worker state`: --policy-keys (the trusted
// reviewer keys, elicit.ParsePolicyKeys) and --form-policies (installed
// signed form policies, elicit.ParseFormPolicies) configure the
// elicitation guard (elicit.Guard) the state service seals and verifies
// with. Without them the service's default guard refuses every form-mode
// elicitation.

// errTrustFile is a configuration file that cannot be trusted or read;
// its text names neither the path nor any content.
var errTrustFile = errors.New("file unreadable, not a regular file, writable by group or others, or larger than 1 MiB")

// readTrustFile reads a configuration file that decides what the service
// trusts: a regular file of at most elicit.MaxConfigBytes that neither
// group nor others may write.
func readTrustFile(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, errTrustFile
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o022 != 0 || st.Size() > elicit.MaxConfigBytes {
		return nil, errTrustFile
	}
	b, err := io.ReadAll(io.LimitReader(fh, elicit.MaxConfigBytes+1))
	if err != nil || len(b) > elicit.MaxConfigBytes {
		return nil, errTrustFile
	}
	return b, nil
}

// formGuard loads --policy-keys and --form-policies and returns the guard
// they configure, nil when neither is given (the state service's default
// guard then refuses every form elicitation). A failure is logged (code
// and reason, never content) and reported as !ok.
func (f *stateFlags) formGuard(log *slog.Logger) (*elicit.Guard, bool) {
	if f.policyKeys == "" {
		log.Info("form elicitation off: no --policy-keys, every form-mode elicitation is refused")
		return nil, true
	}
	fail := func(msg, flag string, err error) (*elicit.Guard, bool) {
		attrs := []any{"flag", flag}
		var se *statekeys.Error
		if errors.As(err, &se) {
			attrs = append(attrs, "code", string(se.Code), "reason", string(se.Reason))
		} else {
			attrs = append(attrs, "error", err.Error())
		}
		log.Error(msg, attrs...)
		return nil, false
	}
	raw, err := readTrustFile(f.policyKeys)
	if err != nil {
		return fail("cannot read the policy keys", "--policy-keys", err)
	}
	keys, err := elicit.ParsePolicyKeys(raw)
	if err != nil {
		return fail("cannot parse the policy keys", "--policy-keys", err)
	}
	reviewers := make([]string, 0, len(keys))
	for id := range keys {
		reviewers = append(reviewers, id)
	}
	slices.Sort(reviewers)
	opts := []elicit.Option{elicit.WithPolicyKeys(keys)}
	var policies []string
	if f.formPolicies != "" {
		raw, err := readTrustFile(f.formPolicies)
		if err != nil {
			return fail("cannot read the form policies", "--form-policies", err)
		}
		signed, err := elicit.ParseFormPolicies(raw)
		if err != nil {
			return fail("cannot parse the form policies", "--form-policies", err)
		}
		for i, sp := range signed {
			p, err := elicit.VerifyFormPolicy(sp, keys)
			if err != nil {
				return fail(fmt.Sprintf("form policy %d does not verify against the policy keys", i+1), "--form-policies", err)
			}
			for form := range p.Forms {
				policies = append(policies, p.PolicyID+"/"+form)
			}
		}
		slices.Sort(policies)
		opts = append(opts, elicit.WithFormPolicies(signed...))
	}
	g, err := elicit.New(opts...)
	if err != nil {
		return fail("cannot configure the elicitation guard", "--form-policies", err)
	}
	// Ids only: reviewer key ids and policyId/formId of each installed rule.
	log.Info("form elicitation configured", "reviewers", reviewers, "forms", policies)
	return g, true
}
