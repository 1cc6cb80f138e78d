package builder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
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
	replicas := int32(2)
	spec := v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{Replicas: &replicas}}
	wantSpec := func() map[string]any {
		raw, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		s["crossplane"] = map[string]any{"compositionRef": map[string]any{"name": "rootshards.kcp.crossplane.io"}}
		return s
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("team-a", "tenant", observedState(tc.observed))
			ok, err := b.XR("rootshard", "RootShard", "team-a", map[string]string{"l": "v"}, spec)
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
			want := map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard", "name": "team-a", "namespace": "tenant", "labels": map[string]string{"l": "v"}, "spec": wantSpec()}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nXR(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestXROf(t *testing.T) {
	replicas := int32(2)
	cases := map[string]struct {
		reason string
		obj    *v1alpha1.RootShard
		want   map[string]any
	}{
		"NameAndSpec": {
			reason: "The typed XR's name and spec are composed, as XR composes them.",
			obj:    &v1alpha1.RootShard{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{Replicas: &replicas}}},
			want:   map[string]any{"name": "team-a", "labels": map[string]string{"l": "v"}, "annotations": map[string]string(nil), "replicas": float64(2)},
		},
		"OnlyNameAndSpec": {
			reason: "Nothing else of the typed XR is composed: not its annotations, not its status.",
			obj: &v1alpha1.RootShard{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Annotations: map[string]string{"a": "b"}},
				Status: v1alpha1.RootShardStatus{Phase: v1alpha1.PhaseRunning}},
			want: map[string]any{"name": "team-a", "labels": map[string]string{"l": "v"}, "annotations": map[string]string(nil), "replicas": nil},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("installation", "tenant", observedState(nil))
			if _, err := b.XROf("rootshard", v1alpha1.KindRootShard, map[string]string{"l": "v"}, tc.obj); err != nil {
				t.Fatal(err)
			}
			o, found := b.Set.Get("rootshard")
			if !found {
				t.Fatalf("%s\nXROf(...) composed nothing", tc.reason)
			}
			u := o.Resource.(*resource.Unstructured)
			spec, _ := u.Object["spec"].(map[string]any)
			got := map[string]any{"name": u.GetName(), "labels": u.GetLabels(), "annotations": u.GetAnnotations(), "replicas": spec["replicas"]}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nXROf(...): -want, +got:\n%s", tc.reason, diff)
			}
			if _, found := u.Object["status"]; found {
				t.Errorf("%s\nXROf(...) composed a status: %v", tc.reason, u.Object["status"])
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
