package builder

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

func observedState(composedObjs map[resource.Name]map[string]any, required ...map[string]any) *observed.State {
	oc := map[resource.Name]*resource.Unstructured{}
	for k, o := range composedObjs {
		u := resource.NewUnstructured()
		u.Object = o
		oc[k] = u
	}
	st := observed.New(oc)
	for _, r := range required {
		st.WithObject(r)
	}
	return st
}

func secret(name, crt string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "resourceVersion": "3"},
		"data": map[string]any{"tls.crt": base64.StdEncoding.EncodeToString([]byte(crt))}}
}

func issued() map[string]any {
	return map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"status": map[string]any{"revision": int64(1), "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}
}

func TestMergedBundle(t *testing.T) {
	cases := map[string]struct {
		reason  string
		st      *observed.State
		want    string // tls.crt of the composed bundle; "" when not built
		kept    bool
		waiting bool
	}{
		"AllSources": {
			reason: "Every source is readable and every certificate issued: the bundle joins the sources with newlines, CA first.",
			st:     observedState(map[resource.Name]map[string]any{"certificate-client-ca": issued()}, secret("x-client-ca", "CA"), secret("extra", "EXTRA")),
			want:   "CA\nEXTRA",
		},
		"CertificatesNotAllIssued": {
			reason: "A new bundle waits for every certificate of the XR, to be composed with the workloads that mount it; that is no missing input.",
			st:     observedState(nil, secret("x-client-ca", "CA"), secret("extra", "EXTRA")),
		},
		"ExistingRebuiltBeforeIssuance": {
			reason: "A bundle that exists follows its sources at once, whatever the certificates' state.",
			st: observedState(map[resource.Name]map[string]any{
				"secret-merged": {"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "x-merged"}, "data": map[string]any{"tls.crt": "T0xE"}},
			}, secret("x-client-ca", "CA"), secret("extra", "EXTRA")),
			want: "CA\nEXTRA",
		},
		"UserBundleMissing": {
			reason:  "A missing user bundle is a missing input; nothing is built.",
			st:      observedState(nil, secret("x-client-ca", "CA")),
			waiting: true,
		},
		"UserBundleMissingButExists": {
			reason: "An existing bundle is kept unchanged while a source is missing.",
			st: observedState(map[resource.Name]map[string]any{
				"secret-merged": {"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "x-merged"}, "data": map[string]any{"tls.crt": "T0xE"}},
			}, secret("x-client-ca", "CA")),
			kept:    true,
			waiting: true,
		},
		"IssuedCANotYetIssued": {
			reason: "The issued CA not being issued yet is not a missing input: CertificatesReady reports it.",
			st:     observedState(nil, secret("extra", "EXTRA")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "ns", tc.st)
			// The client CA is issued by a composed Certificate.
			b.Certificate(pki.CA("x-client-ca", "ns", pki.IssuerRef("x-ca"), nil, nil), nil)
			b.MergedBundle("x-merged", nil, "x-client-ca", "extra")
			o, ok := b.Set.Get("secret-merged")
			switch {
			case tc.want != "":
				if !ok || o.Resource == nil {
					t.Fatalf("%s\nbundle not built", tc.reason)
				}
				if got := string(o.Resource.(*corev1.Secret).Data["tls.crt"]); got != tc.want {
					t.Errorf("%s\ntls.crt = %q, want %q", tc.reason, got, tc.want)
				}
			case tc.kept:
				if !ok || o.Kept == nil {
					t.Errorf("%s\nthe observed bundle must be kept", tc.reason)
				}
			default:
				if ok {
					t.Errorf("%s\nno bundle may be composed", tc.reason)
				}
			}
			if got := len(b.waiting) > 0; got != tc.waiting {
				t.Errorf("%s\nwaiting = %v (%v), want %v", tc.reason, got, b.waiting, tc.waiting)
			}
		})
	}
}

func TestWorkload(t *testing.T) {
	var mounts workload.Mounts
	mounts.Secret("cert", "x-server", "/tls")
	build := func(map[string]string) (*appsv1.Deployment, *corev1.Service) {
		return &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "x"}},
			&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	}
	deployment := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "x"}}
	cases := map[string]struct {
		reason   string
		observed map[resource.Name]map[string]any
		blockers []string
		built    bool
		kept     bool
	}{
		"Open":             {reason: "Certificate issued: the workload is built.", observed: map[resource.Name]map[string]any{"certificate-server": issued()}, built: true},
		"Closed":           {reason: "Certificate not issued and nothing exists: nothing is composed."},
		"ClosedButRunning": {reason: "Certificate not issued but the Deployment runs: it is kept unchanged.", observed: map[resource.Name]map[string]any{"deployment-x": deployment}, kept: true},
		"Blocked":          {reason: "A blocker keeps a running Deployment unchanged.", observed: map[resource.Name]map[string]any{"certificate-server": issued(), "deployment-x": deployment}, blockers: []string{"VirtualWorkspace vw"}, kept: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "ns", observedState(tc.observed))
			b.Inputs.Certificate("x-server", "certificate-server")
			out := b.Workload(Workload{Name: "x", DeploymentKey: "deployment-x", ServiceKey: "service-x", Mounts: mounts, Blockers: tc.blockers, Build: build})
			o, ok := b.Set.Get("deployment-x")
			if got := ok && o.Resource != nil; got != tc.built {
				t.Errorf("%s\nbuilt = %v, want %v", tc.reason, got, tc.built)
			}
			if got := ok && o.Kept != nil; got != tc.kept {
				t.Errorf("%s\nkept = %v, want %v", tc.reason, got, tc.kept)
			}
			if out.Composed != (tc.built || tc.kept) {
				t.Errorf("%s\nOutcome.Composed = %v", tc.reason, out.Composed)
			}
		})
	}
}

