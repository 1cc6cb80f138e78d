package kubeconfig

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// teamKubeconfig is Kubeconfig dev of namespace team-a reaching FrontProxy kcp/front, shared
// by Tenant kcp/team-a.
func teamKubeconfig(mods ...func(*v1alpha1.Kubeconfig)) *v1alpha1.Kubeconfig {
	kc := &v1alpha1.Kubeconfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Kubeconfig"},
		ObjectMeta: metav1.ObjectMeta{Name: "dev", Namespace: "team-a", UID: "team-kc-uid"},
		Spec: v1alpha1.KubeconfigSpec{
			Target:    v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: "front", Namespace: "kcp"}},
			Username:  "tenant:team-a:alice",
			Validity:  metav1.Duration{Duration: 720 * time.Hour},
			SecretRef: corev1.LocalObjectReference{Name: "dev-kubeconfig"},
		},
	}
	for _, m := range mods {
		m(kc)
	}
	return kc
}

// controlled is an ownerReferences list naming a controller.
func controlled(kind, name, uid string) []any {
	return []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": kind, "name": name, "uid": uid, "controller": true}}
}

// sharedWorld is namespace team-a's view of a Tenant kcp/team-a that granted Kubeconfig dev,
// the Kubeconfig kcp/team-a.dev it composed, and that one's kubeconfig Secret; mods change
// the required objects in place before they are read.
func sharedWorld(members []v1alpha1.TenantMember, mods ...func(tenant, issued, secret map[string]any)) *testworld.World {
	tenant := map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Tenant",
		"metadata": map[string]any{"name": "team-a", "namespace": "kcp", "uid": "tenant-uid"},
		"spec":     map[string]any{"frontProxy": map[string]any{"ref": map[string]any{"name": "front"}}},
		"status":   map[string]any{"members": members}}
	issued := map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "Kubeconfig",
		"metadata": map[string]any{"name": "team-a.dev", "namespace": "kcp", "uid": "issued-uid",
			"labels":          sharing.Labels("team-a", "team-a", "dev"),
			"ownerReferences": controlled("Tenant", "team-a", "tenant-uid")},
		"status": map[string]any{"expiry": "2027-01-01T00:00:00Z"}}
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "team-a.dev-kubeconfig", "namespace": "kcp", "ownerReferences": controlled("Kubeconfig", "team-a.dev", "issued-uid")},
		"data":     map[string]any{"kubeconfig": "a3ViZWNvbmZpZyBvZiB0ZWFtLWE6YWxpY2U="}} // "kubeconfig of team-a:alice"
	for _, m := range mods {
		m(tenant, issued, secret)
	}
	w := testworld.New().InNamespace("team-a").Object(tenant).Object(issued).Object(secret)
	r, _ := composeShared(teamKubeconfig(), testworld.New().State())
	for _, q := range r.Requirements {
		w.Answer(q.Key())
	}
	return w
}

var granted = []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Granted: true, Ready: true}}

