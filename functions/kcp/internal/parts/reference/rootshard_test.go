package reference

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// rootShard is a RootShard root in namespace kcp with a public address, changed by mods.
func rootShard(mods ...func(*v1alpha1.RootShard)) *v1alpha1.RootShard {
	rs := &v1alpha1.RootShard{}
	rs.SetName("root")
	rs.SetNamespace("kcp")
	rs.Spec.External = v1alpha1.ExternalConfig{Hostname: "api.example.com", Port: 6443}
	for _, m := range mods {
		m(rs)
	}
	return rs
}

func TestRootShardRoundTrip(t *testing.T) {
	pki := newTestPKI(t)
	everything := func(rs *v1alpha1.RootShard) {
		rs.Spec.ShardBaseURL = "https://root.shards.example.com:6443"
		rs.Spec.External.PrivateHostname = "root.internal"
		rs.Spec.External.PrivatePort = ptr.To[uint32](7443)
		rs.Spec.Certificates.CASecretRef = &corev1.LocalObjectReference{Name: "my-ca"}
		rs.Spec.ClusterDomain = "cluster.example"
		rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "extra-clients"}
		rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"}
		rs.Status.Image = "ghcr.io/kcp-dev/kcp:v0.30.0"
	}
	cases := map[string]struct {
		reason string
		rs     *v1alpha1.RootShard
		// want is the RootShard rebuilt from the published reference: every field a Shard
		// or FrontProxy reads, nothing else.
		want *v1alpha1.RootShard
	}{
		"Basic": {
			reason: "A RootShard reached at its Service: no shardBaseURL is rebuilt, the URL follows from name, namespace and cluster domain.",
			rs:     rootShard(),
			want:   rootShard(),
		},
		"Everything": {
			reason: "Every field a Shard or FrontProxy reads comes back as the RootShard had it.",
			rs:     rootShard(everything),
			want:   rootShard(everything),
		},
		"OnlyWhatIsRead": {
			reason: "What no Shard or FrontProxy reads (etcd, the issuer of the root CA, the proxy) is not published, so not rebuilt.",
			rs: rootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.Etcd.Endpoints = []string{"https://etcd:2379"}
				rs.Spec.Certificates.IssuerRef = &v1alpha1.ObjectReference{Name: "ca", Kind: "ClusterIssuer"}
				rs.Spec.Proxy = &v1alpha1.RootShardProxySpec{}
			}),
			want: rootShard(),
		},
		"ClusterDomain": {
			reason: "The Service URL of a RootShard with its own cluster domain is its Service's: still no shardBaseURL.",
			rs:     rootShard(func(rs *v1alpha1.RootShard) { rs.Spec.ClusterDomain = "cluster.example" }),
			want:   rootShard(func(rs *v1alpha1.RootShard) { rs.Spec.ClusterDomain = "cluster.example" }),
		},
		"PrivateHostnameOnPublicPort": {
			reason: "A private hostname without its own port is rebuilt without one: the private port defaults to the public.",
			rs:     rootShard(func(rs *v1alpha1.RootShard) { rs.Spec.External.PrivateHostname = "root.internal" }),
			want:   rootShard(func(rs *v1alpha1.RootShard) { rs.Spec.External.PrivateHostname = "root.internal" }),
		},
		"IPv6": {
			reason: "IPv6 literals are bracketed in the URLs and come back bare.",
			rs: rootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.External = v1alpha1.ExternalConfig{Hostname: "fd00::1", Port: 443, PrivateHostname: "fd00::2"}
			}),
			want: rootShard(func(rs *v1alpha1.RootShard) {
				rs.Spec.External = v1alpha1.ExternalConfig{Hostname: "fd00::1", Port: 443, PrivateHostname: "fd00::2"}
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			published := OfRootShard(tc.rs, tc.rs.GetNamespace(), tc.rs.Status.Image)
			published.CA, published.ClientCA = pki.ca, pki.otherCA
			parsed, err := Parse(published.Data())
			if err != nil {
				t.Fatalf("%s\nParse(Data()): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, parsed.RootShard()); diff != "" {
				t.Errorf("%s\nRootShard(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRootShardOfOlderReference(t *testing.T) {
	// A reference published before the RootShard's own keys existed, or copied from one.
	r := Reference{Kind: v1alpha1.KindRootShard, Name: "root", Namespace: "kcp", URL: "https://root.example.com:6443",
		ExternalURL: "https://api.example.com", Image: "ghcr.io/kcp-dev/kcp:v0.30.0"}
	want := rootShard(func(rs *v1alpha1.RootShard) {
		rs.Spec.ShardBaseURL = "https://root.example.com:6443"
		rs.Spec.External.Port = 443 // an https URL without a port
		rs.Status.Image = "ghcr.io/kcp-dev/kcp:v0.30.0"
	})
	if diff := cmp.Diff(want, r.RootShard()); diff != "" {
		t.Errorf("A reference without the RootShard's own keys rebuilds the defaults: the root CA Secret <rs>-ca, no cache server, no client CA bundle.\nRootShard(): -want, +got:\n%s", diff)
	}
}

func TestParseRootShardKeys(t *testing.T) {
	pki := newTestPKI(t)
	valid := OfRootShard(rootShard(), "kcp", "")
	valid.CA = pki.ca
	cases := map[string]struct {
		reason string
		set    map[string]string
		err    string
	}{
		"RootCASecretNotAName": {
			reason: "root-ca-secret names a Secret.",
			set:    map[string]string{"root-ca-secret": "My CA"},
			err: `key "root-ca-secret" is "My CA", not a DNS-1123 subdomain: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
				`and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		},
		"ExternalAdminURLNotHTTPS": {
			reason: "external-admin-url is held to the rule of the other URLs.",
			set:    map[string]string{"external-admin-url": "http://root.internal:6443"},
			err:    `key "external-admin-url" is "http://root.internal:6443", not an https URL with a host`,
		},
		"PortOutOfRange": {
			reason: "A port beyond 65535 reaches nothing.",
			set:    map[string]string{"external-url": "https://api.example.com:70000"},
			err:    `key "external-url" is "https://api.example.com:70000", whose port is not from 1 to 65535`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := valid.Data()
			for k, v := range tc.set {
				d[k] = []byte(v)
			}
			_, err := Parse(d)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.err, got); diff != "" {
				t.Errorf("%s\nParse(...): -want, +got error:\n%s", tc.reason, diff)
			}
		})
	}
}
