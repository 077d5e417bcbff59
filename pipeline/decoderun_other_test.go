//go:build !amd64

package pipeline

// decodeKernels is empty: decodeRunSh is decodeRunShGo here.
var decodeKernels []decodeKernel
