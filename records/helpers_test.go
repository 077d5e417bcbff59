package records

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-sanitize/mcp-sanitize/pipeline"
)

var (
	engineOnce sync.Once
	engine     *pipeline.Engine
	engineErr  error
)

// testEngine is an engine with the default policy, shared by the tests.
func testEngine(t testing.TB) *pipeline.Engine {
	t.Helper()
	engineOnce.Do(func() { engine, engineErr = pipeline.NewEngine(pipeline.DefaultPolicy()) })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engine
}

// runRecords runs the engine over in with o (Kind defaults to tool-result),
// writing evidence to the file evPath when it is not empty. It returns Run's
// error, the output and the reported errors, one a line.
func runRecords(t testing.TB, in string, o Options, evPath string) (error, string, string) {
	t.Helper()
	if o.Kind == "" {
		o.Kind = pipeline.KindToolResult
	}
	var reports strings.Builder
	o.Report = func(err error) { reports.WriteString(err.Error() + "\n") }
	if evPath != "" {
		f, err := os.Create(evPath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		o.Evidence = f
	}
	var out bytes.Buffer
	err := Run(context.Background(), testEngine(t), strings.NewReader(in), &out, o)
	return err, out.String(), reports.String()
}
