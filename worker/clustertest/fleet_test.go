package clustertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/evchain"
	"github.com/mcp-sanitize/mcp-sanitize/internal/testcluster"
	"github.com/mcp-sanitize/mcp-sanitize/toolcat"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
	"github.com/mcp-sanitize/mcp-sanitize/worker"
)

// The fleet features on the three-node cluster: signed policy rollout
// through the KV bucket mcp-policies, tool pinning in mcp-tools, the
// completion budget in mcp-budgets, the evidence chain with checkpoints
// and a re-scan job over MCP_ARCHIVE, all R3, with three serve processes
// (one per server) and a server killed in the middle.

// fleetRolloutWithin bounds how long a pushed policy takes to reach every
// worker of the fleet. The issue asks for a second or two; the bound
// leaves room for a loaded CI machine, and the test logs the time taken.
const fleetRolloutWithin = 10 * time.Second

// fleetAcmeEvery plants a key of a format the running policies do not
// know in every fleetAcmeEvery-th durable input (the re-scan's new rule).
const fleetAcmeEvery = 37

func fleetInput(i int) *nats.Msg {
	m := inputMsg(i)
	if i%fleetAcmeEvery == 3 {
		m.Data = bytes.Replace(m.Data, []byte(`file `), fmt.Appendf(nil, `key acme_%032x file `, i*104729), 1)
	}
	return m
}

// fleetPolicy is a policy that names its version in the label of every
// tool result, holds changed tool definitions and gives every principal a
// budget of budget completions an hour.
func fleetPolicy(version string, budget int) string {
	return fmt.Sprintf(`version: %s
label: {template: "[%s] output of {tool}:\n"}
pinning: hold
completions:
  arguments:
    "prompt:summarize_ticket/ticket_id": {pattern: "TICKET-[0-9]+"}
  budget: {limit: %d, window: 1h}
`, version, version, budget)
}

// cli runs one sanitize-worker command and returns its exit code, output
// and errors.
func cli(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "MCP_SANITIZE_CONFIG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	testcluster.DieWithParent(cmd)
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	return code, out.String(), errb.String()
}

// nodeConn connects to one server only, so that a request it publishes
// goes to the queue subscriber of the worker on that server (the server
// prefers its own subscribers of a queue group).
func nodeConn(t *testing.T, n *testcluster.Node) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(n.URL(), nats.NoReconnect())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func toolsList(desc string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` +
		`{"name":"get_weather","description":"` + desc + `","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},` +
		`{"name":"echo","description":"Echo the text.","inputSchema":{"type":"object"}}]}}`)
}

func askTools(nc *nats.Conn, server string, body []byte) (string, error) {
	m := nats.NewMsg("mcp.sanitize." + string(wire.KindToolsList))
	m.Header.Set(wire.HeaderServer, server)
	m.Header.Set(wire.HeaderTenant, "fleet")
	m.Data = body
	r, err := nc.RequestMsg(m, 20*time.Second)
	if err != nil {
		return "", err
	}
	if c := r.Header.Get(wire.HeaderCode); c != "" {
		return "", fmt.Errorf("code %s", c)
	}
	return string(r.Data), nil
}

