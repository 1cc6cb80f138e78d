package reference

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"maps"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// testPKI is a CA certificate, a second one and a private key, all PEM, made for the test.
type testPKI struct{ ca, otherCA, key string }

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	cert := func(cn string) (string, *ecdsa.PrivateKey) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tpl := &x509.Certificate{
			SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
		}
		der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), key
	}
	ca, key := cert("server-ca")
	other, _ := cert("client-ca")
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return testPKI{ca: ca, otherCA: other, key: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))}
}

func TestData(t *testing.T) {
	cases := map[string]struct {
		reason string
		r      Reference
		want   map[string][]byte
	}{
		"Everything": {
			reason: "Every field is published under its key.",
			r: Reference{Kind: v1alpha1.KindRootShard, Name: "root", Namespace: "kcp", URL: "https://root-kcp.kcp.svc.cluster.local:6443",
				CA: "CA", ClientCA: "CLIENT", ExternalURL: "https://api.example.com:6443", Image: "ghcr.io/kcp-dev/kcp:v0.30.0"},
			want: map[string][]byte{
				"kind": []byte("RootShard"), "name": []byte("root"), "namespace": []byte("kcp"),
				"url": []byte("https://root-kcp.kcp.svc.cluster.local:6443"), "ca.crt": []byte("CA"),
				"client-ca.crt": []byte("CLIENT"), "external-url": []byte("https://api.example.com:6443"),
				"image": []byte("ghcr.io/kcp-dev/kcp:v0.30.0"),
			},
		},
		"OptionalEmptyOmitted": {
			reason: "An empty client-ca.crt, external-url or image is left out, so a reader tells none from empty.",
			r:      Reference{Kind: v1alpha1.KindCacheServer, Name: "cache", Namespace: "kcp", URL: "https://cache-cache-server.kcp.svc.cluster.local:6443", CA: "CA"},
			want: map[string][]byte{
				"kind": []byte("CacheServer"), "name": []byte("cache"), "namespace": []byte("kcp"),
				"url": []byte("https://cache-cache-server.kcp.svc.cluster.local:6443"), "ca.crt": []byte("CA"),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.r.Data()); diff != "" {
				t.Errorf("%s\nData(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParse(t *testing.T) {
	pki := newTestPKI(t)
	valid := Reference{Kind: v1alpha1.KindFrontProxy, Name: "edge", Namespace: "kcp", URL: "https://api.example.com:6443",
		CA: pki.ca, ClientCA: pki.otherCA}
	// with is valid's data changed by set: a key set to nil is removed.
	with := func(set map[string]string) map[string][]byte {
		d := valid.Data()
		for k, v := range set {
			d[k] = []byte(v)
		}
		maps.DeleteFunc(d, func(_ string, v []byte) bool { return v == nil })
		return d
	}
	del := func(keys ...string) map[string][]byte {
		d := valid.Data()
		for _, k := range keys {
			delete(d, k)
		}
		return d
	}

	type want struct {
		r   Reference
		err string
	}
	cases := map[string]struct {
		reason string
		data   map[string][]byte
		want   want
	}{
		"Valid": {
			reason: "A reference as a FrontProxy publishes it is read back whole.",
			data:   valid.Data(),
			want:   want{r: valid},
		},
		"ValidEverything": {
			reason: "A RootShard's reference, with a CA bundle of two certificates, an external URL and an image.",
			data: Reference{Kind: v1alpha1.KindRootShard, Name: "root", Namespace: "kcp", URL: "https://root-kcp.kcp.svc.cluster.local:6443",
				CA: pki.ca + pki.otherCA, ClientCA: pki.otherCA, ExternalURL: "https://api.example.com:6443", Image: "ghcr.io/kcp-dev/kcp:v0.30.0"}.Data(),
			want: want{r: Reference{Kind: v1alpha1.KindRootShard, Name: "root", Namespace: "kcp", URL: "https://root-kcp.kcp.svc.cluster.local:6443",
				CA: pki.ca + pki.otherCA, ClientCA: pki.otherCA, ExternalURL: "https://api.example.com:6443", Image: "ghcr.io/kcp-dev/kcp:v0.30.0"}},
		},
		"UnknownKeysIgnored": {
			reason: "A key this version does not know is ignored, so a later one may add keys.",
			data:   with(map[string]string{"region": "eu"}),
			want:   want{r: valid},
		},
		"Empty": {
			reason: "A Secret that is no reference at all names every key it lacks.",
			data:   map[string][]byte{},
			want: want{err: `key "ca.crt" is missing or empty; key "kind" is missing or empty; key "name" is missing or empty; ` +
				`key "namespace" is missing or empty; key "url" is missing or empty`},
		},
		"MissingCA": {
			reason: "ca.crt is required: without it nobody can trust the server.",
			data:   del("ca.crt"),
			want:   want{err: `key "ca.crt" is missing or empty`},
		},
		"EmptyURL": {
			reason: "A required key that is empty is as good as missing.",
			data:   with(map[string]string{"url": ""}),
			want:   want{err: `key "url" is missing or empty`},
		},
		"WrongKind": {
			reason: "A Shard publishes no reference.",
			data:   with(map[string]string{"kind": "Shard"}),
			want:   want{err: `key "kind" is "Shard"; want one of RootShard, FrontProxy, CacheServer, the kinds that publish a reference`},
		},
		"NameNotSubdomain": {
			reason: "An XR's name is a DNS-1123 subdomain.",
			data:   with(map[string]string{"name": "Edge_1"}),
			want: want{err: `key "name" is "Edge_1", not a DNS-1123 subdomain: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
				`and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
		"NamespaceNotLabel": {
			reason: "A namespace is a DNS-1123 label: no dots.",
			data:   with(map[string]string{"namespace": "kcp.platform"}),
			want:   want{err: `key "namespace" is "kcp.platform", not a DNS-1123 label: must not contain dots`},
		},
		"URLNotHTTPS": {
			reason: "kcp is served over TLS only.",
			data:   with(map[string]string{"url": "http://api.example.com:6443"}),
			want:   want{err: `key "url" is "http://api.example.com:6443", not an https URL with a host`},
		},
		"URLWithoutHost": {
			reason: "A URL without a host reaches nothing.",
			data:   with(map[string]string{"url": "https:///clusters/root"}),
			want:   want{err: `key "url" is "https:///clusters/root", not an https URL with a host`},
		},
		"ExternalURLNotHTTPS": {
			reason: "The external URL, when given, is held to the same rule.",
			data:   with(map[string]string{"external-url": "api.example.com"}),
			want:   want{err: `key "external-url" is "api.example.com", not an https URL with a host`},
		},
		"CANotPEM": {
			reason: "ca.crt must be PEM.",
			data:   with(map[string]string{"ca.crt": "not a certificate"}),
			want:   want{err: `key "ca.crt" holds no PEM certificate`},
		},
		"CANotCertificateBlock": {
			reason: "ca.crt holds CERTIFICATE blocks only.",
			data:   with(map[string]string{"ca.crt": pki.ca + string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte("x")}))}),
			want:   want{err: `key "ca.crt" holds a PEM block of type "CERTIFICATE REQUEST" (block 2); only CERTIFICATE blocks are allowed`},
		},
		"CANotX509": {
			reason: "A CERTIFICATE block must parse as x509.",
			data:   with(map[string]string{"ca.crt": string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("garbage")}))}),
			want:   want{err: `key "ca.crt" holds a certificate that does not parse (block 1): x509: malformed certificate`},
		},
		"CATrailingData": {
			reason: "Nothing but certificates.",
			data:   with(map[string]string{"ca.crt": pki.ca + "trailing"}),
			want:   want{err: `key "ca.crt" holds data that is not PEM after its certificates`},
		},
		"ClientCANotPEM": {
			reason: "client-ca.crt, when given, is held to the same rule as ca.crt.",
			data:   with(map[string]string{"client-ca.crt": "nope"}),
			want:   want{err: `key "client-ca.crt" holds no PEM certificate`},
		},
		"SeveralProblems": {
			reason: "Every problem is named at once, in the same order on every call.",
			data:   with(map[string]string{"url": "http://x", "kind": "Shard", "ca.crt": "nope"}),
			want: want{err: `key "ca.crt" holds no PEM certificate; key "kind" is "Shard"; want one of RootShard, FrontProxy, CacheServer, the kinds that publish a reference; ` +
				`key "url" is "http://x", not an https URL with a host`},
		},
		"PrivateKeyInCA": {
			reason: "A key appended to a CA bundle is refused for what it is: a reference never carries a key.",
			data:   with(map[string]string{"ca.crt": pki.ca + pki.key}),
			want:   want{err: `key "ca.crt" holds a private key; a reference never carries a key`},
		},
		"PrivateKeyUnderUnknownKey": {
			reason: "A key is refused under any key, even one Parse otherwise ignores.",
			data:   with(map[string]string{"notes": "see below\n" + pki.key}),
			want:   want{err: `key "notes" holds a private key; a reference never carries a key`},
		},
		"RSAPrivateKey": {
			reason: "Every PEM private key type counts, not only PKCS #8.",
			data:   with(map[string]string{"client-ca.crt": string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("x")}))}),
			want:   want{err: `key "client-ca.crt" holds a private key; a reference never carries a key`},
		},
		"MalformedPrivateKey": {
			reason: "A private key whose PEM block does not decode is still a private key.",
			data:   with(map[string]string{"image": "-----BEGIN EC PRIVATE KEY-----\nnot base64!\n"}),
			want:   want{err: `key "image" holds a private key; a reference never carries a key`},
		},
		"TLSKey": {
			reason: "A Secret with tls.key is a certificate's Secret, not a reference, whatever tls.key holds.",
			data:   with(map[string]string{"tls.key": "x"}),
			want:   want{err: `key "tls.key" is named as a private key is; a reference never carries a key`},
		},
		"CAKeyAndOtherProblems": {
			reason: "A key is refused before anything else is read: only the keys are named.",
			data:   with(map[string]string{"ca.key": pki.key, "tls.key": pki.key, "url": "http://x"}),
			want: want{err: `key "ca.key" is named as a private key is; a reference never carries a key; ` +
				`key "tls.key" is named as a private key is; a reference never carries a key`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.data)
			if diff := cmp.Diff(tc.want.r, got); diff != "" {
				t.Errorf("%s\nParse(...): -want, +got reference:\n%s", tc.reason, diff)
			}
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.want.err, gotErr); diff != "" {
				t.Errorf("%s\nParse(...): -want, +got error:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDataParses(t *testing.T) {
	// What a kind publishes is what a consumer accepts.
	pki := newTestPKI(t)
	for _, kind := range Kinds {
		r := Reference{Kind: kind, Name: "x", Namespace: "kcp", URL: "https://x.kcp.svc.cluster.local:6443", CA: pki.ca}
		got, err := Parse(r.Data())
		if err != nil {
			t.Errorf("Parse(%s reference): %v", kind, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("Parse(Data()) of a %s reference: -want, +got:\n%s", kind, diff)
		}
	}
}
