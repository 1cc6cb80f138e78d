package builder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func TestXR(t *testing.T) {
	ready := map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard",
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}
	cases := map[string]struct {
		reason   string
		observed map[resource.Name]map[string]any
		want     resource.Ready
	}{
		"NotObserved": {reason: "An XR not created yet is not ready.", want: resource.ReadyFalse},
		"Ready":       {reason: "An XR that reports Ready is ready.", observed: map[resource.Name]map[string]any{"rootshard": ready}, want: resource.ReadyTrue},
		"NotReady": {reason: "An XR without Ready=True is not ready.", want: resource.ReadyFalse,
			observed: map[resource.Name]map[string]any{"rootshard": {"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("team-a", "tenant", observedState(tc.observed))
			ok, err := b.XR("rootshard", "RootShard", "team-a", map[string]string{"l": "v"}, map[string]any{"replicas": 2})
			if err != nil {
				t.Fatal(err)
			}
			o, found := b.Set.Get("rootshard")
			if !found {
				t.Fatalf("%s\nXR(...) composed nothing", tc.reason)
			}
			if o.Ready != tc.want || ok != (tc.want == resource.ReadyTrue) {
				t.Errorf("%s\nXR(...): ready %v (returned %v), want %v", tc.reason, o.Ready, ok, tc.want)
			}
			u := o.Resource.(*resource.Unstructured)
			got := map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(), "name": u.GetName(), "namespace": u.GetNamespace(), "labels": u.GetLabels(), "spec": u.Object["spec"]}
			want := map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard", "name": "team-a", "namespace": "tenant", "labels": map[string]string{"l": "v"}, "spec": map[string]any{"replicas": float64(2),
				"crossplane": map[string]any{"compositionRef": map[string]any{"name": "rootshards.kcp.crossplane.io"}}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nXR(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCompositionName(t *testing.T) {
	// Every kind an XR composes: its Composition must be the one the package ships, or
	// Crossplane would fail to compose the XR.
	for _, kind := range []string{"RootShard", "Shard", "FrontProxy", "CacheServer", "VirtualWorkspace", "Kubeconfig", "KcpInstallation", "CertificateSet"} {
		name := CompositionName(kind)
		plural, _, _ := strings.Cut(name, ".")
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "..", "apis", plural, "composition.yaml"))
		if err != nil {
			t.Errorf("CompositionName(%q) = %q: %v", kind, name, err)
			continue
		}
		if !strings.Contains(string(raw), "\n  name: "+name+"\n") {
			t.Errorf("CompositionName(%q) = %q, but apis/%s/composition.yaml does not name its Composition so", kind, name, plural)
		}
	}
}

func TestUnreadable(t *testing.T) {
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "x-front-proxy"}}
	cases := map[string]struct {
		reason   string
		observed map[resource.Name]map[string]any
		want     condition.Condition
		kept     int
	}{
		"NothingComposed": {
			reason: "Nothing composed yet: nothing to keep, and the message says only what is missing.",
			want:   condition.Condition{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing, Message: "RootShard root does not exist."},
		},
		"SomethingComposed": {
			reason:   "What was composed is kept, and the message says so.",
			observed: map[resource.Name]map[string]any{"service-front-proxy": svc},
			want:     condition.Condition{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing, Message: "RootShard root does not exist. Everything composed so far is kept unchanged meanwhile."},
			kept:     1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "kcp", observedState(tc.observed))
			got := b.Unreadable("RootShard root does not exist")
			if diff := cmp.Diff(tc.want, got); diff != "" || len(b.Set.Objects()) != tc.kept {
				t.Errorf("%s\nUnreadable(...): kept %d objects, want %d; condition -want, +got:\n%s", tc.reason, len(b.Set.Objects()), tc.kept, diff)
			}
		})
	}
}
