package shard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// bySecret names the RootShard by its reference Secret root-reference.
func bySecret(sh *v1alpha1.Shard) {
	sh.Spec.RootShard = v1alpha1.RootShardConfig{SecretRef: &corev1.LocalObjectReference{Name: "root-reference"}}
}

// referenceData is the reference Secret rs publishes, with a real CA as Parse requires.
func referenceData(rs *v1alpha1.RootShard) map[string]string {
	r := reference.OfRootShard(rs, rs.GetNamespace(), rs.Status.Image)
	r.CA, r.ClientCA = testworld.CAPEM(), testworld.CAPEM()
	out := map[string]string{}
	for k, v := range r.Data() {
		out[k] = string(v)
	}
	return out
}

// convergeIn composes until the desired set settles in the world of.
func convergeIn(sh *v1alpha1.Shard, of func() *testworld.World) Result {
	r := composeOK(sh, of().State())
	for range 4 {
		r = composeOK(sh, of().Settle(r.Desired).State())
	}
	return r
}

// rendered is a desired set as Crossplane gets it: each object and its readiness.
func rendered(t *testing.T, s desired.Set) map[resource.Name]any {
	t.Helper()
	m, err := s.Composed()
	if err != nil {
		t.Fatal(err)
	}
	out := map[resource.Name]any{}
	for k, v := range m {
		out[k] = map[string]any{"object": v.Resource.Object, "ready": v.Ready.String()}
	}
	return out
}

func TestSecretRefComposesAsRef(t *testing.T) {
	everything := func(rs *v1alpha1.RootShard) {
		rs.Spec.ShardBaseURL = "https://root.shards.example.com:6443"
		rs.Spec.External.PrivateHostname = "root.internal"
		rs.Spec.External.PrivatePort = ptr.To[uint32](7443)
		rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
		rs.Spec.ClusterDomain = "cluster.example"
		rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "extra-clients"}
		rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"}
		rs.Status.Image = "ghcr.io/kcp-dev/kcp:v0.28.0"
	}
	cases := map[string]struct {
		reason string
		rs     *v1alpha1.RootShard
		sh     func(*v1alpha1.Shard)
	}{
		"Basic": {
			reason: "A Shard of the smallest RootShard composes the same from its reference Secret as from the XR.",
			rs:     testworld.RootShard(),
		},
		"EverythingTheShardReads": {
			reason: "Every field of the RootShard a Shard reads (base URL, private address, root CA Secret, cluster domain, client CA bundle, cache server, image) reaches it through the reference.",
			rs:     testworld.RootShard(everything),
		},
		"ServiceAccountsAndBundles": {
			reason: "The service account keys of the RootShard's Shards and the merged bundles come out the same.",
			rs: testworld.RootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "extra-clients"}
			}),
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.Auth = &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}
				sh.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "bundle"}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			extra := func(w *testworld.World) {
				w.Secret("my-ca", "extra-clients", "bundle", "cache-kubeconfig", "cache-ca", "cache-client-certificate")
				w.Object(testworld.Shard("beta", bySecret)).Secret("beta-service-account", "root-service-account")
			}
			byRef := shard()
			if tc.sh != nil {
				tc.sh(byRef)
			}
			fromXR := convergeIn(byRef, func() *testworld.World {
				w := testworld.New().Object(tc.rs).RootCAs()
				extra(w)
				return w
			})
			bySec := shard(bySecret)
			if tc.sh != nil {
				tc.sh(bySec)
			}
			fromSecret := convergeIn(bySec, func() *testworld.World {
				w := testworld.New().SecretData("root-reference", referenceData(tc.rs)).RootCAs()
				extra(w)
				return w
			})
			if diff := cmp.Diff(rendered(t, fromXR.Desired), rendered(t, fromSecret.Desired)); diff != "" {
				t.Errorf("%s\ndesired: -from the RootShard, +from its reference Secret:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(fromXR.Status, fromSecret.Status); diff != "" {
				t.Errorf("%s\nstatus: -from the RootShard, +from its reference Secret:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(fromXR.Conditions, fromSecret.Conditions); diff != "" {
				t.Errorf("%s\nconditions: -from the RootShard, +from its reference Secret:\n%s", tc.reason, diff)
			}
			if !fromSecret.Desired.Has("deployment-shard-kcp") {
				t.Errorf("%s\nthe workload must be composed; desired: %v", tc.reason, fromSecret.Desired.Names())
			}
			if want := (result.Requirement{Kind: "Secret", Name: "root-reference"}); fromSecret.Requirements[0] != want {
				t.Errorf("%s\nthe reference Secret must be required first, got %v", tc.reason, fromSecret.Requirements)
			}
		})
	}
}

