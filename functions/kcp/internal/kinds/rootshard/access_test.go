package rootshard

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// objectsKey is the key of the requirement for the Objects acting in root's kcp.
const objectsKey = "object/kcp.crossplane.io/root-shard=root"

// inKCP is a provider-kubernetes Object of RootShard rootShard acting in workspace path.
func inKCP(name, rootShard, path string) map[string]any {
	return map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
		"metadata": map[string]any{"name": name, "namespace": "kcp",
			"labels":      map[string]any{"kcp.crossplane.io/root-shard": rootShard},
			"annotations": map[string]any{"kcp.crossplane.io/workspace": path}}}
}

// accessWorld is a converged basic RootShard whose kcp-operator certificate is issued.
func accessWorld(t *testing.T) *testworld.World {
	t.Helper()
	_, w := converge(basic(), nil)
	return w.SecretData("root-kcp-operator", map[string]string{"tls.crt": "CRT", "tls.key": "KEY", "ca.crt": "ROOT"}).
		SecretData("root-server-ca", map[string]string{"tls.crt": "SERVER-CA"})
}

// providerConfigs lists the ProviderConfigs desired as "<name> <secret>/<key>".
func providerConfigs(r Result) []string {
	var out []string
	for _, o := range r.Desired.Objects() {
		if !strings.HasPrefix(string(o.Name), providerConfigPrefix) {
			continue
		}
		u := o.Kept
		if u == nil {
			u = o.Resource.(*resource.Unstructured)
		}
		ref := u.Object["spec"].(map[string]any)["credentials"].(map[string]any)["secretRef"].(map[string]any)
		out = append(out, u.GetName()+" "+ref["namespace"].(string)+"/"+ref["name"].(string)+"/"+ref["key"].(string))
	}
	slices.Sort(out)
	return out
}

// servers lists, per key of the access Secret, the server its kubeconfig reaches.
func servers(t *testing.T, r Result) map[string]string {
	t.Helper()
	o, ok := r.Desired.Get("secret-kcp-operator-kubeconfig")
	if !ok {
		return nil
	}
	s, ok := o.Resource.(*corev1.Secret)
	if !ok {
		t.Fatalf("the access Secret is kept, not built")
	}
	out := map[string]string{}
	for k, v := range s.Data {
		var kc struct {
			Clusters []struct {
				Cluster struct {
					Server string `json:"server"`
					CA     []byte `json:"certificate-authority-data"`
				} `json:"cluster"`
			} `json:"clusters"`
			Users []struct {
				User struct {
					Cert []byte `json:"client-certificate-data"`
					Key  []byte `json:"client-key-data"`
				} `json:"user"`
			} `json:"users"`
		}
		if err := yaml.Unmarshal(v, &kc); err != nil {
			t.Fatalf("key %s: %v", k, err)
		}
		c, u := kc.Clusters[0].Cluster, kc.Users[0].User
		out[k] = c.Server + " ca=" + string(c.CA) + " cert=" + string(u.Cert) + " key=" + string(u.Key)
	}
	return out
}

