package toolcat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mcp-sanitize/mcp-sanitize/schema"
	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// Defaults of Options.
const (
	// DefaultMaxListBytes caps one tools/list result given to Put.
	DefaultMaxListBytes = 8 << 20
	// DefaultMaxTools caps the tools of one Put.
	DefaultMaxTools = 1024
	// DefaultMaxDefinitionBytes caps one stored tool definition (and so
	// each schema; the schema limits apply on top).
	DefaultMaxDefinitionBytes = 1 << 20
	// DefaultMaxCached caps the decoded entries cached locally.
	DefaultMaxCached = 4096
	// DefaultMaxDepth caps the nesting of a tools/list result.
	DefaultMaxDepth = 128
)

// Options configure a Catalog. The zero value means the defaults.
type Options struct {
	// Bucket is the KV bucket (default wire.BucketTools, "mcp-tools").
	Bucket string
	// Replicas of the bucket (default 1; use 3 in production clusters).
	// Open creates the bucket with them and raises an existing bucket's
	// replicas to them.
	Replicas int
	// Storage of the bucket when Open creates it (default file).
	Storage jetstream.StorageType
	// MaxListBytes, MaxTools, MaxDefinitionBytes, MaxCached, MaxDepth: see
	// the Default constants.
	MaxListBytes       int
	MaxTools           int
	MaxDefinitionBytes int
	MaxCached          int
	MaxDepth           int
	// Schemas compiles schemas (default: schema.NewCache(1024,
	// schema.Limits{})).
	Schemas *schema.Cache
	// NoWatch disables the KV watch; Get then reads the bucket every time.
	NoWatch bool
}

func (o *Options) fill() error {
	if o.Replicas < 0 || o.MaxListBytes < 0 || o.MaxTools < 0 || o.MaxDefinitionBytes < 0 || o.MaxCached < 0 || o.MaxDepth < 0 {
		return errors.New("toolcat: negative option")
	}
	if o.Bucket == "" {
		o.Bucket = wire.BucketTools
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.MaxListBytes == 0 {
		o.MaxListBytes = DefaultMaxListBytes
	}
	if o.MaxTools == 0 {
		o.MaxTools = DefaultMaxTools
	}
	if o.MaxDefinitionBytes == 0 {
		o.MaxDefinitionBytes = DefaultMaxDefinitionBytes
	}
	if o.MaxCached == 0 {
		o.MaxCached = DefaultMaxCached
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.Schemas == nil {
		o.Schemas = schema.NewCache(1024, schema.Limits{})
	}
	return nil
}

// Entry is one tool of the catalog.
type Entry struct {
	Server string
	Name   string
	// Definition is the tool definition as stored (compact JSON, members
	// sorted).
	Definition json.RawMessage
	// InputSchema and OutputSchema are the raw schemas (OutputSchema nil
	// when the tool declares none).
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Input and Output are the compiled schemas (Output nil when none).
	Input  *schema.Schema
	Output *schema.Schema
	// Revision is the KV revision the entry was read at.
	Revision uint64
}

// Catalog reads and writes the tool catalog. It is safe for concurrent use.
type Catalog struct {
	kv jetstream.KeyValue
	o  Options

	mu       sync.Mutex
	cache    map[string]*Entry
	seen     map[string]uint64 // latest revision the watch reported per key
	watching bool
	watcher  jetstream.KeyWatcher
	stop     context.CancelFunc
	done     chan struct{}
}

// Open opens (creating it if needed, history 1) the catalog bucket and
// starts the watch that keeps the local cache fresh.
func Open(ctx context.Context, js jetstream.JetStream, o Options) (*Catalog, error) {
	if js == nil {
		return nil, errors.New("toolcat: nil JetStream")
	}
	if err := o.fill(); err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, o.Bucket)
	if err == nil {
		err = raiseReplicas(ctx, js, kv, o.Replicas)
	}
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      o.Bucket,
			Description: "mcp-sanitize: tool definitions from tools/list, keyed <server>.<tool>",
			History:     1,
			Storage:     o.Storage,
			Replicas:    o.Replicas,
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = js.KeyValue(ctx, o.Bucket)
		}
	}
	if err != nil {
		return nil, fail(CodeUnavailable, -1)
	}
	return New(ctx, kv, o)
}

// raiseReplicas updates the stream of an existing bucket whose replicas
// are fewer than replicas (an operator's higher count is kept).
func raiseReplicas(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue, replicas int) error {
	st, err := kv.Status(ctx)
	if err != nil {
		return err
	}
	kst, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok || kst.StreamInfo() == nil || kst.StreamInfo().Config.Replicas >= replicas {
		return nil
	}
	cfg := kst.StreamInfo().Config
	cfg.Replicas = replicas
	_, err = js.UpdateStream(ctx, cfg)
	return err
}

