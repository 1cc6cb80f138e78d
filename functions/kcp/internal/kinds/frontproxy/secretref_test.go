package frontproxy

import (
	"fmt"
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
func bySecret(fp *v1alpha1.FrontProxy) {
	fp.Spec.RootShard = v1alpha1.RootShardConfig{SecretRef: &corev1.LocalObjectReference{Name: "root-reference"}}
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
func convergeIn(fp *v1alpha1.FrontProxy, of func() *testworld.World) Result {
	r := composeOK(fp, of().State())
	for range 4 {
		r = composeOK(fp, of().Settle(r.Desired).State())
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
	cases := map[string]struct {
		reason string
		rs     *v1alpha1.RootShard
		fp     func(*v1alpha1.FrontProxy)
	}{
		"Basic": {
			reason: "A FrontProxy composes the same from its RootShard's reference Secret as from the XR: its URL, port and certificates follow the RootShard's public address.",
			rs:     testworld.RootShard(),
		},
		"EverythingTheFrontProxyReads": {
			reason: "The RootShard's base URL, private hostname (a DNS name of the serving certificate), root CA Secret, cluster domain, client CA bundle and image reach the FrontProxy through the reference.",
			rs: testworld.RootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.ShardBaseURL = "https://root.shards.example.com:6443"
				rs.Spec.External = v1alpha1.ExternalConfig{Hostname: "kcp.example.com", Port: 443, PrivateHostname: "root.internal", PrivatePort: ptr.To[uint32](7443)}
				rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
				rs.Spec.ClusterDomain = "cluster.example"
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "extra-clients"}
				rs.Status.Image = "ghcr.io/kcp-dev/kcp:v0.28.0"
			}),
		},
		"ServiceAccounts": {
			reason: "The service account keys of the RootShard and of its Shards (named by ref or by the RootShard's reference Secret) are mounted alike.",
			rs:     testworld.RootShard(),
			fp: func(fp *v1alpha1.FrontProxy) {
				fp.Spec.Auth = &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}
				fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "bundle"}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			extra := func(w *testworld.World) {
				w.Secret("my-ca", "extra-clients", "bundle")
				beta := shard("beta")
				beta.Spec.RootShard = v1alpha1.RootShardConfig{SecretRef: &corev1.LocalObjectReference{Name: "root-reference"}}
				w.Object(shard("alpha")).Object(beta).Secret("root-service-account", "alpha-service-account", "beta-service-account")
			}
			byRef := frontProxy()
			bySec := frontProxy(bySecret)
			if tc.fp != nil {
				tc.fp(byRef)
				tc.fp(bySec)
			}
			fromXR := convergeIn(byRef, func() *testworld.World {
				w := testworld.New().Object(tc.rs).RootCAs()
				extra(w)
				return w
			})
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
			for _, key := range []resource.Name{"deployment-front-proxy", "secret-reference"} {
				if !fromSecret.Desired.Has(key) {
					t.Errorf("%s\n%s must be composed; desired: %v", tc.reason, key, fromSecret.Desired.Names())
				}
			}
			if want := (result.Requirement{Kind: "Secret", Name: "root-reference"}); fromSecret.Requirements[0] != want {
				t.Errorf("%s\nthe reference Secret must be required first, got %v", tc.reason, fromSecret.Requirements)
			}
		})
	}
}

func TestSecretRefOfAnotherNamespace(t *testing.T) {
	rs := testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.SetNamespace("kcp-platform") })
	fp := frontProxy(bySecret, withAuth(&v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}))
	r := convergeIn(fp, func() *testworld.World {
		w := testworld.New().SecretData("root-reference", referenceData(rs)).RootCAs().Secret("root-service-account")
		twoShards(w) // Shards of this namespace's RootShard root: not the referenced one's
		return w
	})
	d := deployment(t, r)
	args := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " ")
	if strings.Contains(args, "alpha") || strings.Contains(args, "beta") {
		t.Errorf("The Shards of this namespace are not those of a RootShard of another namespace: %s", args)
	}
	if all := fmt.Sprint(rendered(t, r.Desired)); !strings.Contains(all, "https://root-kcp.kcp-platform.svc.cluster.local:6443") {
		t.Errorf("The front-proxy reaches the root shard at the URL its reference publishes: %s", all)
	}
	if got := r.Status.URL; got != "https://api.example.com:6443" {
		t.Errorf("status.url = %q, the RootShard's public address", got)
	}
}

func TestSecretRefUnreadable(t *testing.T) {
	rs := testworld.RootShard()
	converged := convergeIn(frontProxy(bySecret), func() *testworld.World {
		return testworld.New().SecretData("root-reference", referenceData(rs)).RootCAs()
	})
	settled := func(with func(w *testworld.World)) *testworld.World {
		w := testworld.New().RootCAs().Settle(converged.Desired)
		if with != nil {
			with(w)
		}
		return w
	}
	cacheServer := referenceData(rs)
	cacheServer["kind"], cacheServer["name"] = "CacheServer", "cache"
	empty := map[string]string{"hello": "world"}

	type want struct {
		condition string
		errs      []string
	}
	cases := map[string]struct {
		reason string
		world  *testworld.World
		want   want
	}{
		"Missing": {
			reason: "A reference Secret that is gone is waited for like a missing RootShard: everything composed is kept, the reference Secret it publishes included.",
			world:  settled(nil),
			want: want{condition: "Secret root-reference (spec.rootShard.secretRef.name) does not exist in namespace kcp; copy the reference Secret of the RootShard (<rootshard>-reference) here or fix the reference. " +
				"Everything composed so far is kept unchanged meanwhile."},
		},
		"NotAReference": {
			reason: "A Secret that is no reference at all is refused, naming the field and every missing key.",
			world:  settled(func(w *testworld.World) { w.SecretData("root-reference", empty) }),
			want: want{errs: []string{`spec.rootShard.secretRef.name: Invalid value: "root-reference": Secret root-reference is not a reference Secret: ` +
				`key "ca.crt" is missing or empty; key "kind" is missing or empty; key "name" is missing or empty; key "namespace" is missing or empty; key "url" is missing or empty; ` +
				`name a RootShard's reference Secret (<rootshard>-reference), or a copy of it`}},
		},
		"OtherKind": {
			reason: "The reference of a CacheServer is no RootShard's: refused, saying whose it is.",
			world:  settled(func(w *testworld.World) { w.SecretData("root-reference", cacheServer) }),
			want: want{errs: []string{`spec.rootShard.secretRef.name: Invalid value: "root-reference": Secret root-reference is the reference of CacheServer kcp/cache, not of a RootShard; ` +
				`name a RootShard's reference Secret (<rootshard>-reference), or a copy of it`}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(frontProxy(bySecret), tc.world.State())
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
		})
	}
}

func TestSecretRefVolumeNames(t *testing.T) {
	// Validate cannot check the volumes named after a RootShard it does not know yet.
	long := testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.SetName(strings.Repeat("r", 40)) })
	fp := frontProxy(bySecret, func(fp *v1alpha1.FrontProxy) { fp.SetName(strings.Repeat("f", 30)) })
	if errs := Validate(fp); len(errs) > 0 {
		t.Fatalf("Validate: %v", errs)
	}
	_, errs := Compose(fp, testworld.New().SecretData("root-reference", referenceData(long)).State())
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "with RootShard "+long.Name+" (spec.rootShard.secretRef.name (RootShard kcp/"+long.Name+", by its reference Secret root-reference)) the front-proxy would mount volumes named") {
		t.Errorf("Compose refuses volume names too long with the RootShard its reference names, naming the field: %v", errs)
	}
}
