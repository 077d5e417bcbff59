package validate

import (
	"path/filepath"
	"strings"
	"testing"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// The names the worker uses on NATS (package wire: StreamRaw,
// ConsumerDurable) and the secret the manifests expect.
const (
	streamRaw       = "MCP_RAW"
	consumerDurable = "sanitize-worker"
	secretName      = "sanitize-worker"
)

// TestManifestPromises checks, for the base and every overlay, what
// docs/operations.md says the manifests do.
func TestManifestPromises(t *testing.T) {
	for _, dir := range overlays(t) {
		t.Run(filepath.ToSlash(dir), func(t *testing.T) {
			r := render(t, dir)
			if t.Failed() {
				return
			}
			d := r.get(t, "Deployment", "sanitize-worker").(*appsv1.Deployment)
			checkDeployment(t, r, d)
			podLabels := labels.Set(d.Spec.Template.Labels)

			svc := r.get(t, "Service", "sanitize-worker").(*corev1.Service)
			if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
				t.Errorf("Service selector %v does not select the pods %v", svc.Spec.Selector, podLabels)
			}
			pdb := r.get(t, "PodDisruptionBudget", "sanitize-worker").(*policyv1.PodDisruptionBudget)
			selects(t, "PodDisruptionBudget", pdb.Spec.Selector.MatchLabels, podLabels)
			if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable == nil {
				t.Error("PodDisruptionBudget sets neither maxUnavailable nor minAvailable")
			}
			np := r.get(t, "NetworkPolicy", "sanitize-worker").(*networkingv1.NetworkPolicy)
			selects(t, "NetworkPolicy", np.Spec.PodSelector.MatchLabels, podLabels)
			checkNetworkPolicy(t, np)

			sm := r.get(t, "ServiceMonitor", "sanitize-worker").(*monitoringv1.ServiceMonitor)
			selects(t, "ServiceMonitor", sm.Spec.Selector.MatchLabels, labels.Set(svc.Labels))
			if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != svc.Spec.Ports[0].Name || sm.Spec.Endpoints[0].Path != "/metrics" {
				t.Errorf("ServiceMonitor endpoints %+v do not scrape the Service port %q /metrics", sm.Spec.Endpoints, svc.Spec.Ports[0].Name)
			}
			pr := r.get(t, "PrometheusRule", "sanitize-worker").(*monitoringv1.PrometheusRule)
			checkRules(t, pr)
			so := r.get(t, "ScaledObject", "sanitize-worker").(*kedav1alpha1.ScaledObject)
			checkScaledObject(t, so, d)

			if !strings.HasSuffix(filepath.ToSlash(dir), "/base") {
				if d.Namespace == "" {
					t.Error("an overlay must set the namespace")
				}
				for k, o := range r.objects {
					if ns := o.(interface{ GetNamespace() string }).GetNamespace(); ns != d.Namespace {
						t.Errorf("%s in namespace %q, the Deployment in %q", k, ns, d.Namespace)
					}
				}
			}
		})
	}
}

func selects(t *testing.T, what string, sel map[string]string, set labels.Set) {
	t.Helper()
	if len(sel) == 0 {
		t.Errorf("%s: empty selector selects everything", what)
		return
	}
	if !labels.SelectorFromSet(sel).Matches(set) {
		t.Errorf("%s: selector %v does not select %v", what, sel, set)
	}
}

