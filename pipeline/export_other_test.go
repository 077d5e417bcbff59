//go:build !amd64

package pipeline

// LexerKernels names the string kernels of the lexer this machine can run:
// only its word loop here.
func LexerKernels() []string { return []string{"go"} }

// UseLexerKernel has nothing to choose here.
func UseLexerKernel(string) (restore func()) { return func() {} }