// TestClusterFleet (docs/nats.md, "The fleet features on the cluster").
func TestClusterFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node nats-server cluster")
	}
	cl := testcluster.Start(t, testcluster.Options{})
	wbin := testcluster.BuildCommand(t, "github.com/mcp-sanitize/mcp-sanitize/cmd/sanitize-worker", "sanitize-worker")
	dir := t.TempDir()
	logDir := dir
	if d := os.Getenv(EnvLogDir); d != "" {
		logDir = d
	}
	all := cl.URLs(nil)
	opsKey, trust := filepath.Join(dir, "ops.key"), filepath.Join(dir, "trust.json")
	evKey, evTrust := filepath.Join(dir, "ev.key"), filepath.Join(dir, "ev-trust.json")
	for _, k := range [][3]string{{"ops-1", opsKey, trust}, {"ev-1", evKey, evTrust}} {
		if code, _, e := cli(t, wbin, "policy", "keygen", "--id", k[0], "--key", k[1], "--trust", k[2]); code != 0 {
			t.Fatalf("keygen: %d %s", code, e)
		}
	}
	push := func(version string) {
		t.Helper()
		pf := filepath.Join(dir, version+".yaml")
		if err := os.WriteFile(pf, []byte(fleetPolicy(version, 12)), 0o600); err != nil {
			t.Fatal(err)
		}
		env := pf + ".json"
		if code, _, e := cli(t, wbin, "policy", "sign", "--key", opsKey, "--out", env, pf); code != 0 {
			t.Fatalf("sign: %d %s", code, e)
		}
		// A push during a leader election may fail: the command is run
		// again (a version already written with the same digest is
		// accepted again).
		deadline := time.Now().Add(90 * time.Second)
		for {
			code, _, e := cli(t, wbin, "policy", "push", "--nats-url", all, "--trust", trust, "--timeout", "10s", env)
			if code == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("push %s: %d %s", version, code, e)
			}
			t.Logf("push %s failed (%d), again: %.200s", version, code, e)
			time.Sleep(500 * time.Millisecond)
		}
	}

	// Three workers, one per server.
	var ws []*workerProc
	for i, n := range cl.Nodes {
		w := &workerProc{t: t, bin: wbin, name: fmt.Sprintf("worker-%d", i+1), urls: n.URL(),
			httpAddr: "127.0.0.1:" + strconv.Itoa(testcluster.FreePort(t)), logPath: filepath.Join(logDir, fmt.Sprintf("fleet-worker-%d.log", i+1)),
			extra: []string{"--inline=true", "--policy-trust", trust, "--evidence-key", evKey, "--checkpoint-every", "1s",
				"--archive", "--archive-max-age", "1h", "--archive-max-bytes", strconv.Itoa(256 << 20)}}
		ws = append(ws, w)
	}
	t.Cleanup(func() {
		for _, w := range ws {
			w.kill()
			if t.Failed() {
				t.Logf("%s log:\n%s", w.name, w.logTail())
			}
		}
	})
	for _, w := range ws {
		w.start()
	}
	reports := func(version string) func() error {
		return func() error {
			for _, w := range ws {
				if v := w.metric(`mcp_sanitize_policy_info{role="active",version="` + version + `"}`); v != 1 {
					return fmt.Errorf("%s does not report %s", w.name, version)
				}
			}
			return nil
		}
	}
	pc, err := nats.Connect(all, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pc.Close)
	pjs, err := jetstream.New(pc, jetstream.WithPublishAsyncMaxPending(512), jetstream.WithPublishAsyncTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{t: t, js: pjs}

	// 1. A push reaches every worker, each reports it.
	start := time.Now()
	push("fleet.1")
	d := c.waitFor("every worker reports fleet.1", fleetRolloutWithin, reports("fleet.1"))
	t.Logf("fleet.1 reported by the three workers %v after the push command began (%v after it returned)", time.Since(start).Round(time.Millisecond), d.Round(time.Millisecond))
	cl.WaitHealthy(pjs, 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, b := range []string{"KV_" + wire.BucketPolicies, "KV_" + wire.BucketTools, wire.StreamEvidence, wire.StreamArchive} {
		st, err := pjs.Stream(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := st.Info(ctx); err != nil || info.Config.Replicas != 3 {
			t.Fatalf("%s: not R3 (%v)", b, err)
		}
	}

	// 2. First pins under concurrency: in each round the three workers get
	// a tools/list of a new server at once, each with another
	// description. One KV create wins; exactly that worker forwards its
	// tool, the other two hold theirs, and afterwards every worker
	// forwards the pinned definition and holds the others.
	conns := []*nats.Conn{nodeConn(t, cl.Nodes[0]), nodeConn(t, cl.Nodes[1]), nodeConn(t, cl.Nodes[2])}
	kvTools, err := pjs.KeyValue(ctx, wire.BucketTools)
	if err != nil {
		t.Fatal(err)
	}
	pins := toolcat.NewPins(kvTools)
	const rounds = 6
	for r := range rounds {
		server := fmt.Sprintf("race-%d", r)
		descs := make([]string, 3)
		outs := make([]string, 3)
		errs := make([]error, 3)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := range conns {
			descs[i] = fmt.Sprintf("Weather %d as seen by client %d.", r, i)
			wg.Go(func() {
				<-gate
				outs[i], errs[i] = askTools(conns[i], server, toolsList(descs[i]))
			})
		}
		close(gate)
		wg.Wait()
		won := -1
		for i := range outs {
			if errs[i] != nil {
				t.Fatalf("round %d client %d: %v", r, i, errs[i])
			}
			if !strings.Contains(outs[i], `"echo"`) {
				t.Fatalf("round %d client %d: the unchanged tool is missing: %s", r, i, outs[i])
			}
			if strings.Contains(outs[i], "get_weather") {
				if won >= 0 {
					t.Fatalf("round %d: clients %d and %d both got their own first definition forwarded", r, won, i)
				}
				won = i
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no worker forwarded a first definition", r)
		}
		// A KV read may be answered by a replica that has not applied the
		// pin yet (direct get): read until it has.
		c.waitFor(fmt.Sprintf("round %d: the pin of %s", r, server), 10*time.Second, func() error {
			rec, err := pins.Get(ctx, server, "get_weather")
			if err != nil {
				return err
			}
			if !strings.Contains(string(rec.Definition), descs[won]) {
				t.Fatalf("round %d: the pin is not the forwarded definition", r)
			}
			return nil
		})
		for i := range conns {
			for k := range descs {
				out, err := askTools(conns[i], server, toolsList(descs[k]))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(out, "get_weather") != (k == won) {
					t.Fatalf("round %d: worker %d's verdict on definition %d differs from the pin (%d)", r, i+1, k, won)
				}
			}
		}
	}
	// The servers prefer a queue subscriber of their own, so most of
	// each client's lists went to the worker on its server (not all: a
	// server also sends to remote members of the group).
	var perWorker []float64
	for _, w := range ws {
		v := w.metric(`mcp_sanitize_messages_total{kind="tools-list"`)
		if v < rounds {
			t.Fatalf("%s sanitized %v lists: the three workers did not all take part", w.name, v)
		}
		perWorker = append(perWorker, v)
	}
	t.Logf("pins: %d rounds of three concurrent first lists, one pin each; lists sanitized per worker %v", rounds, perWorker)

	// 3. The completion budget (12 an hour) holds across the three
	// workers: 3 clients x 8 requests at once, 12 allowed.
	var allowed, refused sync.Map
	var wg sync.WaitGroup
	for i := range conns {
		for k := range 8 {
			wg.Go(func() {
				m := nats.NewMsg("mcp.sanitize." + string(wire.KindCompletionResult))
				m.Header.Set(wire.HeaderTenant, "fleet")
				m.Header.Set(wire.HeaderPrincipal, "alice")
				m.Header.Set(wire.HeaderRequestParams, `{"ref":{"type":"ref/prompt","name":"summarize_ticket"},"argument":{"name":"ticket_id","value":"TICKET-1"}}`)
				m.Data = []byte(`{"jsonrpc":"2.0","id":4,"result":{"completion":{"values":["TICKET-10001","drop me"],"total":2}}}`)
				r, err := conns[i].RequestMsg(m, 20*time.Second)
				key := fmt.Sprintf("%d/%d", i, k)
				switch {
				case err != nil:
					t.Errorf("completion %s: %v", key, err)
				case r.Header.Get(wire.HeaderCode) == string(wire.CodeCompletionRefused):
					refused.Store(key, true)
				case r.Header.Get(wire.HeaderCode) == "" && strings.Contains(string(r.Data), "TICKET-10001") && !strings.Contains(string(r.Data), "drop me"):
					allowed.Store(key, true)
				default:
					t.Errorf("completion %s: code %q %s", key, r.Header.Get(wire.HeaderCode), r.Data)
				}
			})
		}
	}
	wg.Wait()
	na, nr := 0, 0
	allowed.Range(func(any, any) bool { na++; return true })
	refused.Range(func(any, any) bool { nr++; return true })
	if na != 12 || nr != 12 {
		t.Fatalf("completions: %d allowed, %d refused across three workers; want 12 and 12", na, nr)
	}
	for _, w := range ws {
		if v := w.metric(`mcp_sanitize_messages_total{kind="completion-result"`); v < 1 {
			t.Fatalf("%s charged no completion", w.name)
		}
	}
	if st, err := pjs.Stream(ctx, "KV_"+wire.BucketBudgets); err != nil {
		t.Fatal(err)
	} else if info, err := st.Info(ctx); err != nil || info.Config.Replicas != 3 {
		t.Fatalf("the budget bucket is not R3 (%v)", err)
	}

	// 4. Durable traffic; the server leading the policy bucket is killed
	// while it flows, and a new policy is pushed while it is down: every
	// worker runs it, the server comes back, nothing is lost or delivered
	// unsanitized.
	const total = 900
	p := &producer{js: pjs, mk: fleetInput}
	p.publish(0, total)
	c.waitProgress("durable traffic flows", 0, 150, 2*time.Minute)
	var victim *testcluster.Node
	c.waitFor("a leader of the policy bucket", time.Minute, func() error {
		lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer lcancel()
		victim, err = cl.StreamLeader(lctx, pjs, "KV_"+wire.BucketPolicies)
		return err
	})
	victim.Kill()
	t.Logf("killed %s (leader of KV_%s) with durable traffic in flight", victim.Name, wire.BucketPolicies)
	start = time.Now()
	push("fleet.2")
	pushed := time.Since(start)
	d = c.waitFor("every worker reports fleet.2 with a server down", time.Minute, reports("fleet.2"))
	t.Logf("fleet.2 pushed %v after the kill (the bucket elects a leader), reported by the three workers %v after the push returned, %s down",
		pushed.Round(time.Millisecond), d.Round(time.Millisecond), victim.Name)
	victim.Start(t)
	p.wait(t)
	c.waitFor("MCP_RAW empty", 3*time.Minute, func() error {
		if n := c.count(wire.StreamRaw); n != 0 {
			return fmt.Errorf("MCP_RAW holds %d", n)
		}
		return nil
	})
	cl.WaitHealthy(pjs, 2*time.Minute)
	for i, nc := range conns {
		m := nats.NewMsg("mcp.sanitize." + string(wire.KindToolResult))
		m.Header.Set(wire.HeaderTool, "read_file")
		m.Header.Set(wire.HeaderTenant, "fleet")
		m.Data = []byte(`{"content":[{"type":"text","text":"after the restart"}]}`)
		if !nc.IsConnected() {
			nc = nodeConn(t, cl.Nodes[i])
		}
		r, err := nc.RequestMsg(m, 20*time.Second)
		if err != nil || !bytes.Contains(r.Data, []byte("[fleet.2] output of read_file")) {
			t.Fatalf("worker %d after the restart: %v %s", i+1, err, r.Data)
		}
	}
	verifyDurable(t, c, total)

	// 5. A re-scan job over the R3 archive with a rule the fleet's
	// policies lack, by two processes at once: it finds exactly the
	// planted keys, each archived input counted once.
	rescanPolicy := filepath.Join(dir, "rescan.yaml")
	os.WriteFile(rescanPolicy, []byte("version: acme.2\nrules:\n  custom:\n    - id: acme-key\n      keywords: [acme_]\n      pattern: \"acme_[0-9a-f]{32}\"\n"), 0o600)
	archived := c.count(wire.StreamArchive)
	codes := make([]int, 2)
	errOut := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			var o string
			codes[i], o, errOut[i] = cli(t, wbin, "rescan", "--stream", wire.StreamArchive, "--job", "fleet", "--policy", rescanPolicy,
				"--trust", trust, "--nats-url", all, "--replicas", "3", "--workers", "2", "--ack-wait", "5s", "--progress", "none",
				"--report", filepath.Join(dir, fmt.Sprintf("report-%d", i)))
			errOut[i] = o + errOut[i]
		})
	}
	wg.Wait()
	var rep struct {
		Records, Failed int64
		Rules           []struct {
			Rule  string
			Added int64
		}
	}
	for i := range 2 {
		if codes[i] != 0 {
			t.Fatalf("rescan %d: %d %s", i, codes[i], errOut[i])
		}
	}
	// The archive is written after delivery; a publish that fails while
	// the bucket's server is down is made again (archive.go), so every
	// input is archived, the planted ones included.
	planted, plantedAll := 0, 0
	for i := 0; i < total; i++ {
		if i%fleetAcmeEvery == 3 {
			plantedAll++
		}
	}
	for _, m := range c.readAll(wire.StreamArchive) {
		if bytes.Contains(m.Data(), []byte("key acme_")) {
			planted++
		}
	}
	if int64(len(c.readAll(wire.StreamArchive))) != archived {
		t.Fatal("the archive changed during the re-scan")
	}
	lost := 0.0
	for _, w := range ws {
		lost += w.metric(`mcp_sanitize_publish_failures_total{stream="MCP_ARCHIVE"}`)
	}
	if planted != plantedAll || lost != 0 {
		t.Fatalf("the archive holds %d of the %d planted inputs; %v archive publishes failed for good", planted, plantedAll, lost)
	}
	// Each process writes the report of the whole job.
	for i := range 2 {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("report-%d", i), "report.json"))
		if err != nil || json.Unmarshal(b, &rep) != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		added := int64(-1)
		for _, r := range rep.Rules {
			if r.Rule == "acme-key" {
				added = r.Added
			}
		}
		if rep.Records != archived || added != int64(planted) {
			t.Logf("rescan runs:\n%s\n%s\n%s", errOut[0], errOut[1], b)
			t.Fatalf("rescan report %d: %d records of %d archived, %d failed, acme-key added in %d (planted %d)", i, rep.Records, archived, rep.Failed, added, planted)
		}
		if bytes.Contains(b, []byte(plantedGitHub)) || bytes.Contains(b, []byte("acme_")) {
			t.Fatal("a secret in the re-scan report")
		}
	}
	st, err := pjs.Stream(ctx, wire.StreamRescan)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := st.Info(ctx); err != nil || info.Config.Replicas != 3 {
		t.Fatalf("%s not R3: %v", wire.StreamRescan, err)
	}
	t.Logf("rescan: %d archived records (%d failed), acme-key in the %d planted of them (%d planted inputs; archive publishes failed: %v)", rep.Records, rep.Failed, planted, plantedAll, lost)

	// 6. The evidence chains: the workers stop (a last checkpoint each),
	// every chain verifies over the R3 stream; a record deleted from it
	// is named.
	for _, w := range ws {
		w.stop()
	}
	verify := func() (int, evchain.Report) {
		t.Helper()
		code, out, e := cli(t, wbin, "evidence", "verify", "--stream", wire.StreamEvidence, "--trust", evTrust, "--nats-url", all, "--json")
		var r evchain.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("evidence verify: %d %s %s", code, out, e)
		}
		return code, r
	}
	code, r := verify()
	if code != 0 || len(r.Chains) != 3 || r.Verified == 0 || r.Verified != r.Checkpoints {
		t.Fatalf("evidence verify: exit %d, %d chains, %d of %d checkpoints verified, problems %+v", code, len(r.Chains), r.Verified, r.Checkpoints, r.Problems)
	}
	// Every chain is vouched for to its end (the last checkpoint may
	// vouch for sequences after the last record stored: records declared
	// void, whose publish failed while the server was down or which the
	// stream dropped as duplicates of a redelivery's).
	voids := int64(0)
	for _, ch := range r.Chains {
		if ch.Vouched < ch.Last || ch.First != 1 || ch.UnverifiedTail != 0 {
			t.Fatalf("chain %s: records %d..%d, the last checkpoint vouches for %d", ch.ID, ch.First, ch.Last, ch.Vouched)
		}
		voids += ch.Void
	}
	if r.UnverifiedTail != 0 {
		t.Fatalf("unverified tail %d after every worker stopped", r.UnverifiedTail)
	}
	t.Logf("evidence: %d records in %d chains, %d checkpoints verified, %d sequences void", r.Records, len(r.Chains), r.Verified, voids)
	var cut uint64
	errFound := errors.New("found")
	if err := worker.ReadStream(ctx, pjs, wire.StreamEvidence, time.Time{}, time.Time{}, func(seq uint64, _ time.Time, data []byte) error {
		if bytes.Contains(data, []byte(`"seq":40,"prev"`)) {
			cut = seq
			return errFound
		}
		return nil
	}); err != errFound {
		t.Fatalf("no record of chain sequence 40: %v", err)
	}
	ev, err := pjs.Stream(ctx, wire.StreamEvidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.DeleteMsg(ctx, cut); err != nil {
		t.Fatal(err)
	}
	code, r = verify()
	if code != 3 || len(r.Problems) != 1 || r.Problems[0].Kind != evchain.KindMissing || r.Problems[0].Seq != 40 {
		t.Fatalf("after deleting stream seq %d: exit %d, problems %+v", cut, code, r.Problems)
	}
}

