package rootshard

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// embedded asks for kcp's embedded etcd, as a development KcpInstallation composes it.
func embedded(rs *v1alpha1.RootShard) {
	rs.Spec.Etcd = v1alpha1.EtcdConfig{Endpoints: []string{v1alpha1.EmbeddedEtcdEndpoint}}
}

func TestEmbeddedEtcd(t *testing.T) {
	cases := map[string]struct {
		reason       string
		mod          func(*v1alpha1.RootShard)
		liveReplicas *int32
		wantReplicas int32
		wantErrs     []string
	}{
		"OneReplicaByDefault": {
			reason:       "The embedded etcd lives in the pod: without spec.replicas one replica runs, not the default 2.",
			mod:          embedded,
			wantReplicas: 1,
		},
		"LiveCountNotKept": {
			reason:       "A live count above 1 (an autoscaler's, or one left from an etcd cluster) is brought back to 1: every other pod would be a kcp of its own.",
			mod:          embedded,
			liveReplicas: ptr.To[int32](3),
			wantReplicas: 1,
		},
		"ScaledToZero": {
			reason:       "Stopping it is allowed.",
			mod:          func(rs *v1alpha1.RootShard) { embedded(rs); rs.Spec.Replicas = ptr.To[int32](0) },
			wantReplicas: 0,
		},
		"SecondReplicaRefused": {
			reason: "A second replica would be a second, empty kcp behind one Service.",
			mod:    func(rs *v1alpha1.RootShard) { embedded(rs); rs.Spec.Replicas = ptr.To[int32](2) },
			wantErrs: []string{
				"spec.replicas: Invalid value: 2: kcp's embedded etcd lives in its pod, so a second replica would be a second kcp with data of its own: remove replicas or set it to 1, or store the data in an etcd cluster",
			},
		},
		"TLSRefused": {
			reason: "The embedded etcd is dialled inside the pod, without a client certificate.",
			mod: func(rs *v1alpha1.RootShard) {
				embedded(rs)
				rs.Spec.Etcd.TLSConfig = &v1alpha1.EtcdTLSConfig{}
				rs.Spec.Etcd.TLSConfig.SecretRef.Name = "etcd-client"
			},
			wantErrs: []string{"spec.etcd.tlsConfig: Forbidden: kcp's embedded etcd runs in the pod and is dialled without TLS: remove tlsConfig"},
		},
		"EmbeddedBesideAnEndpoint": {
			reason: "embedded is the only endpoint when it is one at all: beside a URL it is refused as a URL would be.",
			mod:    func(rs *v1alpha1.RootShard) { rs.Spec.Etcd.Endpoints = append(rs.Spec.Etcd.Endpoints, "embedded") },
			wantErrs: []string{
				`spec.etcd.endpoints[1]: Invalid value: "embedded": kcp's embedded etcd is for a root shard alone, in development: list etcd client URLs such as https://etcd:2379`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rs := basic(tc.mod)
			var gotErrs []string
			for _, e := range Validate(rs) {
				gotErrs = append(gotErrs, e.Error())
			}
			if diff := cmp.Diff(tc.wantErrs, gotErrs); diff != "" {
				t.Fatalf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
			if len(tc.wantErrs) > 0 {
				return
			}
			r, _ := converge(rs, func(w *testworld.World) {
				if tc.liveReplicas != nil {
					w.Put("deployment-kcp", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": int64(*tc.liveReplicas)}})
				}
			})
			d := deployment(t, r, "deployment-kcp")
			if got := *d.Spec.Replicas; got != tc.wantReplicas {
				t.Errorf("%s\nreplicas = %d, want %d", tc.reason, got, tc.wantReplicas)
			}
			args := d.Spec.Template.Spec.Containers[0].Args
			if slices.ContainsFunc(args, func(a string) bool { return len(a) > 15 && a[:15] == "--etcd-servers=" }) || !slices.Contains(args, "--embedded-etcd-directory=/var/etcd") {
				t.Errorf("%s\nargs: want --embedded-etcd-directory=/var/etcd and no --etcd-servers, got %v", tc.reason, args)
			}
			if pdb, ok := r.Desired.Get("poddisruptionbudget-kcp"); ok {
				t.Errorf("%s\na single replica has no disruption budget, got %v", tc.reason, pdb.Resource)
			}
		})
	}
}
