package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// vcsRevision is the commit of a build without VCS information in its
// build info (the Dockerfile builds with -buildvcs=false and sets it with
// -ldflags "-X main.vcsRevision=...").
var vcsRevision = ""

// buildVersion is what `version` prints about the binary: the main
// module's version ("(devel)" for a build from a clone), the commit (with
// "+dirty" for uncommitted changes), the Go version and platform.
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
	if v.commit == "unknown" && vcsRevision != "" {
		v.commit = vcsRevision
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