// New returns a catalog over an open KV bucket and starts its watch
// (unless Options.NoWatch).
func New(ctx context.Context, kv jetstream.KeyValue, o Options) (*Catalog, error) {
	if kv == nil {
		return nil, errors.New("toolcat: nil KeyValue")
	}
	if err := o.fill(); err != nil {
		return nil, err
	}
	c := &Catalog{kv: kv, o: o, cache: map[string]*Entry{}, seen: map[string]uint64{}}
	if !o.NoWatch {
		if err := c.startWatch(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Schemas returns the schema cache of the catalog.
func (c *Catalog) Schemas() *schema.Cache { return c.o.Schemas }

func (c *Catalog) startWatch(ctx context.Context) error {
	wctx, cancel := context.WithCancel(context.Background())
	w, err := c.kv.WatchAll(wctx, jetstream.UpdatesOnly(), jetstream.MetaOnly())
	if err != nil {
		cancel()
		return fail(CodeUnavailable, -1)
	}
	c.mu.Lock()
	c.watcher, c.stop, c.watching, c.done = w, cancel, true, make(chan struct{})
	c.mu.Unlock()
	go c.watch(w)
	return nil
}

// watch invalidates cached entries on every update or delete. When the
// watch ends, caching stops: Get reads the bucket every time.
func (c *Catalog) watch(w jetstream.KeyWatcher) {
	defer close(c.done)
	for e := range w.Updates() {
		if e == nil {
			continue
		}
		c.mu.Lock()
		delete(c.cache, e.Key())
		if e.Revision() > c.seen[e.Key()] {
			c.seen[e.Key()] = e.Revision()
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.watching = false
	c.cache = map[string]*Entry{}
	c.mu.Unlock()
}

// Close stops the watch.
func (c *Catalog) Close() error {
	c.mu.Lock()
	w, stop, done := c.watcher, c.stop, c.done
	c.watcher, c.stop = nil, nil
	c.mu.Unlock()
	if w == nil {
		return nil
	}
	err := w.Stop()
	stop()
	<-done
	return err
}

// PutResult says what Put stored.
type PutResult struct {
	Server string
	// Tools are the names stored, in the order of the tools array.
	Tools []string
}

// Put stores every tool of a tools/list result under server. It checks all
// of them first and stores nothing when one fails.
func (c *Catalog) Put(ctx context.Context, server string, toolsList []byte) (*PutResult, error) {
	if wire.CheckToken(server) != nil {
		return nil, fail(CodeName, -1)
	}
	defs, err := c.parse(toolsList)
	if err != nil {
		return nil, err
	}
	res := &PutResult{Server: server}
	for _, d := range defs {
		key := server + "." + d.token
		if _, err := c.kv.Put(ctx, key, d.stored); err != nil {
			return nil, fail(CodeUnavailable, -1)
		}
		res.Tools = append(res.Tools, d.name)
	}
	return res, nil
}

type parsedTool struct {
	name, token string
	stored      []byte
}

// parse checks a tools/list result and returns what to store.
func (c *Catalog) parse(b []byte) ([]parsedTool, error) {
	if len(b) > c.o.MaxListBytes {
		return nil, fail(CodeTooLarge, -1)
	}
	v, err := schema.Decode(b, c.o.MaxDepth)
	if err != nil {
		if schema.CodeOf(err) == schema.CodeValueTooDeep {
			return nil, fail(CodeTooLarge, -1)
		}
		return nil, fail(CodeInvalid, -1)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fail(CodeInvalid, -1)
	}
	if _, rpc := obj["jsonrpc"]; rpc {
		if _, isErr := obj["error"]; isErr {
			return nil, fail(CodeInvalid, -1)
		}
		if obj, ok = obj["result"].(map[string]any); !ok {
			return nil, fail(CodeInvalid, -1)
		}
	}
	tools, ok := obj["tools"].([]any)
	if !ok {
		return nil, fail(CodeInvalid, -1)
	}
	if len(tools) > c.o.MaxTools {
		return nil, fail(CodeTooLarge, -1)
	}
	out := make([]parsedTool, 0, len(tools))
	names := map[string]bool{}
	for i, t := range tools {
		tool, ok := t.(map[string]any)
		if !ok {
			return nil, fail(CodeInvalid, i)
		}
		name, ok := tool["name"].(string)
		if !ok {
			return nil, fail(CodeInvalid, i)
		}
		token, err := ToolToken(name)
		if err != nil {
			return nil, fail(CodeName, i)
		}
		if names[name] {
			return nil, fail(CodeInvalid, i)
		}
		names[name] = true
		stored, err := marshal(tool)
		if err != nil {
			return nil, fail(CodeInvalid, i)
		}
		if len(stored) > c.o.MaxDefinitionBytes {
			return nil, fail(CodeTooLarge, i)
		}
		if _, _, _, _, err := c.compile(tool); err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Index = i
			}
			return nil, err
		}
		out = append(out, parsedTool{name: name, token: token, stored: stored})
	}
	return out, nil
}

// compile compiles a definition's schemas. inputSchema is required (MCP).
func (c *Catalog) compile(tool map[string]any) (inRaw, outRaw []byte, in, out *schema.Schema, err error) {
	is, ok := tool["inputSchema"]
	if !ok {
		return nil, nil, nil, nil, &Error{Code: CodeSchema, Index: -1, Field: "inputSchema", SchemaCode: "MISSING"}
	}
	if inRaw, err = marshal(is); err != nil {
		return nil, nil, nil, nil, fail(CodeInvalid, -1)
	}
	if in, err = c.o.Schemas.Compile(inRaw); err != nil {
		return nil, nil, nil, nil, &Error{Code: CodeSchema, Index: -1, Field: "inputSchema", SchemaCode: string(schema.CodeOf(err))}
	}
	if os, ok := tool["outputSchema"]; ok && os != nil {
		if outRaw, err = marshal(os); err != nil {
			return nil, nil, nil, nil, fail(CodeInvalid, -1)
		}
		if out, err = c.o.Schemas.Compile(outRaw); err != nil {
			return nil, nil, nil, nil, &Error{Code: CodeSchema, Index: -1, Field: "outputSchema", SchemaCode: string(schema.CodeOf(err))}
		}
	}
	return inRaw, outRaw, in, out, nil
}

// marshal writes compact JSON without HTML escaping (json.Number kept as
// written, members sorted).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Get returns a tool of a server with its compiled schemas.
// Unknown tools are ErrNotFound.
func (c *Catalog) Get(ctx context.Context, server, tool string) (*Entry, error) {
	key, err := Key(server, tool)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if e, ok := c.cache[key]; ok && c.watching {
		c.mu.Unlock()
		if e == nil {
			return nil, fail(CodeNotFound, -1)
		}
		return e, nil
	}
	before := c.seen[key]
	c.mu.Unlock()
	kve, err := c.kv.Get(ctx, key)
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			// A tool no tools/list stored is asked for on every one of its
			// results: remember the absence (a nil entry) while the watch
			// runs, unless the watch reported the key since the read
			// began; the watch's next report of the key removes it.
			c.mu.Lock()
			if c.watching && c.seen[key] == before {
				c.cacheLocked(key, nil)
			}
			c.mu.Unlock()
			return nil, fail(CodeNotFound, -1)
		}
		return nil, fail(CodeUnavailable, -1)
	}
	e, err := c.decode(server, tool, kve)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.watching && e.Revision >= c.seen[key] {
		c.cacheLocked(key, e)
	}
	c.mu.Unlock()
	return e, nil
}

// cacheLocked caches e (nil: the key is absent) under key, evicting an
// arbitrary entry when the cache holds MaxCached. c.mu is held.
func (c *Catalog) cacheLocked(key string, e *Entry) {
	if _, ok := c.cache[key]; !ok && len(c.cache) >= c.o.MaxCached {
		for k := range c.cache { // evict an arbitrary entry
			delete(c.cache, k)
			break
		}
	}
	c.cache[key] = e
}

// decode turns a stored definition into an Entry. A stored value that no
// longer parses or compiles (written by something else, or under other
// limits) fails closed with CodeSchema or CodeInvalid.
func (c *Catalog) decode(server, tool string, kve jetstream.KeyValueEntry) (*Entry, error) {
	def := kve.Value()
	if len(def) > c.o.MaxDefinitionBytes {
		return nil, fail(CodeTooLarge, -1)
	}
	v, err := schema.Decode(def, c.o.MaxDepth)
	if err != nil {
		return nil, fail(CodeInvalid, -1)
	}
	m, ok := v.(map[string]any)
	if !ok || m["name"] != tool {
		return nil, fail(CodeInvalid, -1)
	}
	inRaw, outRaw, in, out, err := c.compile(m)
	if err != nil {
		return nil, err
	}
	return &Entry{
		Server: server, Name: tool, Definition: append(json.RawMessage(nil), def...),
		InputSchema: inRaw, OutputSchema: outRaw, Input: in, Output: out, Revision: kve.Revision(),
	}, nil
}

// InputSchema returns the raw inputSchema of a tool (the lookup the
// argument gate uses).
func (c *Catalog) InputSchema(ctx context.Context, server, tool string) ([]byte, error) {
	e, err := c.Get(ctx, server, tool)
	if err != nil {
		return nil, err
	}
	return e.InputSchema, nil
}

// List returns the names of the tools of a server, sorted.
func (c *Catalog) List(ctx context.Context, server string) ([]string, error) {
	if wire.CheckToken(server) != nil {
		return nil, fail(CodeName, -1)
	}
	lister, err := c.kv.ListKeysFiltered(ctx, server+".*")
	if err != nil {
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil, nil
		}
		return nil, fail(CodeUnavailable, -1)
	}
	defer lister.Stop()
	var names []string
	for k := range lister.Keys() {
		if _, name, err := ParseKey(k); err == nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Delete removes a tool from the catalog.
func (c *Catalog) Delete(ctx context.Context, server, tool string) error {
	key, err := Key(server, tool)
	if err != nil {
		return err
	}
	if err := c.kv.Delete(ctx, key); err != nil {
		return fail(CodeUnavailable, -1)
	}
	return nil
}
