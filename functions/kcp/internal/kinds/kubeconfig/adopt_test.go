package kubeconfig

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

const adoptKey resource.Name = "secret-kubeconfig-cert-admin"

// adopted is the exact object the function applies to adopt cert-manager's Secret: no type,
// no data, only what makes it the XR's.
var adopted = map[string]any{
	"apiVersion": "v1",
	"kind":       "Secret",
	"metadata": map[string]any{
		"name":      "kubeconfig-cert-admin",
		"namespace": ns,
		"labels":    map[string]any{"operator.kcp.io/kubeconfig": "admin"},
	},
}

// controlledBy sets the controller owner reference of required object kind/name.
func controlledBy(w *testworld.World, kind, name string, ref map[string]any) {
	md := w.Required(kind, name)["metadata"].(map[string]any)
	md["ownerReferences"] = []any{ref}
}

// observeAdopted records the adopted Secret as the API server returns it: cert-manager's type
// and data, and the metadata the XR applied.
func observeAdopted(w *testworld.World) {
	w.Put(adoptKey, map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
		"metadata": map[string]any{"name": "kubeconfig-cert-admin", "namespace": ns, "resourceVersion": "2",
			"labels":      map[string]any{"operator.kcp.io/kubeconfig": "admin", "crossplane.io/composite": "admin"},
			"annotations": map[string]any{"crossplane.io/composition-resource-name": string(adoptKey), "cert-manager.io/certificate-name": "kubeconfig-cert-admin"},
			"ownerReferences": []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig", "name": "admin", "uid": "kc-uid",
				"controller": true, "blockOwnerDeletion": true}}},
		"data": map[string]any{"tls.crt": b64(clientCrt), "tls.key": b64(clientKey), "ca.crt": b64([]byte("ROOT"))},
	})
}

func TestAdoptCertificateSecret(t *testing.T) {
	issue := func(w *testworld.World) { issued(w, kubeconfigXR(), 1, notAfter, clientCrt, clientKey) }
	cases := map[string]struct {
		reason string
		world  func(*testworld.World)
		// want is whether the adopted Secret is desired (always exactly adopted, ready).
		want bool
	}{
		"NotIssued": {
			reason: "Before cert-manager issues the certificate its Secret does not exist: composing it would create an Opaque Secret cert-manager could never turn into a TLS one.",
			world:  func(w *testworld.World) {},
		},
		"NotIssuedSecretExists": {
			reason: "A Secret left from an earlier issuance is not adopted while the Certificate is not Ready.",
			world: func(w *testworld.World) {
				issue(w)
				w.Certificate("certificate-kubeconfig-cert-admin", "kubeconfig-cert-admin", testworld.Cert{})
			},
		},
		"IssuedSecretNotRead": {
			reason: "An issued Certificate whose Secret has not been read yet: it may not exist, so it is not composed.",
			world:  func(w *testworld.World) { issue(w); w.Drop("Secret", "kubeconfig-cert-admin") },
		},
		"IssuedNoController": {
			reason: "An issued Secret without a controller is adopted, metadata only.",
			world:  issue,
			want:   true,
		},
		"IssuedControlledByCertificate": {
			reason: "With cert-manager's --enable-certificate-owner-ref the Certificate controls the Secret; the XR owns the Certificate, so the Secret is deleted with it already and is not composed.",
			world: func(w *testworld.World) {
				issue(w)
				controlledBy(w, "Secret", "kubeconfig-cert-admin", map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
					"name": "kubeconfig-cert-admin", "uid": "cert-uid", "controller": true, "blockOwnerDeletion": true})
			},
		},
		"IssuedControlledByThisXR": {
			reason: "A Secret this XR controls that is no longer among its composed resources is composed again.",
			world: func(w *testworld.World) {
				issue(w)
				controlledBy(w, "Secret", "kubeconfig-cert-admin", map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig",
					"name": "admin", "uid": "kc-uid", "controller": true})
			},
			want: true,
		},
		"AdoptedLookupMissing": {
			reason: "Once adopted it stays composed, even when it cannot be read: Crossplane would delete it otherwise.",
			world:  func(w *testworld.World) { issue(w); observeAdopted(w); w.Drop("Secret", "kubeconfig-cert-admin") },
			want:   true,
		},
		"AdoptedCertificateReissuing": {
			reason: "Once adopted it stays composed while the Certificate is re-issued.",
			world: func(w *testworld.World) {
				issue(w)
				observeAdopted(w)
				w.Certificate("certificate-kubeconfig-cert-admin", "kubeconfig-cert-admin", testworld.Cert{})
			},
			want: true,
		},
		"AdoptedTargetGone": {
			reason: "While the target cannot be read everything else is kept as observed, but the adopted Secret is composed metadata-only, never with cert-manager's type and key.",
			world:  func(w *testworld.World) { issue(w); observeAdopted(w); w.Drop("RootShard", "root") },
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := kubeconfigXR()
			w := installation(t, testworld.New(), rootShard())
			tc.world(w)
			r := run(t, kc, w)
			o, ok := r.Desired.Get(adoptKey)
			if ok != tc.want {
				t.Fatalf("%s\n%s desired: want %v, got %v (desired %v)", tc.reason, adoptKey, tc.want, ok, r.Desired.Names())
			}
			dc, err := r.Desired.Composed()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return
			}
			if o.Ready != resource.ReadyTrue {
				t.Errorf("%s\nthe adopted Secret is ready: it exists", tc.reason)
			}
			if diff := cmp.Diff(adopted, dc[adoptKey].Resource.Object); diff != "" {
				t.Errorf("%s\nthe adopted Secret is metadata only: -want, +got:\n%s", tc.reason, diff)
			}
			noKeyMaterial(t, r)
		})
	}
}

// noKeyMaterial fails when the client key appears in any desired object, condition or the
// status.
func noKeyMaterial(t *testing.T, r Result) {
	t.Helper()
	dc, err := r.Desired.Composed()
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range dc {
		if name == "secret-admin-kubeconfig" {
			// The kubeconfig embeds the key by design.
			continue
		}
		b, _ := json.Marshal(d.Resource.Object)
		if strings.Contains(string(b), b64(clientKey)) || strings.Contains(string(b), "PRIVATE KEY") {
			t.Errorf("desired %s holds key material", name)
		}
	}
	b, _ := json.Marshal(struct {
		C any
		S v1alpha1.KubeconfigStatus
	}{r.Conditions, r.Status})
	if strings.Contains(string(b), b64(clientKey)) || strings.Contains(string(b), "PRIVATE KEY") {
		t.Errorf("conditions or status hold key material")
	}
}

// TestAdoptionConverges: the adopted Secret is the same desired object before and after it
// is observed, and adoption changes nothing else the XR composes or reports.
func TestAdoptionConverges(t *testing.T) {
	kc := kubeconfigXR()
	w := installation(t, testworld.New(), rootShard())
	issued(w, kc, 1, notAfter, clientCrt, clientKey)
	first := run(t, kc, w)
	w.Exists(first.Desired)
	observeAdopted(w)
	second := run(t, kc, w)
	a, _ := first.Desired.Composed()
	b, _ := second.Desired.Composed()
	if diff := cmp.Diff(a[adoptKey].Resource.Object, b[adoptKey].Resource.Object); diff != "" {
		t.Errorf("the adopted Secret must not change once observed: -first, +second:\n%s", diff)
	}
	if second.NotReady || second.Status.Phase != v1alpha1.KubeconfigPhaseReady {
		t.Errorf("adoption does not keep the XR from being ready: phase %s, conditions %+v", second.Status.Phase, second.Conditions)
	}
}
