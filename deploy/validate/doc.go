// Package validate holds the offline checks of the deployment manifests in
// deploy/: every kustomize overlay is rendered with the kustomize API
// (sigs.k8s.io/kustomize/api), and every object is strictly decoded into
// its Go type (k8s.io/api, the Prometheus operator's monitoring/v1 types,
// KEDA's keda/v1alpha1 ScaledObject): an unknown or misspelt field, a
// duplicate field or a wrong type fails. On top of decoding, the tests check
// what the manifests promise: probes on /healthz and /readyz, a locked-down
// security context, GOMEMLIMIT below the memory limit, selectors that select
// the worker, the KEDA trigger on the durable consumer.
//
// It is its own module so that the project's module does not depend on
// Kubernetes; scripts/test.sh runs its tests. It has no code outside tests.
package validate
