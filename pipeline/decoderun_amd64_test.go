package pipeline

// decodeKernels are the kernels of decodeRunSh this machine runs.
var decodeKernels = func() []decodeKernel {
	var ks []decodeKernel
	if haveDecodeRun {
		ks = append(ks, decodeKernel{"AVX2", decodeRunShAVX2, decodeRunShGo})
	}
	if haveDecodeRunC {
		ks = append(ks, decodeKernel{"VBMI2", decodeRunShVBMI2, decodeRunShCGo})
	}
	return ks
}()
