package resuri

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Kind is the grammar a scheme follows.
type Kind string

// Kinds of scheme.
const (
	// KindRoot: scheme://alias/segment/... where the alias is a key of
	// Options.Roots and names a root id (the seed's aidefend-file scheme).
	// The relative path is the path after the alias.
	KindRoot Kind = "root"
	// KindFile: file:///absolute/path (or file://localhost/...), which must
	// lie under one of Options.FileRoots; the relative path is the path
	// below that root.
	KindFile Kind = "file"
	// KindHTTPS: https://host[:port]/path[?query]; host lower-case ASCII
	// (LDH labels or a dotted IPv4 address), no user info, no IPv6
	// literal, port 443 dropped.
	KindHTTPS Kind = "https"
	// KindCustom: scheme://authority/segment/... with an authority of the
	// root-alias grammar, for schemes a deployment defines.
	KindCustom Kind = "custom"
)

// Scheme is one scheme the parser accepts.
type Scheme struct {
	// Name is the scheme, lower-case ("aidefend-file", "file", "https").
	Name string `json:"name"`
	// Kind is its grammar.
	Kind Kind `json:"kind"`
	// Hosts, for KindHTTPS and KindCustom, lists the hosts or authorities
	// allowed (lower-case; a port as host:port); empty allows any.
	Hosts []string `json:"hosts,omitempty"`
	// AllowQuery, for KindHTTPS, accepts a query (checked: valid escapes,
	// no %00 or control characters); otherwise a query is refused.
	AllowQuery bool `json:"allowQuery,omitempty"`
}

// Defaults.
const (
	// DefaultMaxLength is the longest URI accepted, in bytes (the seed's
	// 4096).
	DefaultMaxLength = 4096
	// DefaultMaxSegments is the most path segments accepted.
	DefaultMaxSegments = 64
	// DefaultMaxSegmentBytes is the longest decoded segment, in bytes (the
	// common file-name limit).
	DefaultMaxSegmentBytes = 255
)

// Options configure a Parser. The zero values of the limits mean the
// defaults.
type Options struct {
	Schemes []Scheme
	// Roots maps a root alias (lower-case) to its root id, for KindRoot
	// schemes.
	Roots map[string]string
	// FileRoots maps an absolute directory, written as a canonical path
	// ("/srv/docs", no trailing slash), to its root id, for KindFile.
	FileRoots map[string]string
	// MaxLength is the longest URI in bytes (DefaultMaxLength).
	MaxLength int
	// MaxSegments is the most path segments (DefaultMaxSegments).
	MaxSegments int
	// MaxSegmentBytes is the longest decoded segment (DefaultMaxSegmentBytes).
	MaxSegmentBytes int
}

// ErrOptions is what an invalid configuration's error wraps.
var ErrOptions = errors.New("resuri: invalid options")

// Parser parses URIs under one configuration. It is immutable and safe for
// concurrent use.
type Parser struct {
	schemes   map[string]Scheme
	hosts     map[string]map[string]bool
	roots     map[string]string
	fileRoots []fileRoot // longest first
	maxLen    int
	maxSegs   int
	maxSegLen int
}

type fileRoot struct {
	segs []string
	id   string
}

// New checks the options and compiles a Parser.
func New(o Options) (*Parser, error) {
	p := &Parser{schemes: map[string]Scheme{}, hosts: map[string]map[string]bool{}, roots: map[string]string{},
		maxLen: o.MaxLength, maxSegs: o.MaxSegments, maxSegLen: o.MaxSegmentBytes}
	if p.maxLen == 0 {
		p.maxLen = DefaultMaxLength
	}
	if p.maxSegs == 0 {
		p.maxSegs = DefaultMaxSegments
	}
	if p.maxSegLen == 0 {
		p.maxSegLen = DefaultMaxSegmentBytes
	}
	if p.maxLen < 0 || p.maxSegs < 0 || p.maxSegLen < 0 {
		return nil, fmt.Errorf("%w: negative limit", ErrOptions)
	}
	for _, s := range o.Schemes {
		if !validSchemeName(s.Name) {
			return nil, fmt.Errorf("%w: scheme name %q", ErrOptions, s.Name)
		}
		if _, dup := p.schemes[s.Name]; dup {
			return nil, fmt.Errorf("%w: scheme %q twice", ErrOptions, s.Name)
		}
		switch s.Kind {
		case KindRoot, KindCustom:
		case KindFile:
			if s.Name != "file" {
				return nil, fmt.Errorf("%w: kind file is for the scheme file only", ErrOptions)
			}
		case KindHTTPS:
			if s.Name != "https" {
				return nil, fmt.Errorf("%w: kind https is for the scheme https only", ErrOptions)
			}
		default:
			return nil, fmt.Errorf("%w: scheme %q: unknown kind %q", ErrOptions, s.Name, s.Kind)
		}
		if s.AllowQuery && s.Kind != KindHTTPS {
			return nil, fmt.Errorf("%w: scheme %q: allowQuery is for https only", ErrOptions, s.Name)
		}
		if len(s.Hosts) > 0 {
			if s.Kind != KindHTTPS && s.Kind != KindCustom {
				return nil, fmt.Errorf("%w: scheme %q: hosts are for https and custom schemes", ErrOptions, s.Name)
			}
			hs := map[string]bool{}
			for _, h := range s.Hosts {
				if h != strings.ToLower(h) || h == "" {
					return nil, fmt.Errorf("%w: scheme %q: host %q is not lower-case", ErrOptions, s.Name, h)
				}
				hs[h] = true
			}
			p.hosts[s.Name] = hs
		}
		p.schemes[s.Name] = s
	}
	for alias, id := range o.Roots {
		if !validAlias(alias) || alias != strings.ToLower(alias) || id == "" {
			return nil, fmt.Errorf("%w: root alias %q", ErrOptions, alias)
		}
		p.roots[alias] = id
	}
	for dir, id := range o.FileRoots {
		if id == "" || !strings.HasPrefix(dir, "/") {
			return nil, fmt.Errorf("%w: file root %q", ErrOptions, dir)
		}
		segs, err := p.segments(dir[1:], 0)
		if err != nil || "/"+joinEscaped(segs) != dir {
			return nil, fmt.Errorf("%w: file root %q is not a canonical absolute path", ErrOptions, dir)
		}
		p.fileRoots = append(p.fileRoots, fileRoot{segs: segs, id: id})
	}
	sort.Slice(p.fileRoots, func(i, j int) bool { return len(p.fileRoots[i].segs) > len(p.fileRoots[j].segs) })
	return p, nil
}

// RootID returns the root id of a root alias, if the options list it.
func (p *Parser) RootID(alias string) (string, bool) {
	id, ok := p.roots[alias]
	return id, ok
}

// MaxLength is the longest URI the parser accepts.
func (p *Parser) MaxLength() int { return p.maxLen }

func validSchemeName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// validAlias is the seed's alias grammar, [a-z0-9][a-z0-9-]{0,62}, in
// either letter case.
func validAlias(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		alnum := c >= 'a' && c <= 'z' || s[i] >= '0' && s[i] <= '9'
		if !alnum && !(i > 0 && s[i] == '-') {
			return false
		}
	}
	return true
}
