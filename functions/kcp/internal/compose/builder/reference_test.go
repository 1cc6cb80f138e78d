package builder

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

func TestReference(t *testing.T) {
	existing := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "x-reference"}, "data": map[string]any{"ca.crt": "T0xE"}}
	composed := func(withExisting bool, issuedCA bool) map[resource.Name]map[string]any {
		out := map[resource.Name]map[string]any{}
		if issuedCA {
			out["certificate-server-ca"] = issued()
		}
		if withExisting {
			out["secret-reference"] = existing
		}
		return out
	}
	// Everything: the XR's own server CA, a user bundle, and a client CA another XR issues.
	all := []map[string]any{secret("x-server-ca", "SERVER"), secret("extra", "EXTRA"), secret("other-client-ca", "CLIENT")}
	cases := map[string]struct {
		reason  string
		st      *observed.State
		want    map[string][]byte // the composed reference's data; nil when not built
		kept    bool
		waiting []string
	}{
		"Whole": {
			reason: "Every certificate issued and every CA readable: the reference is composed whole, each bundle joined with newlines.",
			st:     observedState(composed(false, true), all...),
			want: map[string][]byte{"kind": []byte("RootShard"), "name": []byte("x"), "namespace": []byte("ns"), "url": []byte("https://x.ns:6443"),
				"ca.crt": []byte("SERVER\nEXTRA"), "client-ca.crt": []byte("CLIENT")},
		},
		"NotBeforeIssued": {
			reason: "A new reference waits for the XR's certificates, whatever the CAs' state; that is no missing input.",
			st:     observedState(composed(false, false), all...),
		},
		"ExistingFollowsSources": {
			reason: "A reference that exists follows its sources at once.",
			st:     observedState(composed(true, false), all...),
			want: map[string][]byte{"kind": []byte("RootShard"), "name": []byte("x"), "namespace": []byte("ns"), "url": []byte("https://x.ns:6443"),
				"ca.crt": []byte("SERVER\nEXTRA"), "client-ca.crt": []byte("CLIENT")},
		},
		"OwnCANotIssued": {
			reason: "The XR's own CA not issued yet is no missing input: CertificatesReady reports it. Nothing half-filled is composed.",
			st:     observedState(composed(false, false), secret("extra", "EXTRA"), secret("other-client-ca", "CLIENT")),
		},
		"ClientCAMissingWhenDue": {
			reason:  "A CA Secret missing once the reference is due is a missing input, and no reference without it is composed.",
			st:      observedState(composed(false, true), secret("x-server-ca", "SERVER"), secret("extra", "EXTRA")),
			waiting: []string{"tls.crt of Secret other-client-ca (to build Secret x-reference)"},
		},
		"ClientCAMissingBeforeIssued": {
			reason: "Before the XR's certificates are issued a missing CA is not reported: InputsReady keeps its message until then.",
			st:     observedState(nil, secret("extra", "EXTRA")),
		},
		"ExistingKeptWhileUnreadable": {
			reason:  "A reference that exists is kept unchanged, never deleted, while a CA Secret cannot be read.",
			st:      observedState(composed(true, true), secret("x-server-ca", "SERVER"), secret("extra", "EXTRA")),
			kept:    true,
			waiting: []string{"tls.crt of Secret other-client-ca (to build Secret x-reference), kept unchanged meanwhile"},
		},
		"ExistingKeptWhileOwnCARenews": {
			reason: "Nor while the XR's own CA Secret is away (cert-manager rewriting it): kept, and CertificatesReady says why.",
			st:     observedState(map[resource.Name]map[string]any{"secret-reference": existing}, secret("extra", "EXTRA"), secret("other-client-ca", "CLIENT")),
			kept:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "ns", tc.st)
			b.Certificate(pki.CA("x-server-ca", "ns", pki.IssuerRef("x-ca"), nil, nil), nil)
			b.Reference(reference.Reference{Kind: v1alpha1.KindRootShard, Name: "x", Namespace: "ns", URL: "https://x.ns:6443"},
				map[string]string{"owner": "x"}, ReferenceCAs{CA: []string{"x-server-ca", "extra"}, ClientCA: []string{"other-client-ca"}})
			o, ok := b.Set.Get("secret-reference")
			switch {
			case tc.want != nil:
				if !ok || o.Resource == nil {
					t.Fatalf("%s\nreference not built", tc.reason)
				}
				s := o.Resource.(*corev1.Secret)
				if diff := cmp.Diff(tc.want, s.Data); diff != "" {
					t.Errorf("%s\ndata: -want, +got:\n%s", tc.reason, diff)
				}
				if diff := cmp.Diff(map[string]string{"owner": "x", "kcp.crossplane.io/reference": "RootShard"}, s.Labels); diff != "" {
					t.Errorf("%s\nlabels: the owner's and the published kind: -want, +got:\n%s", tc.reason, diff)
				}
				if s.Name != "x-reference" {
					t.Errorf("%s\nname = %q, want x-reference", tc.reason, s.Name)
				}
			case tc.kept:
				if !ok || o.Kept == nil || o.Ready != resource.ReadyTrue {
					t.Errorf("%s\nthe observed reference must be kept, ready", tc.reason)
				}
			default:
				if ok {
					t.Errorf("%s\nno reference may be composed", tc.reason)
				}
			}
			if diff := cmp.Diff(tc.waiting, b.waiting); diff != "" {
				t.Errorf("%s\nmissing inputs: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
