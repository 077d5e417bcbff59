package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// suiteDir is the official JSON-Schema-Test-Suite (draft 2020-12 tests and
// remotes), relative to this package.
var suiteDir = filepath.Join("..", "..", "shared", "corpora", "json-schema-test-suite")

// suiteExceptions lists required cases that are expected to fail, keyed
// "file|group|test", each with its reason (also in docs/schema.md). A listed
// case that passes fails the test, so the list cannot go stale.
var suiteExceptions = map[string]string{}

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// suiteRemotes serves remotes/ from memory under http://localhost:1234/,
// for this test only: production compiles have no remote loader.
func suiteRemotes(t *testing.T) func(string) (any, error) {
	t.Helper()
	root := filepath.Join(suiteDir, "remotes")
	docs := map[string]any{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		v, err := decodeWith(b, 256, CodeInvalid, CodeTooDeep)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		docs["http://localhost:1234/"+filepath.ToSlash(rel)] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return func(url string) (any, error) {
		if v, ok := docs[url]; ok {
			return v, nil
		}
		return nil, errDenied
	}
}

type suiteCount struct{ passed, total, fastDecided, fastSchemas, schemas, rawValid int }

// fastAgrees compares the fast path with the library on one value: the
// fast path may say "unknown", never the opposite of the library.
func fastAgrees(s *Schema, v any) (decided, agrees bool) {
	if s.fast == nil {
		return false, true
	}
	lib := s.s.Validate(v) == nil
	switch s.fast.validate(v, DefaultMaxEvaluations) {
	case fastValid:
		return true, lib
	case fastInvalid:
		return true, !lib
	}
	return false, true
}

// runSuiteFile runs one file and returns the failing case keys.
func runSuiteFile(t *testing.T, path, name string, lim Limits, remote func(string) (any, error), count *suiteCount) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(b, &groups); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var failed []string
	for _, g := range groups {
		s, cerr := compile(g.Schema, lim, remote)
		count.schemas++
		if cerr == nil && s.fast != nil {
			count.fastSchemas++
		}
		for _, tc := range g.Tests {
			key := name + "|" + g.Description + "|" + tc.Description
			count.total++
			if cerr != nil {
				failed = append(failed, key+" (compile: "+cerr.Error()+")")
				continue
			}
			v, err := Decode(tc.Data, 1024)
			if err != nil {
				failed = append(failed, key+" (decode: "+err.Error()+")")
				continue
			}
			decided, agrees := fastAgrees(s, v)
			if !agrees {
				failed = append(failed, key+" (fast path disagrees with the library)")
				continue
			}
			if decided {
				count.fastDecided++
			}
			viol := s.Validate(v)
			if s.ValidRaw(tc.Data, 1024, nil) {
				// ValidRaw's true is Decode's, Validate's and Project's
				// (where the library and the suite disagree, an optional
				// case, the suite's verdict is counted below).
				if _, dropped := s.Project(v); viol != nil || len(dropped) > 0 {
					failed = append(failed, key+" (ValidRaw says valid)")
					continue
				}
				count.rawValid++
			}
			if (viol == nil) == tc.Valid && s.Valid(v) == tc.Valid {
				count.passed++
				continue
			}
			failed = append(failed, key)
		}
	}
	return failed
}

func suiteFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	return files
}

// TestJSONSchemaTestSuite runs every required draft 2020-12 case of the
// official suite through Compile (with the remotes served from memory),
// Decode and Validate, prints how many passed, and fails on any failure not
// listed in suiteExceptions.
func TestJSONSchemaTestSuite(t *testing.T) {
	tests := filepath.Join(suiteDir, "tests", "draft2020-12")
	if _, err := os.Stat(tests); err != nil {
		t.Skipf("%s is absent: the JSON-Schema-Test-Suite corpus (../shared) is not available here", tests)
	}
	remote := suiteRemotes(t)
	var count suiteCount
	seen := map[string]bool{}
	for _, f := range suiteFiles(t, tests) {
		for _, key := range runSuiteFile(t, filepath.Join(tests, f), f, Limits{}, remote, &count) {
			base := key
			if i := strings.Index(key, " ("); i >= 0 {
				base = key[:i]
			}
			if reason, ok := suiteExceptions[base]; ok {
				seen[base] = true
				t.Logf("expected exception: %s: %s", base, reason)
				continue
			}
			t.Errorf("required case failed: %s", key)
		}
	}
	for k := range suiteExceptions {
		if !seen[k] {
			t.Errorf("listed exception now passes (remove it from suiteExceptions and docs/schema.md): %s", k)
		}
	}
	fmt.Printf("JSON-Schema-Test-Suite draft2020-12 required: %d/%d passed (%d listed exceptions); fast path on %d/%d schemas, decided %d cases, agreed with the library on all; ValidRaw said valid on %d cases, all valid to Validate and Project\n",
		count.passed, count.total, len(suiteExceptions), count.fastSchemas, count.schemas, count.fastDecided, count.rawValid)
}

// TestJSONSchemaTestSuiteOptional reports the optional cases: format cases
// with format assertion on (Limits.AssertFormat), the other optional files
// with the production limits. It reports and never fails: these cases are
// not part of the specification's requirements.
func TestJSONSchemaTestSuiteOptional(t *testing.T) {
	opt := filepath.Join(suiteDir, "tests", "draft2020-12", "optional")
	if _, err := os.Stat(opt); err != nil {
		t.Skipf("%s is absent: the JSON-Schema-Test-Suite corpus (../shared) is not available here", opt)
	}
	remote := suiteRemotes(t)
	var fmtCount, otherCount suiteCount
	for _, f := range suiteFiles(t, filepath.Join(opt, "format")) {
		var c suiteCount
		failed := runSuiteFile(t, filepath.Join(opt, "format", f), "optional/format/"+f, Limits{AssertFormat: true}, remote, &c)
		fmtCount.passed += c.passed
		fmtCount.total += c.total
		t.Logf("optional/format/%s: %d/%d", f, c.passed, c.total)
		for _, k := range failed {
			t.Logf("optional format case failed: %s", k)
		}
	}
	for _, f := range suiteFiles(t, opt) {
		var c suiteCount
		failed := runSuiteFile(t, filepath.Join(opt, f), "optional/"+f, Limits{}, remote, &c)
		otherCount.passed += c.passed
		otherCount.total += c.total
		t.Logf("optional/%s: %d/%d", f, c.passed, c.total)
		for _, k := range failed {
			t.Logf("optional case failed: %s", k)
		}
	}
	fmt.Printf("JSON-Schema-Test-Suite draft2020-12 optional/format (format asserted): %d/%d passed\n", fmtCount.passed, fmtCount.total)
	fmt.Printf("JSON-Schema-Test-Suite draft2020-12 optional (other files): %d/%d passed\n", otherCount.passed, otherCount.total)
}