func TestComposeShared(t *testing.T) {
	type want struct {
		secret string // the copied kubeconfig, "" for none
		kept   bool
		conds  []string
		ready  bool
	}
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig // teamKubeconfig() when nil
		world  func() *testworld.World
		want   want
		errs   []string
	}{
		"Copied": {
			reason: "The team's Secret is a copy of the kubeconfig the Tenant's Kubeconfig wrote for it.",
			world:  func() *testworld.World { return sharedWorld(granted) },
			want: want{secret: "kubeconfig of team-a:alice", conds: []string{
				"InputsReady=True AllPresent: Tenant kcp/team-a grants this Kubeconfig; Kubeconfig kcp/team-a.dev issued its certificate.",
				"KubeconfigReady=False SecretPending: Secret team-a/dev-kubeconfig is composed; waiting for Crossplane to create it.",
			}},
		},
		"Ready": {
			reason: "Ready once the copy exists.",
			world: func() *testworld.World {
				w := sharedWorld(granted)
				r, _ := composeShared(teamKubeconfig(), w.State())
				return w.Exists(r.Desired)
			},
			want: want{secret: "kubeconfig of team-a:alice", ready: true, conds: []string{
				"InputsReady=True AllPresent: Tenant kcp/team-a grants this Kubeconfig; Kubeconfig kcp/team-a.dev issued its certificate.",
				"KubeconfigReady=True SecretWritten: Secret team-a/dev-kubeconfig holds the kubeconfig of user tenant:team-a:alice for FrontProxy kcp/front.",
			}},
		},
		"NoTenant": {
			reason: "Without a Tenant for its namespace a team gets nothing.",
			world: func() *testworld.World {
				return sharedWorld(granted, func(tenant, _, _ map[string]any) { tenant["spec"].(map[string]any)["namespace"] = "team-b" })
			},
			want: want{conds: []string{"InputsReady=False Missing: no Tenant in namespace kcp shares its kcp installation with namespace team-a; the platform team creates one (docs/shared-kcp.md)."}},
		},
		"Refused": {
			reason: "The Tenant's reason for refusing is the team's to read.",
			world: func() *testworld.World {
				return sharedWorld([]v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: "Kubeconfig team-a/dev is refused: spec.username: ..."}})
			},
			want: want{conds: []string{"InputsReady=False Refused: Kubeconfig team-a/dev is refused: spec.username: ...."}},
		},
		"NotTheTenantsKubeconfig": {
			reason: "A Kubeconfig of the platform's namespace that its Tenant did not compose for this one (the platform's own) is never copied.",
			world: func() *testworld.World {
				return sharedWorld(granted, func(_, issued, _ map[string]any) {
					// Named like the Tenant, labelled like its XRs: only the controller's kind differs.
					issued["metadata"].(map[string]any)["ownerReferences"] = controlled("KcpInstallation", "team-a", "x")
				})
			},
			want: want{conds: []string{"InputsReady=False Missing: Tenant kcp/team-a has not composed Kubeconfig kcp/team-a.dev for this one yet."}},
		},
		"ComposedForAnotherTeam": {
			reason: "A Kubeconfig the Tenant composed for another team's XR is never copied.",
			world: func() *testworld.World {
				return sharedWorld(granted, func(_, issued, _ map[string]any) {
					issued["metadata"].(map[string]any)["labels"] = sharing.Labels("team-a", "team-b", "dev")
				})
			},
			want: want{conds: []string{"InputsReady=False Missing: Tenant kcp/team-a has not composed Kubeconfig kcp/team-a.dev for this one yet."}},
		},
		"SecretNotWrittenByIt": {
			reason: "Only the Secret the Tenant's Kubeconfig composed is copied, not another of the same name.",
			world: func() *testworld.World {
				return sharedWorld(granted, func(_, _, secret map[string]any) { secret["metadata"].(map[string]any)["ownerReferences"] = nil })
			},
			want: want{conds: []string{"InputsReady=False Missing: Kubeconfig kcp/team-a.dev has not written its kubeconfig (Secret team-a.dev-kubeconfig) yet."}},
		},
		"OtherFrontProxy": {
			reason: "A Tenant shares one FrontProxy: naming another is refused.",
			world: func() *testworld.World {
				return sharedWorld(granted, func(tenant, _, _ map[string]any) {
					tenant["spec"].(map[string]any)["frontProxy"] = map[string]any{"ref": map[string]any{"name": "internal"}}
				})
			},
			want: want{conds: []string{"InputsReady=False Refused: Tenant kcp/team-a shares FrontProxy internal with namespace team-a, not front (spec.target.frontProxyRef.name)."}},
		},
		"ForeignIdentity": {
			reason: "Once its Tenant is read, a team's Kubeconfig naming identities outside the Tenant's prefix is refused naming the field, and nothing is composed or dropped.",
			kc: teamKubeconfig(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.Username, kc.Spec.Groups = "team-a:alice", []string{"system:masters"}
			}),
			world: func() *testworld.World { return sharedWorld(granted) },
			errs: []string{
				`spec.username: Invalid value: "team-a:alice": a Kubeconfig of namespace team-a for a shared installation must name a user of its team: tenant:team-a:<name>`,
				`spec.groups[0]: Invalid value: "system:masters": a Kubeconfig of namespace team-a for a shared installation may name only groups of its team: tenant:team-a:<name>`,
			},
		},
		"TooLarge": {
			reason: "A team's Kubeconfig heavier than a team's XR may be is refused naming its largest part, whatever its Tenant says; its TenantRequest says so without the XR, so its Tenant names it too.",
			kc: teamKubeconfig(func(kc *v1alpha1.Kubeconfig) {
				kc.Annotations = map[string]string{"example.com/notes": strings.Repeat("n", sharing.TeamXRBytes)}
			}),
			world: func() *testworld.World { return sharedWorld(granted) },
			want: want{conds: []string{"InputsReady=False Refused: metadata.annotations: Forbidden: this Kubeconfig weighs 6379 bytes in metadata and spec, 6168 of them in metadata.annotations; a team's Kubeconfig may weigh at most 6144, " +
				"so that what it asks of its Tenant stays small: remove annotations (kubectl apply keeps a copy of the object in one; kubectl apply --server-side does not)."}},
		},
		"PrefixOfTheTenant": {
			reason: "The Tenant's spec.identityPrefix, not the namespace, decides the team's identities.",
			kc:     teamKubeconfig(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Username = "red:alice" }),
			world: func() *testworld.World {
				return sharedWorld(granted, func(tenant, _, _ map[string]any) { tenant["spec"].(map[string]any)["identityPrefix"] = "red:" })
			},
			want: want{secret: "kubeconfig of team-a:alice", conds: []string{
				"InputsReady=True AllPresent: Tenant kcp/team-a grants this Kubeconfig; Kubeconfig kcp/team-a.dev issued its certificate.",
				"KubeconfigReady=False SecretPending: Secret team-a/dev-kubeconfig is composed; waiting for Crossplane to create it.",
			}},
		},
		"TenantGoneKeepsTheCopy": {
			reason: "A Tenant that goes does not delete the team's copy: deleting it would revoke nothing (kcp cannot revoke a certificate), and never destroy on doubt holds.",
			world: func() *testworld.World {
				w := sharedWorld(granted)
				r, _ := composeShared(teamKubeconfig(), w.State())
				w.Exists(r.Desired)
				return w.Drop("Tenant", "team-a")
			},
			want: want{kept: true, conds: []string{"InputsReady=False Missing: no Tenant in namespace kcp shares its kcp installation with namespace team-a; the platform team creates one (docs/shared-kcp.md); Secret team-a/dev-kubeconfig is kept unchanged meanwhile."}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := tc.kc
			if kc == nil {
				kc = teamKubeconfig()
			}
			r, errs := composeShared(kc, tc.world().State())
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if diff := cmp.Diff(tc.errs, gotErrs); diff != "" {
				t.Fatalf("%s\ncomposeShared(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 {
				return // refused whole: Crossplane applies nothing, so everything stays
			}
			var got want
			asks := false
			for _, o := range r.Desired.Objects() {
				if o.Name == sharing.RequestKey {
					asks = o.Resource.(*resource.Unstructured).GetKind() == "TenantRequest"
					continue
				}
				if o.Kept != nil {
					got.kept = true
					continue
				}
				got.secret = string(o.Resource.(*corev1.Secret).Data[kubeconfigfile.SecretKey])
			}
			for _, c := range r.Conditions {
				got.conds = append(got.conds, fmt.Sprintf("%s=%s %s: %s", c.Type, map[bool]string{true: "True", false: "False"}[c.Status], c.Reason, c.Message))
			}
			slices.Sort(got.conds)
			got.ready = !r.NotReady
			if !asks {
				t.Errorf("%s\ncomposeShared(...) composed no TenantRequest: its Tenant would not know what it asks for", tc.reason)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\ncomposeShared(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestValidateShared(t *testing.T) {
	kc := teamKubeconfig(func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.Username = "admin"
		kc.Spec.CertificateTemplate = &v1alpha1.CertificateTemplate{}
	})
	var got []string
	for _, e := range Validate(kc) {
		got = append(got, e.Error())
	}
	want := []string{"spec.certificateTemplate: Forbidden: a Kubeconfig for a shared installation gets the certificate its Tenant issues; its subject and usages are not the team's to choose"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("A team's Kubeconfig of a shared installation is refused a certificate template before anything is read; its identities wait for its Tenant's prefix.\nValidate: -want, +got:\n%s", diff)
	}
}
