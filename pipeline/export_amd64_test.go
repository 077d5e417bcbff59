package pipeline

// LexerKernels names the string kernels of the lexer this machine can run:
// "go" (the word loop other architectures use), "avx2" (decodeRunShAVX2)
// and "vbmi2" (decodeRunShVBMI2), as far as the CPU has them.
func LexerKernels() []string {
	ks := []string{"go"}
	if haveDecodeRun {
		ks = append(ks, "avx2")
	}
	if haveDecodeRunC {
		ks = append(ks, "vbmi2")
	}
	return ks
}

// UseLexerKernel makes the lexer use kernel (one of LexerKernels) and
// returns the function that restores the choice made at start-up. Tests
// that call it must not run in parallel with others of the package.
func UseLexerKernel(kernel string) (restore func()) {
	run, runC := haveDecodeRun, haveDecodeRunC
	haveDecodeRun, haveDecodeRunC = kernel != "go", kernel == "vbmi2"
	return func() { haveDecodeRun, haveDecodeRunC = run, runC }
}
