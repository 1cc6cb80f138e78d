package kubeconfig

import (
	"crypto/x509"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// referenceData is the content of a reference Secret of kind/namespace/name, with a real CA
// certificate as Parse requires.
func referenceData(t *testing.T, kind, namespace, name string) map[string]string {
	ca := issue(t, &x509.Certificate{IsCA: true, KeyUsage: x509.KeyUsageCertSign}, nil)
	return map[string]string{"kind": kind, "namespace": namespace, "name": name, "url": "https://kcp.example.com:6443", "ca.crt": string(ca.root)}
}

// referencing is teamKubeconfig reaching what Secret shared-public-reference of its
// namespace names.
func referencing() *v1alpha1.Kubeconfig {
	return teamKubeconfig(func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.Target = v1alpha1.KubeconfigTarget{ReferenceSecretRef: &corev1.LocalObjectReference{Name: "shared-public-reference"}}
	})
}

func TestReferenceSecret(t *testing.T) {
	answered := func(w *testworld.World) *testworld.World {
		return w.Answer(referenceRequirement(referencing().Spec.Target.ReferenceSecretRef).Key())
	}
	cases := map[string]struct {
		reason string
		world  func() *testworld.World
		// target is status.targetName once resolved; conds what InputsReady says otherwise.
		target string
		cond   string
		errs   []string
	}{
		"SharedFrontProxy": {
			reason: "A reference to a FrontProxy of another namespace is a shared installation: the kubeconfig is the one its Tenant issued, copied.",
			world: func() *testworld.World {
				w := sharedWorld(granted)
				w.SecretData("shared-public-reference", referenceData(t, "FrontProxy", "kcp", "front"))
				// The Secret is the team's, of namespace team-a.
				w.Required("Secret", "shared-public-reference")["metadata"].(map[string]any)["namespace"] = "team-a"
				return answered(w)
			},
			target: "FrontProxy/kcp/front",
		},
		"NotRead": {
			reason: "Until Crossplane has read the Secret nothing is decided, and what exists is kept.",
			world:  func() *testworld.World { return testworld.New().InNamespace("team-a") },
			cond:   "Reading Secret shared-public-reference (spec.target.referenceSecretRef.name).",
		},
		"Missing": {
			reason: "A reference Secret that is not there says what to copy where.",
			world:  func() *testworld.World { return answered(testworld.New().InNamespace("team-a")) },
			cond:   "Secret shared-public-reference (spec.target.referenceSecretRef.name) does not exist in namespace team-a; copy the reference Secret of the installation's FrontProxy (<name>-reference) here.",
		},
		"NotAReference": {
			reason: "A Secret that holds a key is never a reference.",
			world: func() *testworld.World {
				d := referenceData(t, "FrontProxy", "kcp", "front")
				d["tls.key"] = "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n"
				w := testworld.New().InNamespace("team-a").SecretData("shared-public-reference", d)
				w.Required("Secret", "shared-public-reference")["metadata"].(map[string]any)["namespace"] = "team-a"
				return answered(w)
			},
			cond: "Secret shared-public-reference (spec.target.referenceSecretRef.name): it is not a reference Secret",
		},
		"SharedRootShard": {
			reason: "A shared installation is reached through the FrontProxy its Tenant shares, not its RootShard.",
			world: func() *testworld.World {
				w := testworld.New().InNamespace("team-a").SecretData("shared-public-reference", referenceData(t, "RootShard", "kcp", "shared"))
				w.Required("Secret", "shared-public-reference")["metadata"].(map[string]any)["namespace"] = "team-a"
				return answered(w)
			},
			cond: "Secret shared-public-reference (spec.target.referenceSecretRef.name): it names RootShard kcp/shared: a kcp installation of another namespace is reached through the FrontProxy its Tenant shares; use that FrontProxy's reference Secret.",
		},
		"ForeignIdentity": {
			reason: "Once the reference says the installation is shared, the team's identities are checked as for a frontProxyRef.",
			world: func() *testworld.World {
				w := sharedWorld(granted).SecretData("shared-public-reference", referenceData(t, "FrontProxy", "kcp", "front"))
				w.Required("Secret", "shared-public-reference")["metadata"].(map[string]any)["namespace"] = "team-a"
				return answered(w)
			},
			errs: []string{`spec.username: Invalid value: "admin": a Kubeconfig of namespace team-a for a shared installation must name a user of its team: tenant:team-a:<name>`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kc := referencing()
			if name == "ForeignIdentity" {
				kc.Spec.Username = "admin"
			}
			r, errs := Compose(kc, tc.world().State())
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.errs, got); diff != "" {
				t.Fatalf("%s\nCompose(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 {
				return
			}
			if r.Requirements[0] != referenceRequirement(kc.Spec.Target.ReferenceSecretRef) {
				t.Errorf("%s\nthe reference Secret is not read first on every reconcile: %v", tc.reason, r.Requirements)
			}
			if tc.target != "" {
				if r.Status.TargetName != tc.target {
					t.Errorf("%s\nstatus.targetName = %q, want %q", tc.reason, r.Status.TargetName, tc.target)
				}
				if r.Desired.Objects()[0].Resource.(*corev1.Secret).Name != "dev-kubeconfig" {
					t.Errorf("%s\nthe team's kubeconfig Secret is not composed", tc.reason)
				}
				return
			}
			if len(r.Conditions) != 1 || !strings.HasPrefix(r.Conditions[0].Message, tc.cond) || r.Conditions[0].Status {
				t.Errorf("%s\nconditions %+v, want InputsReady=False starting %q", tc.reason, r.Conditions, tc.cond)
			}
		})
	}
}
