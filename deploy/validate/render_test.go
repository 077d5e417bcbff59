package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kustomizeRoot is deploy/kubernetes, seen from this package.
const kustomizeRoot = "../kubernetes"

// newObject returns an empty object of the type of apiVersion and kind, or
// nil for a type the manifests must not contain.
func newObject(apiVersion, kind string) any {
	switch apiVersion + " " + kind {
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}
	case "v1 Service":
		return &corev1.Service{}
	case "v1 ServiceAccount":
		return &corev1.ServiceAccount{}
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	case "networking.k8s.io/v1 NetworkPolicy":
		return &networkingv1.NetworkPolicy{}
	case "monitoring.coreos.com/v1 ServiceMonitor":
		return &monitoringv1.ServiceMonitor{}
	case "monitoring.coreos.com/v1 PrometheusRule":
		return &monitoringv1.PrometheusRule{}
	case "keda.sh/v1alpha1 ScaledObject":
		return &kedav1alpha1.ScaledObject{}
	}
	return nil
}

// rendered is one overlay's objects, decoded.
type rendered struct {
	dir     string
	objects map[string]any // "Kind/name" -> typed object
}

func (r *rendered) get(t *testing.T, kind, name string) any {
	t.Helper()
	o := r.objects[kind+"/"+name]
	if o == nil {
		t.Fatalf("%s: no %s %q in %v", r.dir, kind, name, r.keys())
	}
	return o
}

func (r *rendered) keys() []string {
	var k []string
	for n := range r.objects {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// render runs kustomize on dir and strictly decodes every object.
func render(t *testing.T, dir string) *rendered {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out := &rendered{dir: dir, objects: map[string]any{}}
	for _, res := range m.Resources() {
		y, err := res.AsYAML()
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		j, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		obj := newObject(res.GetApiVersion(), res.GetKind())
		if obj == nil {
			t.Errorf("%s: %s %s %q: a type these tests do not decode", dir, res.GetApiVersion(), res.GetKind(), res.GetName())
			continue
		}
		if err := strictDecode(j, obj); err != nil {
			t.Errorf("%s: %s %q does not decode strictly: %v", dir, res.GetKind(), res.GetName(), err)
			continue
		}
		out.objects[res.GetKind()+"/"+res.GetName()] = obj
	}
	return out
}

// strictDecode decodes as the API server's strict field validation does:
// unknown fields, duplicate fields and fields in the wrong case are errors.
func strictDecode(j []byte, obj any) error {
	strict, err := sigsjson.UnmarshalStrict(j, obj)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return fmt.Errorf("%v", strict)
	}
	return nil
}

// overlays are every directory under deploy/kubernetes with a
// kustomization.yaml.
func overlays(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(kustomizeRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "kustomization.yaml" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 3 {
		t.Fatalf("expected the base and two overlays under %s, found %v", kustomizeRoot, dirs)
	}
	return dirs
}

// TestStrictDecodeRejects: the decoder of these tests fails on a misspelt
// field, a duplicate field and a wrong type, for each family of types.
func TestStrictDecodeRejects(t *testing.T) {
	for _, tc := range []struct {
		name, apiVersion, kind, json string
	}{
		{"unknown field", "apps/v1", "Deployment", `{"spec":{"replicaz":1}}`},
		{"duplicate field", "v1", "Service", `{"spec":{"type":"ClusterIP","type":"NodePort"}}`},
		{"wrong case", "policy/v1", "PodDisruptionBudget", `{"spec":{"MaxUnavailable":1}}`},
		{"wrong type", "networking.k8s.io/v1", "NetworkPolicy", `{"spec":{"policyTypes":"Ingress"}}`},
		{"unknown monitoring field", "monitoring.coreos.com/v1", "ServiceMonitor", `{"spec":{"endpoints":[{"portt":"http"}]}}`},
		{"unknown rule field", "monitoring.coreos.com/v1", "PrometheusRule", `{"spec":{"groups":[{"name":"a","rules":[{"alert":"x","exp":"up"}]}]}}`},
		{"unknown keda field", "keda.sh/v1alpha1", "ScaledObject", `{"spec":{"scaleTargetRef":{"name":"x"},"minReplicas":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := strictDecode([]byte(tc.json), newObject(tc.apiVersion, tc.kind)); err == nil {
				t.Fatalf("%s decoded", tc.json)
			}
		})
	}
	if err := strictDecode([]byte(`{"spec":{"replicas":1}}`), newObject("apps/v1", "Deployment")); err != nil {
		t.Fatalf("valid object refused: %v", err)
	}
}

// TestRenderAndDecode renders every kustomization and decodes every object.
func TestRenderAndDecode(t *testing.T) {
	for _, dir := range overlays(t) {
		t.Run(filepath.ToSlash(dir), func(t *testing.T) {
			r := render(t, dir)
			for _, want := range []string{"Deployment/sanitize-worker", "Service/sanitize-worker", "ServiceAccount/sanitize-worker",
				"PodDisruptionBudget/sanitize-worker", "NetworkPolicy/sanitize-worker", "ServiceMonitor/sanitize-worker",
				"PrometheusRule/sanitize-worker", "ScaledObject/sanitize-worker"} {
				if r.objects[want] == nil {
					t.Errorf("%s missing (have %v)", want, r.keys())
				}
			}
		})
	}
}