func TestSecretRefOfAnotherNamespace(t *testing.T) {
	// The reference of RootShard root of kcp-platform, copied into kcp.
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) {
		rs.SetNamespace("kcp-platform")
		rs.Spec.ShardBaseURL = "https://root.kcp-platform.svc.cluster.local:6443"
	})
	sh := shard(bySecret, func(sh *v1alpha1.Shard) {
		sh.Spec.Auth = &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}
	})
	r := convergeIn(sh, func() *testworld.World {
		// A Shard of kcp naming a RootShard root of kcp by ref: not the referenced RootShard's.
		return testworld.New().SecretData("root-reference", referenceData(rs)).RootCAs().Object(testworld.Shard("local")).Secret("root-service-account", "local-service-account")
	})
	if !r.Desired.Has("deployment-shard-kcp") {
		t.Fatalf("A reference of another namespace is allowed: the Issuers and CAs named after the RootShard are in this one. desired: %v", r.Desired.Names())
	}
	args := strings.Join(deployment(t, r).Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"--shard-external-url=https://api.example.com:6443", "--service-account-key-file=/etc/kcp/tls/root/service-account/tls.crt"} {
		if !strings.Contains(args, want) {
			t.Errorf("args must hold %s: %s", want, args)
		}
	}
	if strings.Contains(args, "/tls/local/") {
		t.Errorf("The Shards of this namespace are not the other namespace's RootShard's: %s", args)
	}
	kc, _ := r.Desired.Get("secret-client-kubeconfig")
	if s, ok := kc.Resource.(*corev1.Secret); !ok || !strings.Contains(string(s.Data["kubeconfig"]), "server: https://root.kcp-platform.svc.cluster.local:6443") {
		t.Errorf("The shard reaches the root shard at the URL its reference publishes: %v", kc.Resource)
	}
	want := condition.Condition{Type: TypeRegistered, Reason: ReasonNotObserved,
		Message: "RootShard kcp-platform/root is in another namespace (spec.rootShard.secretRef.name (RootShard kcp-platform/root, by its reference Secret root-reference)); whether kcp registered this shard is observed there, by its Object root-registration-alpha."}
	var got condition.Condition
	for _, c := range r.Conditions {
		if c.Type == TypeRegistered {
			got = c
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Registered says where the registration is observed: -want, +got:\n%s", diff)
	}
	for _, req := range r.Requirements {
		if req.Kind == "Object" {
			t.Errorf("The registration Object of a RootShard of another namespace is not read here: %v", req)
		}
	}
}

func TestSecretRefUnreadable(t *testing.T) {
	rs := testworld.RootShard()
	converged := convergeIn(shard(bySecret), func() *testworld.World {
		return testworld.New().SecretData("root-reference", referenceData(rs)).RootCAs()
	})
	// settled is the world of the converged Shard, with the reference Secret given by with.
	settled := func(with func(w *testworld.World)) *testworld.World {
		w := testworld.New().RootCAs().Settle(converged.Desired)
		if with != nil {
			with(w)
		}
		return w
	}
	notReference := map[string]string{"kind": "RootShard", "name": "root", "namespace": "kcp", "url": "http://root", "ca.crt": testworld.CAPEM()}
	frontProxy := referenceData(rs)
	frontProxy["kind"], frontProxy["name"] = "FrontProxy", "edge"

	type want struct {
		// condition is InputsReady while waiting; errs the refusal otherwise.
		condition string
		errs      []string
	}
	cases := map[string]struct {
		reason string
		world  *testworld.World
		want   want
	}{
		"Missing": {
			reason: "A reference Secret that is gone is waited for like a missing RootShard: everything composed is kept.",
			world:  settled(nil),
			want: want{condition: "Secret root-reference (spec.rootShard.secretRef.name) does not exist in namespace kcp; copy the reference Secret of the RootShard (<rootshard>-reference) here or fix the reference. " +
				"Everything composed so far is kept unchanged meanwhile."},
		},
		"NotAReference": {
			reason: "A Secret that is not a reference is refused, naming the field and each problem.",
			world:  settled(func(w *testworld.World) { w.SecretData("root-reference", notReference) }),
			want: want{errs: []string{`spec.rootShard.secretRef.name: Invalid value: "root-reference": Secret root-reference is not a reference Secret: ` +
				`key "url" is "http://root", not an https URL with a host; name a RootShard's reference Secret (<rootshard>-reference), or a copy of it`}},
		},
		"KeyHolder": {
			reason: "A Secret with a key in it is no reference: refused before anything is read.",
			world:  settled(func(w *testworld.World) { w.Secret("root-reference") }),
			want: want{errs: []string{`spec.rootShard.secretRef.name: Invalid value: "root-reference": Secret root-reference is not a reference Secret: ` +
				`key "tls.key" is named as a private key is; a reference never carries a key; name a RootShard's reference Secret (<rootshard>-reference), or a copy of it`}},
		},
		"OtherKind": {
			reason: "The reference of a FrontProxy (or CacheServer) is no RootShard's: refused, saying whose it is.",
			world:  settled(func(w *testworld.World) { w.SecretData("root-reference", frontProxy) }),
			want: want{errs: []string{`spec.rootShard.secretRef.name: Invalid value: "root-reference": Secret root-reference is the reference of FrontProxy kcp/edge, not of a RootShard; ` +
				`name a RootShard's reference Secret (<rootshard>-reference), or a copy of it`}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(shard(bySecret), tc.world.State())
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want.errs, got); diff != "" {
				t.Errorf("%s\nerrors: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.condition == "" {
				return
			}
			r.Desired = testworld.Flatten(r.Desired, tc.world.State())
			if diff := cmp.Diff(converged.Desired.Names(), r.Desired.Names()); diff != "" {
				t.Errorf("%s\nthe desired set must not shrink: -want, +got:\n%s", tc.reason, diff)
			}
			for _, o := range r.Desired.Objects() {
				if o.Kept == nil {
					t.Errorf("%s\n%s must be kept exactly as observed", tc.reason, o.Name)
				}
			}
			want := []condition.Condition{{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing, Message: tc.want.condition}}
			if diff := cmp.Diff(want, r.Conditions); diff != "" {
				t.Errorf("%s\nconditions: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]result.Requirement{{Kind: "Secret", Name: "root-reference"}}, r.Requirements); diff != "" {
				t.Errorf("%s\nthe Secret is still required: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
