package validate

import (
	"os"
	"testing"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	"sigs.k8s.io/yaml"
)

// natsValues is the part of deploy/nats/values.yaml these tests read; the
// chart has no Go types, so unknown fields are allowed here and only the
// promises are checked.
type natsValues struct {
	Config struct {
		Cluster struct {
			Enabled  bool `json:"enabled"`
			Replicas int  `json:"replicas"`
		} `json:"cluster"`
		JetStream struct {
			Enabled   bool `json:"enabled"`
			FileStore struct {
				Enabled bool `json:"enabled"`
				PVC     struct {
					Enabled bool `json:"enabled"`
				} `json:"pvc"`
			} `json:"fileStore"`
		} `json:"jetstream"`
		Monitor struct {
			Enabled bool `json:"enabled"`
			Port    int  `json:"port"`
		} `json:"monitor"`
		Merge struct {
			Accounts map[string]any `json:"accounts"`
		} `json:"merge"`
	} `json:"config"`
	PromExporter struct {
		Enabled bool `json:"enabled"`
		Merge   struct {
			Args []string `json:"args"`
		} `json:"merge"`
	} `json:"promExporter"`
}

// TestNATSValues: a three-node JetStream cluster on file storage with the
// exporter (-jsz=all, no prefix: the dashboard's names), and the account
// and monitoring port that the KEDA trigger names.
func TestNATSValues(t *testing.T) {
	b, err := os.ReadFile("../nats/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v natsValues
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	c := v.Config
	if !c.Cluster.Enabled || c.Cluster.Replicas != 3 {
		t.Errorf("cluster %+v: want three servers", c.Cluster)
	}
	if !c.JetStream.Enabled || !c.JetStream.FileStore.Enabled || !c.JetStream.FileStore.PVC.Enabled {
		t.Errorf("jetstream %+v: want file storage on a volume", c.JetStream)
	}
	if !c.Monitor.Enabled {
		t.Error("monitoring port off: KEDA cannot read /jsz")
	}
	if !v.PromExporter.Enabled {
		t.Error("exporter off")
	}
	jsz, prefix := false, false
	for _, a := range v.PromExporter.Merge.Args {
		jsz = jsz || a == "-jsz=all"
		prefix = prefix || len(a) > 7 && a[:7] == "-prefix"
	}
	if !jsz || prefix {
		t.Errorf("exporter args %v: want -jsz=all and no -prefix", v.PromExporter.Merge.Args)
	}
	r := render(t, "../kubernetes/overlays/prod")
	so := r.get(t, "ScaledObject", "sanitize-worker").(*kedav1alpha1.ScaledObject)
	md := so.Spec.Triggers[0].Metadata
	if _, ok := c.Merge.Accounts[md["account"]]; !ok {
		t.Errorf("the trigger's account %q is not an account of values.yaml", md["account"])
	}
	if want := ":8222"; len(md["natsServerMonitoringEndpoint"]) < len(want) || md["natsServerMonitoringEndpoint"][len(md["natsServerMonitoringEndpoint"])-len(want):] != want {
		t.Errorf("endpoint %q is not the monitoring port", md["natsServerMonitoringEndpoint"])
	}
}
