package inputs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// inputs registers the mounts of a small root shard: two certificates, a composed Secret,
// a composed ConfigMap and an external Secret and ConfigMap.
func inputs() *Inputs {
	var in Inputs
	in.Certificate("root-server", "certificate-server")
	in.Certificate("root-ca", "certificate-root-ca")
	in.Composed(KindSecret, "root-merged-client-ca", "secret-merged-client-ca")
	in.Composed(KindConfigMap, "root-proxy-config", "configmap-proxy-config")
	in.External(KindSecret, "etcd-client", "spec.etcd.tlsConfig.secretRef")
	in.External(KindConfigMap, "audit", "spec.audit.policy.configMap")
	return &in
}

func mounts() workload.Mounts {
	var m workload.Mounts
	m.Secret("kcp-ca", "root-ca", "/etc/kcp/tls/ca/root")
	m.Secret("server-cert", "root-server", "/etc/kcp/tls/server")
	m.Secret("client-ca", "root-merged-client-ca", "/etc/kcp/tls/ca/client")
	m.ConfigMap("config", "root-proxy-config", "/etc/kcp-front-proxy/config")
	m.Secret("etcd-client-cert", "etcd-client", "/etc/etcd/tls")
	m.ConfigMap("audit-policy", "audit", "/etc/kcp/audit/policy")
	// Not registered: the user's own volume, never checked.
	m.Secret("extra", "users-own-secret", "/extra")
	return m
}

// everything is the world in which every input of inputs() is there: both certificates
// issued, the composed Secret and ConfigMap created, the external Secret and ConfigMap found.
func everything() *testworld.World {
	return testworld.New().
		Certificate("certificate-server", "root-server", testworld.Cert{Ready: true, Revision: 2}).
		Certificate("certificate-root-ca", "root-ca", testworld.Cert{Ready: true, Revision: 1}).
		Put("secret-merged-client-ca", map[string]any{"apiVersion": "v1", "kind": "Secret"}).
		Put("configmap-proxy-config", map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}).
		SecretData("etcd-client", map[string]string{"tls.crt": "cert"}).ResourceVersion("Secret", "etcd-client", "100").
		ConfigMap("audit", nil).ResourceVersion("ConfigMap", "audit", "200")
}

func desiredSet(withSecret, withConfigMap bool, proxyConfig string) *desired.Set {
	var s desired.Set
	if withSecret {
		s.Add("secret-merged-client-ca", &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "root-merged-client-ca"},
			Data:       map[string][]byte{"tls.crt": []byte("PEM")},
		}, resource.ReadyTrue)
	}
	if withConfigMap {
		s.Add("configmap-proxy-config", &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "root-proxy-config"},
			Data:       map[string]string{"path-mapping.yaml": proxyConfig},
		}, resource.ReadyTrue)
	}
	return &s
}