func checkDeployment(t *testing.T, r *rendered, d *appsv1.Deployment) {
	t.Helper()
	selects(t, "Deployment", d.Spec.Selector.MatchLabels, labels.Set(d.Spec.Template.Labels))
	ps := d.Spec.Template.Spec
	if ps.SecurityContext == nil || ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot ||
		ps.SecurityContext.RunAsUser == nil || *ps.SecurityContext.RunAsUser == 0 {
		t.Error("pod must run as a non-root user")
	}
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken {
		t.Error("the pod must not mount a service account token")
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%d containers", len(ps.Containers))
	}
	c := ps.Containers[0]
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("container has no securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation must be false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem must be true")
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0:
		t.Error("capabilities must drop ALL and add none")
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Error("seccomp profile must be RuntimeDefault")
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("privileged")
	}
	probe := func(name string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path {
			t.Errorf("%s probe must GET %s, is %+v", name, path, p)
			return
		}
		if p.HTTPGet.Port.String() != c.Ports[0].Name {
			t.Errorf("%s probe port %s is not the container port %s", name, p.HTTPGet.Port.String(), c.Ports[0].Name)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	probe("startup", c.StartupProbe, "/readyz")

	req, lim := c.Resources.Requests, c.Resources.Limits
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		rq, okr := req[res]
		lm, okl := lim[res]
		if !okr || !okl {
			t.Errorf("%s: request and limit required", res)
			continue
		}
		if rq.Cmp(lm) > 0 {
			t.Errorf("%s request %s above limit %s", res, rq.String(), lm.String())
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			t.Errorf("env %s twice", e.Name)
		}
		env[e.Name] = e
	}
	// GOMEMLIMIT: a value Go reads (bytes with a B/KiB/MiB/GiB suffix),
	// between 70% and 90% of the memory limit.
	gml, ok := env["GOMEMLIMIT"]
	if !ok || gml.Value == "" {
		t.Fatal("GOMEMLIMIT must be set to a value")
	}
	if !strings.HasSuffix(gml.Value, "iB") {
		t.Fatalf("GOMEMLIMIT %q: use a KiB/MiB/GiB suffix (Go does not read Kubernetes quantities such as Mi)", gml.Value)
	}
	q, err := resource.ParseQuantity(strings.TrimSuffix(gml.Value, "B"))
	if err != nil {
		t.Fatalf("GOMEMLIMIT %q: %v", gml.Value, err)
	}
	memLimit := lim[corev1.ResourceMemory]
	if ratio := float64(q.Value()) / float64(memLimit.Value()); ratio < 0.7 || ratio > 0.9 {
		t.Errorf("GOMEMLIMIT %s is %.0f%% of the memory limit %s; keep it at 70-90%%", gml.Value, ratio*100, memLimit.String())
	}
	if e := env["GOMAXPROCS"]; e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil || e.ValueFrom.ResourceFieldRef.Resource != "limits.cpu" {
		t.Error("GOMAXPROCS must come from limits.cpu")
	}
	if e := env["MCP_SANITIZE_FINGERPRINT_KEY"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != secretName {
		t.Error("the fingerprint key must come from the Secret")
	}
	if env["MCP_SANITIZE_CONFIG"].Value == "" {
		t.Error("MCP_SANITIZE_CONFIG unset")
	}
	// Volumes: the generated ConfigMap (with its hash), the Secret, the
	// spool; every mount has its volume.
	vols := map[string]corev1.Volume{}
	for _, v := range ps.Volumes {
		vols[v.Name] = v
		switch {
		case v.ConfigMap != nil:
			if r.objects["ConfigMap/"+v.ConfigMap.Name] == nil {
				t.Errorf("volume %s names ConfigMap %s, which is not rendered", v.Name, v.ConfigMap.Name)
			}
			cm := r.objects["ConfigMap/"+v.ConfigMap.Name].(*corev1.ConfigMap)
			if cm.Data["serve.yaml"] == "" || cm.Data["policy.yaml"] == "" {
				t.Errorf("ConfigMap %s lacks serve.yaml or policy.yaml", cm.Name)
			}
			if !strings.Contains(env["MCP_SANITIZE_CONFIG"].Value, "serve.yaml") {
				t.Error("MCP_SANITIZE_CONFIG does not name serve.yaml")
			}
		case v.Secret != nil:
			if v.Secret.SecretName != secretName {
				t.Errorf("secret volume names %s", v.Secret.SecretName)
			}
			if v.Secret.DefaultMode == nil || *v.Secret.DefaultMode&0o007 != 0 {
				t.Error("secret files must not be world-readable (the state key ring is refused then)")
			}
		}
	}
	for _, m := range c.VolumeMounts {
		if _, ok := vols[m.Name]; !ok {
			t.Errorf("mount %s has no volume", m.Name)
		}
	}
	if d.Spec.Template.Spec.TerminationGracePeriodSeconds == nil || *d.Spec.Template.Spec.TerminationGracePeriodSeconds < 45 {
		t.Error("terminationGracePeriodSeconds must outlast the drain (drain-timeout 30s plus the connection drain)")
	}
	// The serve configuration names the mounted files.
	for _, v := range ps.Volumes {
		if v.ConfigMap == nil {
			continue
		}
		cm := r.objects["ConfigMap/"+v.ConfigMap.Name].(*corev1.ConfigMap)
		var cfg map[string]any
		if err := yaml.Unmarshal([]byte(cm.Data["serve.yaml"]), &cfg); err != nil {
			t.Fatalf("serve.yaml: %v", err)
		}
		if cfg["http-addr"] != ":9090" || c.Ports[0].ContainerPort != 9090 {
			t.Errorf("serve.yaml http-addr %v and container port %d disagree", cfg["http-addr"], c.Ports[0].ContainerPort)
		}
		if p, _ := cfg["policy"].(string); !strings.HasPrefix(p, mountOf(c, "config")+"/") {
			t.Errorf("serve.yaml policy %q is not under the config mount", p)
		}
		if p, _ := cfg["creds"].(string); !strings.HasPrefix(p, mountOf(c, "secret")+"/") {
			t.Errorf("serve.yaml creds %q is not under the secret mount", p)
		}
	}
}

func mountOf(c corev1.Container, volume string) string {
	for _, m := range c.VolumeMounts {
		if m.Name == volume {
			return m.MountPath
		}
	}
	return "\x00"
}

func checkNetworkPolicy(t *testing.T, np *networkingv1.NetworkPolicy) {
	t.Helper()
	if len(np.Spec.PolicyTypes) != 2 {
		t.Errorf("policyTypes %v: both Ingress and Egress", np.Spec.PolicyTypes)
	}
	ports := map[int32]bool{}
	for _, e := range np.Spec.Egress {
		for _, p := range e.Ports {
			ports[p.Port.IntVal] = true
		}
	}
	if !ports[4222] || !ports[53] {
		t.Errorf("egress ports %v must allow NATS (4222) and DNS (53)", ports)
	}
}

func checkRules(t *testing.T, pr *monitoringv1.PrometheusRule) {
	t.Helper()
	n := 0
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			n++
			if r.Alert == "" || r.Expr.String() == "" {
				t.Errorf("rule %+v: alert and expr required", r)
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("%s: severity label and summary required", r.Alert)
			}
			if want := "docs/operations.md#" + strings.ToLower(r.Alert); r.Annotations["runbook"] != want {
				t.Errorf("%s: runbook annotation %q, want %q", r.Alert, r.Annotations["runbook"], want)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d alerts", n)
	}
}

func checkScaledObject(t *testing.T, so *kedav1alpha1.ScaledObject, d *appsv1.Deployment) {
	t.Helper()
	ref := so.Spec.ScaleTargetRef
	if ref == nil || ref.Name != d.Name || (ref.Kind != "" && ref.Kind != "Deployment") {
		t.Errorf("scaleTargetRef %+v does not name the Deployment %s", ref, d.Name)
	}
	if so.Spec.MinReplicaCount == nil || *so.Spec.MinReplicaCount < 1 {
		t.Error("minReplicaCount must be at least 1 (the inline path is not in the lag)")
	}
	if so.Spec.MaxReplicaCount == nil || *so.Spec.MaxReplicaCount < *so.Spec.MinReplicaCount {
		t.Error("maxReplicaCount below minReplicaCount")
	}
	if len(so.Spec.Triggers) != 1 {
		t.Fatalf("%d triggers", len(so.Spec.Triggers))
	}
	tr := so.Spec.Triggers[0]
	md := tr.Metadata
	if tr.Type != "nats-jetstream" || md["stream"] != streamRaw || md["consumer"] != consumerDurable ||
		md["natsServerMonitoringEndpoint"] == "" || md["account"] == "" || md["lagThreshold"] == "" {
		t.Errorf("trigger %s %v: want nats-jetstream on %s/%s with endpoint, account and lagThreshold", tr.Type, md, streamRaw, consumerDurable)
	}
}
