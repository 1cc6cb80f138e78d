package claimedkcpinstallation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func TestClaim(t *testing.T) {
	cases := map[string]struct {
		reason string
		xr     *XR
		want   Claim
		ok     bool
	}{
		"ClaimRef": {
			reason: "spec.claimRef names the claim.",
			xr:     &XR{Spec: Spec{ClaimRef: &Claim{Namespace: "team-b", Name: "dev"}}},
			want:   Claim{Namespace: "team-b", Name: "dev"},
			ok:     true,
		},
		"Labels": {
			reason: "Without claimRef, Crossplane's claim labels name it.",
			xr:     &XR{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{LabelClaimNamespace: "team-b", LabelClaimName: "dev"}}},
			want:   Claim{Namespace: "team-b", Name: "dev"},
			ok:     true,
		},
		"NoClaim": {
			reason: "An XR created directly has no claim.",
			xr:     &XR{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := tc.xr.Claim()
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.ok {
				t.Errorf("%s\nClaim(): ok %v want %v, -want +got:\n%s", tc.reason, ok, tc.ok, diff)
			}
		})
	}
}

func TestCompose(t *testing.T) {
	xr := &XR{
		ObjectMeta: metav1.ObjectMeta{Name: "dev-x7k2p"},
		Spec: Spec{
			KcpInstallationSpec: v1alpha1.KcpInstallationSpec{External: v1alpha1.InstallationExternal{Hostname: "kcp.team-b.example.com"}},
			ClaimRef:            &Claim{Namespace: "team-b", Name: "dev"},
		},
	}
	running := resource.NewUnstructured()
	running.Object["status"] = map[string]any{
		"phase": "Running", "url": "https://kcp.team-b.example.com:6443", "kubeconfigSecret": "dev-admin-kubeconfig",
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
	}
	cases := map[string]struct {
		reason   string
		observed map[resource.Name]*resource.Unstructured
		status   v1alpha1.KcpInstallationStatus
		notReady bool
	}{
		"Fresh": {
			reason:   "Before the installation reports anything, the claim already names its Secret.",
			status:   v1alpha1.KcpInstallationStatus{Phase: v1alpha1.PhaseProvisioning, KubeconfigSecret: "dev-admin-kubeconfig"},
			notReady: true,
		},
		"Running": {
			reason:   "The claim shows the installation's status and is ready with it.",
			observed: map[resource.Name]*resource.Unstructured{KeyInstallation: running},
			status:   v1alpha1.KcpInstallationStatus{Phase: v1alpha1.PhaseRunning, URL: "https://kcp.team-b.example.com:6443", KubeconfigSecret: "dev-admin-kubeconfig"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(xr, observed.New(tc.observed))
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			if diff := cmp.Diff(tc.status, r.Status); diff != "" || r.NotReady != tc.notReady {
				t.Errorf("%s\nCompose(...): notReady %v want %v, status -want +got:\n%s", tc.reason, r.NotReady, tc.notReady, diff)
			}
			o, ok := r.Desired.Get(KeyInstallation)
			if !ok {
				t.Fatalf("%s\nno KcpInstallation composed", tc.reason)
			}
			u := o.Resource.(*resource.Unstructured)
			spec, _ := u.Object["spec"].(map[string]any)
			if u.GetKind() != "KcpInstallation" || u.GetNamespace() != "team-b" || u.GetName() != "dev" || spec["external"] == nil {
				t.Errorf("%s\ncomposed %s %s/%s spec %v, want KcpInstallation team-b/dev with the XR's spec", tc.reason, u.GetKind(), u.GetNamespace(), u.GetName(), spec)
			}
		})
	}
}