// verifyDurable demands exactly one clean output for each durable input,
// produced by a fleet policy (its label), and no planted secret in any
// stream a client reads.
func verifyDurable(t *testing.T, c *checker, n int) {
	t.Helper()
	seen := map[int]int{}
	for _, m := range c.readAll(wire.StreamClean) {
		rid := m.Headers().Get(wire.HeaderRequestID)
		if !strings.HasPrefix(rid, "req-") {
			continue
		}
		i, err := strconv.Atoi(strings.TrimPrefix(rid, "req-"))
		if err != nil || i < 0 || i >= n {
			t.Errorf("MCP_CLEAN: unexpected request id %q", rid)
			continue
		}
		seen[i]++
		if !bytes.Contains(m.Data(), []byte("] output of read_file")) || m.Headers().Get(wire.HeaderOutcome) != "sanitized" {
			t.Errorf("%s: not produced by a fleet policy, or not sanitized (%s)", rid, m.Headers().Get(wire.HeaderOutcome))
		}
	}
	missing, dup := 0, 0
	for i := 0; i < n; i++ {
		switch seen[i] {
		case 0:
			missing++
		case 1:
		default:
			dup++
		}
	}
	if missing > 0 || dup > 0 {
		t.Errorf("MCP_CLEAN: %d of %d inputs missing, %d stored more than once", missing, n, dup)
	}
	for _, stream := range []string{wire.StreamClean, wire.StreamEvidence, wire.StreamDLQ} {
		for _, m := range c.readAll(stream) {
			for _, s := range []string{plantedGitHub, plantedAWS, "acme_"} {
				if bytes.Contains(m.Data(), []byte(s)) && !(s == "acme_" && stream == wire.StreamClean) {
					t.Errorf("%s: a planted secret in %s", stream, m.Subject())
				}
			}
		}
	}
	if n := c.count(wire.StreamDLQ); n != 0 {
		t.Errorf("MCP_DLQ holds %d", n)
	}
}