func TestAccess(t *testing.T) {
	rootServer := "https://root-proxy.kcp.svc.cluster.local:6443/clusters/root ca=SERVER-CA cert=CRT key=KEY"
	teamServer := "https://root-proxy.kcp.svc.cluster.local:6443/clusters/root:team ca=SERVER-CA cert=CRT key=KEY"
	cases := map[string]struct {
		reason  string
		world   func() *testworld.World
		configs []string
		servers map[string]string
	}{
		"Fresh": {
			reason:  "Before the client certificate is issued only the ProviderConfig of root is composed; its credentials follow.",
			world:   testworld.New,
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root"},
		},
		"Issued": {
			reason:  "Once issued, the credentials reach root through the internal proxy with the kcp-operator certificate, trusting the server CA.",
			world:   func() *testworld.World { return accessWorld(t).Answer(objectsKey) },
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root"},
			servers: map[string]string{"root": rootServer},
		},
		"ObjectsInAWorkspace": {
			reason: "An Object acting in another workspace gets a ProviderConfig and a kubeconfig of its own workspace.",
			world: func() *testworld.World {
				return accessWorld(t).Answer(objectsKey).Object(inKCP("a", "root", "root:team")).Object(inKCP("b", "root", "root:team")).Object(inKCP("c", "root", "root"))
			},
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root", "root-kcp-operator.root.team kcp/root-kcp-operator-kubeconfig/root.team"},
			servers: map[string]string{"root": rootServer, "root.team": teamServer},
		},
		"AnotherRootShards": {
			reason: "An Object of another installation gets nothing from this one.",
			world: func() *testworld.World {
				return accessWorld(t).Answer(objectsKey).Object(inKCP("a", "other", "root:team"))
			},
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root"},
			servers: map[string]string{"root": rootServer},
		},
		"Unused": {
			reason: "Credentials no Object uses any more are dropped (provider-kubernetes keeps a ProviderConfig in use until its Objects are gone).",
			world: func() *testworld.World {
				w := accessWorld(t).Answer(objectsKey).Object(inKCP("a", "root", "root:team"))
				r := composeOK(basic(), w.State())
				return w.Exists(r.Desired).Drop("Object", "a")
			},
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root"},
			servers: map[string]string{"root": rootServer},
		},
		"NotListedYet": {
			reason: "Until Crossplane has listed the Objects, every ProviderConfig composed so far is kept: an Object whose credentials vanish cannot clean up in kcp.",
			world: func() *testworld.World {
				w := accessWorld(t).Answer(objectsKey).Object(inKCP("a", "root", "root:team"))
				r := composeOK(basic(), w.State())
				w.Exists(r.Desired)
				return accessWorld(t).ComposedFrom(w)
			},
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root", "root-kcp-operator.root.team kcp/root-kcp-operator-kubeconfig/root.team"},
			servers: map[string]string{"root": rootServer, "root.team": teamServer},
		},
		"BadAnnotation": {
			reason: "An Object whose workspace annotation is not a path is ignored, and what was composed is kept.",
			world: func() *testworld.World {
				w := accessWorld(t).Answer(objectsKey).Object(inKCP("a", "root", "root:team"))
				r := composeOK(basic(), w.State())
				return w.Exists(r.Desired).Drop("Object", "a").Object(inKCP("b", "root", "root/../other"))
			},
			configs: []string{"root-kcp-operator.root kcp/root-kcp-operator-kubeconfig/root", "root-kcp-operator.root.team kcp/root-kcp-operator-kubeconfig/root.team"},
			servers: map[string]string{"root": rootServer, "root.team": teamServer},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(basic(), tc.world().State())
			if diff := cmp.Diff(tc.configs, providerConfigs(r)); diff != "" {
				t.Errorf("%s\nProviderConfigs: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.servers, servers(t, r)); diff != "" {
				t.Errorf("%s\ncredentials: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// registrations lists the registration Objects desired as "<object> <kcp shard> <policies>".
func registrations(r Result) []string {
	var out []string
	for _, o := range r.Desired.Objects() {
		if !strings.HasPrefix(string(o.Name), registrationPrefix) {
			continue
		}
		u := o.Kept
		if u == nil {
			u = o.Resource.(*resource.Unstructured)
		}
		spec := u.Object["spec"].(map[string]any)
		m := spec["forProvider"].(map[string]any)["manifest"].(map[string]any)
		var policies []string
		for _, p := range spec["managementPolicies"].([]any) {
			policies = append(policies, p.(string))
		}
		out = append(out, u.GetName()+" "+m["kind"].(string)+"/"+m["metadata"].(map[string]any)["name"].(string)+" "+strings.Join(policies, ","))
	}
	slices.Sort(out)
	return out
}

func TestRegistrations(t *testing.T) {
	alpha := testworld.Shard("alpha")
	// registered observes a registration of alpha composed with policies.
	registered := func(w *testworld.World, policies ...any) *testworld.World {
		return w.Put("registration-alpha", map[string]any{"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
			"metadata": map[string]any{"name": "root-registration-alpha", "namespace": "kcp"},
			"spec": map[string]any{"managementPolicies": policies, "providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "root-kcp-operator.root"},
				"forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "core.kcp.io/v1alpha1", "kind": "Shard", "metadata": map[string]any{"name": "alpha"}}}}})
	}
	cases := map[string]struct {
		reason string
		world  *testworld.World
		want   []string
	}{
		"Observed": {
			reason: "Each Shard of this RootShard is observed in root, with a policy that can neither create nor delete it; Update is composed only to change the unschedulable annotation of a Shard kcp has (availability_test.go).",
			world:  testworld.New().Answer("shard/*").Object(alpha),
			want:   []string{"root-registration-alpha Shard/alpha Observe"},
		},
		"ShardDeleted": {
			reason: "Once its Shard XR is gone, the registration is first allowed to delete...",
			world:  registered(testworld.New().Answer("shard/*"), "Observe"),
			want:   []string{"root-registration-alpha Shard/alpha Observe,Delete"},
		},
		"ThenLeftOut": {
			reason: "...then left out, so Crossplane deletes the Object and provider-kubernetes the kcp Shard.",
			world:  registered(testworld.New().Answer("shard/*"), "Observe", "Delete"),
		},
		"ShardBack": {
			reason: "A Shard created again before the deletion observes again, and can no longer delete.",
			world:  registered(testworld.New().Answer("shard/*").Object(alpha), "Observe", "Delete"),
			want:   []string{"root-registration-alpha Shard/alpha Observe"},
		},
		"NotListedYet": {
			reason: "Until Crossplane has listed the Shards nothing is deregistered: the Object is kept as it is.",
			world:  registered(testworld.New(), "Observe"),
			want:   []string{"root-registration-alpha Shard/alpha Observe"},
		},
		"OtherRootShard": {
			reason: "A Shard of another RootShard is not this one's to observe.",
			world: testworld.New().Answer("shard/*").Object(testworld.Shard("beta", func(sh *v1alpha1.Shard) {
				sh.Spec.RootShard.Ref.Name = "other"
			})),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := composeOK(basic(), tc.world.State())
			if diff := cmp.Diff(tc.want, registrations(r)); diff != "" {
				t.Errorf("%s\nregistrations: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
