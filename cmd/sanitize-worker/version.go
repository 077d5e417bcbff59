package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// vcsRevision is the commit of a build without VCS information in its
// build info (-buildvcs=false, as scripts/test.sh and the Dockerfile build,
// or a copy of the sources without .git): the README's build line and the
// Dockerfile set it with -ldflags "-X main.vcsRevision=...".
var vcsRevision = ""

// stampedVersion is the version of a release build, set with -ldflags
// "-X main.stampedVersion=v1.2.3" (the Dockerfile's VERSION argument). It
// stands in for the module version when the build info has none.
var stampedVersion = ""

// develVersion is the module version Go records for a build from a clone
// without VCS stamping.
const develVersion = "(devel)"

// buildVersion is what `version` prints about the binary: the main
// module's version (for a build from a clone without VCS stamping, the
// stamped version or "devel-" and the commit), the commit (with "+dirty"
// for uncommitted changes), the Go version and platform.
type buildVersion struct {
	module, version, commit, commitTime, goVersion, platform string
}

func readBuildVersion(info *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{module: "github.com/mcp-sanitize/mcp-sanitize", version: "unknown", commit: "unknown",
		goVersion: runtime.Version(), platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok && info != nil {
		if info.Main.Path != "" {
			v.module = info.Main.Path
		}
		if info.Main.Version != "" {
			v.version = info.Main.Version
		}
		if info.GoVersion != "" {
			v.goVersion = info.GoVersion
		}
		dirty := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.commit = s.Value
			case "vcs.time":
				v.commitTime = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && v.commit != "unknown" {
			v.commit += "+dirty"
		}
	}
	if v.commit == "unknown" && vcsRevision != "" && vcsRevision != "unknown" {
		v.commit = vcsRevision
	}
	if v.version == "unknown" || v.version == develVersion {
		// A build from a clone: the stamped release version, else the
		// commit it was built from, so two builds can be told apart.
		switch {
		case stampedVersion != "":
			v.version = stampedVersion
		case v.commit != "unknown":
			v.version = "devel-" + shortCommit(v.commit)
		}
	}
	return v
}

func (v buildVersion) write(w io.Writer) {
	fmt.Fprintf(w, "sanitize-worker %s\n", v.version)
	fmt.Fprintf(w, "module %s\n", v.module)
	if v.commitTime != "" {
		fmt.Fprintf(w, "commit %s (%s)\n", v.commit, v.commitTime)
	} else {
		fmt.Fprintf(w, "commit %s\n", v.commit)
	}
	fmt.Fprintf(w, "go %s %s\n", v.goVersion, v.platform)
	fmt.Fprintf(w, "guard %s\nevidence %s\n", wire.GuardVersion, wire.EvidenceVersion)
}

// runVersion implements `sanitize-worker version` (and --version).
func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "sanitize-worker version: takes no arguments")
		return exitUsage
	}
	readBuildVersion(debug.ReadBuildInfo()).write(stdout)
	return exitOK
}

// shortCommit is the first 12 characters of a commit id, with "+dirty"
// kept.
func shortCommit(c string) string {
	id, dirty, _ := strings.Cut(c, "+")
	if len(id) > 12 {
		id = id[:12]
	}
	if dirty != "" {
		id += "+" + dirty
	}
	return id
}