func TestCheck(t *testing.T) {
	type want struct {
		open         bool
		certificates []string
		objects      []string
		composed     []string
	}
	cases := map[string]struct {
		reason  string
		world   *testworld.World
		desired *desired.Set
		want    want
	}{
		"AllPresent": {
			reason:  "Every certificate issued, every composed object desired and every external object found: the gate is open.",
			world:   everything(),
			desired: desiredSet(true, true, "a"),
			want:    want{open: true},
		},
		"CertificateNotIssued": {
			reason:  "A certificate that is not Ready keeps the gate closed.",
			world:   everything().Certificate("certificate-server", "root-server", testworld.Cert{}),
			desired: desiredSet(true, true, "a"),
			want: want{
				certificates: []string{"root-server"},
			},
		},
		"CertificateMissing": {
			reason:  "A certificate not observed at all keeps the gate closed.",
			world:   everything().DropComposed("certificate-root-ca").DropComposed("certificate-server"),
			desired: desiredSet(true, true, "a"),
			want: want{
				certificates: []string{"root-ca", "root-server"},
			},
		},
		"ComposedNotDesired": {
			reason:  "A composed Secret or ConfigMap the composer could not build keeps the gate closed.",
			world:   everything(),
			desired: desiredSet(false, false, ""),
			want: want{
				composed: []string{"ConfigMap root-proxy-config", "Secret root-merged-client-ca"},
			},
		},
		"ComposedNotObserved": {
			reason:  "A composed object that does not exist yet keeps the gate closed: pods never start before what they mount.",
			world:   everything().DropComposed("configmap-proxy-config"),
			desired: desiredSet(true, true, "a"),
			want: want{
				composed: []string{"ConfigMap root-proxy-config"},
			},
		},
		"ExternalNotFound": {
			reason:  "A missing external object is named with the spec field referencing it.",
			world:   everything().Drop("Secret", "etcd-client").Drop("ConfigMap", "audit"),
			desired: desiredSet(true, true, "a"),
			want: want{
				objects: []string{"ConfigMap audit (spec.audit.policy.configMap)", "Secret etcd-client (spec.etcd.tlsConfig.secretRef)"},
			},
		},
		"Everything": {
			reason:  "Certificates and objects are reported together, certificates first.",
			world:   testworld.New().Certificate("certificate-root-ca", "root-ca", testworld.Cert{Ready: true, Revision: 1}),
			desired: desiredSet(true, false, ""),
			want: want{
				certificates: []string{"root-server"},
				objects: []string{
					"ConfigMap audit (spec.audit.policy.configMap)",
					"Secret etcd-client (spec.etcd.tlsConfig.secretRef)",
				},
				composed: []string{"ConfigMap root-proxy-config", "Secret root-merged-client-ca"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := inputs().Check(mounts(), tc.world.State(), tc.desired)
			if v.Open() != tc.want.open {
				t.Errorf("%s\nCheck(...).Open() = %v, want %v", tc.reason, v.Open(), tc.want.open)
			}
			if diff := cmp.Diff(tc.want.certificates, v.WaitingCertificates); diff != "" {
				t.Errorf("%s\nCheck(...).WaitingCertificates: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.objects, v.WaitingObjects); diff != "" {
				t.Errorf("%s\nCheck(...).WaitingObjects: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.composed, v.WaitingComposed); diff != "" {
				t.Errorf("%s\nCheck(...).WaitingComposed: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCheckDuplicateMounts(t *testing.T) {
	var m workload.Mounts
	m.Secret("a", "root-server", "/a")
	m.Secret("b", "root-server", "/b")
	m.Secret("c", "etcd-client", "/c")
	m.Secret("d", "etcd-client", "/d")
	v := inputs().Check(m, observed.New(nil), &desired.Set{})
	if diff := cmp.Diff([]string{"root-server"}, v.WaitingCertificates); diff != "" {
		t.Errorf("A Secret mounted twice is reported once.\nCheck(...).WaitingCertificates: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Secret etcd-client (spec.etcd.tlsConfig.secretRef)"}, v.WaitingObjects); diff != "" {
		t.Errorf("An external Secret mounted twice is reported once.\nCheck(...).WaitingObjects: -want, +got:\n%s", diff)
	}
}

func TestCheckRollout(t *testing.T) {
	annotations := func(w *testworld.World, d *desired.Set) map[string]string {
		return inputs().Check(mounts(), w.State(), d).Rollout.Annotations()
	}
	ref := annotations(everything(), desiredSet(true, true, "a"))
	if diff := cmp.Diff("root-ca=1,root-server=2", ref[names.AnnotationCertificateRevisions]); diff != "" {
		t.Errorf("An open gate records the revision of every mounted certificate.\nCheck(...).Rollout: -want, +got:\n%s", diff)
	}
	if len(ref[names.AnnotationConfigHash]) != 16 {
		t.Errorf("An open gate hashes the composed and external inputs, got %q", ref[names.AnnotationConfigHash])
	}
	if diff := cmp.Diff(ref, annotations(everything(), desiredSet(true, true, "a"))); diff != "" {
		t.Errorf("The same inputs give the same annotations.\nCheck(...).Rollout: -want, +got:\n%s", diff)
	}

	cases := map[string]struct {
		reason string
		world  *testworld.World
		set    *desired.Set
		key    string
	}{
		"Renewed": {
			reason: "A renewed certificate changes the certificate revisions annotation.",
			world:  everything().Certificate("certificate-server", "root-server", testworld.Cert{Ready: true, Revision: 3}),
			set:    desiredSet(true, true, "a"),
			key:    names.AnnotationCertificateRevisions,
		},
		"ComposedContent": {
			reason: "Changed content of a composed ConfigMap changes the config hash.",
			world:  everything(),
			set:    desiredSet(true, true, "b"),
			key:    names.AnnotationConfigHash,
		},
		"ExternalContent": {
			reason: "Changed content of an external Secret changes the config hash.",
			world: everything().
				SecretData("etcd-client", map[string]string{"tls.crt": "new"}).ResourceVersion("Secret", "etcd-client", "101"),
			set: desiredSet(true, true, "a"),
			key: names.AnnotationConfigHash,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := annotations(tc.world, tc.set)
			if got[tc.key] == ref[tc.key] {
				t.Errorf("%s\nCheck(...).Rollout.Annotations()[%q] = %q, unchanged", tc.reason, tc.key, got[tc.key])
			}
		})
	}

	// The same content under a new resourceVersion: the Secret was deleted and created again
	// (a CacheServer re-created) or only its metadata changed. Restarting kcp for it would
	// take every shard down for nothing.
	recreated := everything().
		SecretData("etcd-client", map[string]string{"tls.crt": "cert"}).ResourceVersion("Secret", "etcd-client", "900")
	if diff := cmp.Diff(ref, annotations(recreated, desiredSet(true, true, "a"))); diff != "" {
		t.Errorf("An external Secret re-created with the same data must not roll the pods.\nCheck(...).Rollout: -want, +got:\n%s", diff)
	}
}

func TestRequirements(t *testing.T) {
	var in Inputs
	in.External(KindSecret, "etcd-client", "spec.etcd.tlsConfig.secretRef")
	in.Read(KindSecret, "root-client-ca")
	in.External(KindConfigMap, "audit", "spec.audit.policy.configMap")
	in.External(KindSecret, "etcd-client", "spec.somewhere.else")
	in.Read(KindSecret, "root-client-ca")
	in.Read(KindConfigMap, "etcd-client")
	in.Certificate("root-server", "certificate-server")
	in.Composed(KindConfigMap, "root-proxy-config", "configmap-proxy-config")

	want := []result.Requirement{
		{Kind: "Secret", Name: "etcd-client"},
		{Kind: "Secret", Name: "root-client-ca"},
		{Kind: "ConfigMap", Name: "audit"},
		{Kind: "ConfigMap", Name: "etcd-client"},
	}
	if diff := cmp.Diff(want, in.Requirements()); diff != "" {
		t.Errorf("Requirements are external and read objects in registration order, each once; certificates and composed objects are not required.\nRequirements(): -want, +got:\n%s", diff)
	}
	keys := []string{}
	for _, r := range in.Requirements() {
		keys = append(keys, r.Key())
	}
	if diff := cmp.Diff([]string{"secret/etcd-client", "secret/root-client-ca", "configmap/audit", "configmap/etcd-client"}, keys); diff != "" {
		t.Errorf("A requirement's key is the lower-case kind and the name.\nRequirementKey(): -want, +got:\n%s", diff)
	}

	// The first field registered for an external object is the one reported.
	var m workload.Mounts
	m.Secret("etcd-client-cert", "etcd-client", "/etc/etcd/tls")
	v := in.Check(m, observed.New(nil), &desired.Set{})
	if diff := cmp.Diff([]string{"Secret etcd-client (spec.etcd.tlsConfig.secretRef)"}, v.WaitingObjects); diff != "" {
		t.Errorf("An external object registered twice reports the first field.\nCheck(...).WaitingObjects: -want, +got:\n%s", diff)
	}
}

func TestZeroInputs(t *testing.T) {
	var in Inputs
	if got := in.Requirements(); len(got) != 0 {
		t.Errorf("A zero Inputs requires nothing, got %v", got)
	}
	v := in.Check(mounts(), observed.New(nil), &desired.Set{})
	if !v.Open() || len(v.WaitingCertificates)+len(v.WaitingObjects)+len(v.WaitingComposed) > 0 {
		t.Errorf("With nothing registered every mount is the user's and the gate is open; got open=%v verdict=%+v", v.Open(), v)
	}
	if diff := cmp.Diff(map[string]string{}, v.Rollout.Annotations()); diff != "" {
		t.Errorf("Unregistered mounts do not roll pods.\nCheck(...).Rollout: -want, +got:\n%s", diff)
	}
}

func TestCheckSameNameDifferentKind(t *testing.T) {
	var in Inputs
	in.Certificate("root-ca", "certificate-root-ca")
	in.External(KindConfigMap, "root-ca", "spec.audit.policy.configMap")
	var m workload.Mounts
	m.ConfigMap("audit-policy", "root-ca", "/etc/kcp/audit/policy")
	st := testworld.New().Certificate("certificate-root-ca", "root-ca", testworld.Cert{Ready: true, Revision: 1}).State()
	v := in.Check(m, st, &desired.Set{})
	if diff := cmp.Diff([]string{"ConfigMap root-ca (spec.audit.policy.configMap)"}, v.WaitingObjects); diff != "" {
		t.Errorf("A missing ConfigMap is missing even when a Secret of the same name is an issued certificate.\nCheck(...).WaitingObjects: -want, +got:\n%s", diff)
	}
}