func TestKeepAll(t *testing.T) {
	st := observedState(map[resource.Name]map[string]any{
		"secret-a":     {"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "a", "resourceVersion": "9"}},
		"deployment-b": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "b"}},
	})
	b := New("x", "ns", st)
	if !b.KeepAll() {
		t.Fatalf("KeepAll must report that it kept something")
	}
	got := map[resource.Name]resource.Ready{}
	for _, o := range b.Set.Objects() {
		if o.Kept == nil {
			t.Errorf("%s must be kept as observed", o.Name)
		}
		got[o.Name] = o.Ready
	}
	want := map[resource.Name]resource.Ready{"secret-a": resource.ReadyTrue, "deployment-b": resource.ReadyFalse}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept objects and readiness (an unavailable Deployment stays not ready): -want, +got:\n%s", diff)
	}
	if New("x", "ns", observedState(nil)).KeepAll() {
		t.Errorf("KeepAll of nothing keeps nothing")
	}
}

func TestReport(t *testing.T) {
	deployment := func(available bool) map[string]any {
		status, replicas := "False", int64(0)
		if available {
			status, replicas = "True", 1
		}
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "x"},
			"spec": map[string]any{"replicas": int64(1)},
			"status": map[string]any{"replicas": replicas, "updatedReplicas": replicas, "availableReplicas": replicas,
				"conditions": []any{map[string]any{"type": "Available", "status": status}}}}
	}
	issuing := condition.Condition{Type: condition.TypeCertificatesReady, Reason: condition.ReasonIssuing, Message: "Waiting for cert-manager to issue the 1 certificates (kubectl get certificates -n ns shows each one's state)."}
	issuedCA := condition.Condition{Type: condition.TypeCertificatesReady, Status: true, Reason: condition.ReasonIssued, Message: "All 1 certificates are issued."}
	allPresent := condition.Condition{Type: condition.TypeInputsReady, Status: true, Reason: condition.ReasonAllPresent, Message: "Every Secret and ConfigMap the spec references exists."}
	rollingOut := condition.Condition{Type: condition.TypeAvailable, Reason: condition.ReasonReplicasUnavailable, Message: "Deployment ns/x is not in the desired replica state."}
	cases := map[string]struct {
		reason    string
		observed  map[resource.Name]map[string]any
		composed  bool
		waitFor   string
		issuing   string
		want      []condition.Condition
		available bool
	}{
		"NotComposed": {
			reason:  "A workload waiting for its inputs: each condition says what it waits for, Available that the Deployment is not created.",
			waitFor: "Secret etcd (spec.etcd.tlsConfig.secretRef.name)",
			want: []condition.Condition{issuing,
				{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing, Message: "Waiting for Secret etcd (spec.etcd.tlsConfig.secretRef.name)."},
				{Type: condition.TypeAvailable, Reason: condition.ReasonWaitingForInputs, Message: "Deployment ns/x is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady)."}},
		},
		"IssuerStillIssuing": {
			reason:  "While an XR whose certificates this one reads is issuing them, InputsReady names that XR, not each missing Secret.",
			waitFor: "Secret root-ca (spec.rootShard.ref.name (RootShard root))",
			issuing: "RootShard root",
			want: []condition.Condition{issuing,
				{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing, Message: "Waiting for RootShard root to issue its certificates (its condition CertificatesReady); the Secrets it issues are checked after that."},
				{Type: condition.TypeAvailable, Reason: condition.ReasonWaitingForInputs, Message: "Deployment ns/x is not created yet: it is created once every certificate is issued and every input exists (conditions CertificatesReady and InputsReady)."}},
		},
		"ComposedNotObserved": {
			reason:   "A Deployment composed but not created yet says what it will say while it rolls out: one change of Available fewer.",
			observed: map[resource.Name]map[string]any{"certificate-ca": issued()},
			composed: true,
			want:     []condition.Condition{issuedCA, allPresent, rollingOut},
		},
		"RollingOut": {
			reason:   "A Deployment not available yet.",
			observed: map[resource.Name]map[string]any{"certificate-ca": issued(), "deployment-x": deployment(false)},
			composed: true,
			want:     []condition.Condition{issuedCA, allPresent, rollingOut},
		},
		"Available": {
			reason:    "A Deployment available: the XR is available.",
			observed:  map[resource.Name]map[string]any{"certificate-ca": issued(), "deployment-x": deployment(true)},
			composed:  true,
			want:      []condition.Condition{issuedCA, allPresent, {Type: condition.TypeAvailable, Status: true, Reason: condition.ReasonReplicasUp, Message: "Deployment ns/x is fully up and running."}},
			available: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "ns", observedState(tc.observed))
			b.Certificate(pki.CA("x-ca", "ns", pki.IssuerRef("root"), nil, nil), nil)
			if tc.waitFor != "" {
				b.Wait(tc.waitFor)
			}
			b.ReadsCertificatesOf(tc.issuing, tc.issuing != "")
			available := b.Report(Outcome{Name: "x", Key: "deployment-x", Composed: tc.composed, Verdict: b.Inputs.Check(nil, b.St, &b.Set)})
			if diff := cmp.Diff(tc.want, b.Conditions()); diff != "" {
				t.Errorf("%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			if available != tc.available || b.NotReady() == tc.composed {
				t.Errorf("%s\nReport(...) = %v, NotReady() = %v; want %v, %v", tc.reason, available, b.NotReady(), tc.available, !tc.composed)
			}
		})
	}
}
