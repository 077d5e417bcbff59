// Command rulesdoc writes docs/rules.md, the list of the default catalog's
// rules, to standard output:
//
//	go run ./scanners/internal/rulesdoc > docs/rules.md
//
// or go generate ./scanners.
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/mcp-sanitize/mcp-sanitize/scanners"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	if err := scanners.WriteRulesDoc(w); err != nil {
		fmt.Fprintln(os.Stderr, "rulesdoc:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "rulesdoc:", err)
		os.Exit(1)
	}
}
