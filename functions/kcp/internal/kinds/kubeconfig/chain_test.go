package kubeconfig

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net/url"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/frontproxy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/shard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// installationPKI is a RootShard's CA chain as cert-manager builds it: the root CA <rs>-ca
// (self-signed through the user's issuer), and the <rs>-client-ca and <rs>-server-ca
// intermediates it signs. cert-manager's CA issuer writes tls.crt = the certificate and the
// issuing CA's chain (without the self-signed root), ca.crt = the root.
type installationPKI struct {
	root, clientCA, serverCA *keyPair
}

func newInstallationPKI(t *testing.T) installationPKI {
	root := ca(t, "root-ca", nil)
	return installationPKI{root: root, clientCA: ca(t, "root-client-ca", root), serverCA: ca(t, "root-server-ca", root)}
}

// secretData is the data of the Secret cert-manager writes for kp.
func (kp *keyPair) secretData(t *testing.T) map[string]string {
	return map[string]string{"tls.crt": string(kp.chain), "tls.key": string(kp.keyPEM(t)), "ca.crt": string(kp.root)}
}

// issueFrom issues the certificate a composed cert-manager Certificate describes: subject,
// SANs and usages, signed by the CA named by its issuer.
func issueFrom(t *testing.T, c *cmv1.Certificate, issuer *keyPair) *keyPair {
	t.Helper()
	tpl := &x509.Certificate{Subject: pkix.Name{CommonName: c.Spec.CommonName}, DNSNames: c.Spec.DNSNames}
	if s := c.Spec.Subject; s != nil {
		tpl.Subject.Organization = s.Organizations
	}
	for _, u := range c.Spec.Usages {
		switch u {
		case cmv1.UsageClientAuth:
			tpl.ExtKeyUsage = append(tpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
		case cmv1.UsageServerAuth:
			tpl.ExtKeyUsage = append(tpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		case cmv1.UsageDigitalSignature:
			tpl.KeyUsage |= x509.KeyUsageDigitalSignature
		case cmv1.UsageKeyEncipherment:
			tpl.KeyUsage |= x509.KeyUsageKeyEncipherment
		default:
			t.Fatalf("usage %q not simulated", u)
		}
	}
	return issue(t, tpl, issuer)
}

// certs parses a PEM bundle.
func certs(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatalf("no certificate in %q", data)
	}
	return out
}

func pool(t *testing.T, pems ...[]byte) *x509.CertPool {
	p := x509.NewCertPool()
	for _, data := range pems {
		for _, c := range certs(t, data) {
			p.AddCert(c)
		}
	}
	return p
}

// TestCertificateChain issues every certificate the way cert-manager would and checks, with
// crypto/x509, that the kubeconfig really works against the server it names: (a) its client
// certificate chains to the client CA the server trusts, and (b) its CA data verifies the
// server certificate for the host of every server URL.
func TestCertificateChain(t *testing.T) {
	pk := newInstallationPKI(t)
	corporate := ca(t, "corporate-ca", nil)
	rootShardServer := func(t *testing.T, st *observed.State, rs *v1alpha1.RootShard, _ *v1alpha1.FrontProxy) (*cmv1.Certificate, []byte) {
		// kcp's --client-ca-file is <rs>-client-ca's tls.crt.
		return desiredCertificate(t, testworld.Flatten(must(rootshard.Compose(rs, st)).Desired, st), "certificate-server"), pk.clientCA.chain
	}
	frontProxyServer := func(t *testing.T, st *observed.State, rs *v1alpha1.RootShard, fp *v1alpha1.FrontProxy) (*cmv1.Certificate, []byte) {
		// The front-proxy trusts <fp>-merged-client-ca: <rs>-client-ca, then its bundles.
		trusted := append([]byte{}, pk.clientCA.chain...)
		if fp.Spec.ClientCABundleRef != nil {
			trusted = append(append(trusted, '\n'), corporate.chain...)
		}
		return desiredCertificate(t, must(frontproxy.Compose(fp, st)).Desired, resource.Name("certificate-"+rs.Name+"-"+fp.Name+"-server")), trusted
	}

	cases := map[string]struct {
		kc *v1alpha1.Kubeconfig
		// rs is the RootShard, rootShard() unless set.
		rs *v1alpha1.RootShard
		fp *v1alpha1.FrontProxy
		// server returns the serving certificate of the target, as the project composes it
		// (its SANs), and the client CA bundle that server trusts.
		server func(t *testing.T, st *observed.State, rs *v1alpha1.RootShard, fp *v1alpha1.FrontProxy) (*cmv1.Certificate, []byte)
	}{
		"RootShard": {
			kc:     kubeconfigXR(),
			server: rootShardServer,
		},
		"RootShardWithShardBaseURL": {
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.TargetWorkspace = "root:team" }),
			rs:     rootShard(func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.kcp.example.com:6443" }),
			server: rootShardServer,
		},
		"Shard": {
			kc: kubeconfigXR(toShard("alpha")),
			server: func(t *testing.T, st *observed.State, _ *v1alpha1.RootShard, _ *v1alpha1.FrontProxy) (*cmv1.Certificate, []byte) {
				// A shard's --client-ca-file is <rs>-client-ca's tls.crt too.
				return desiredCertificate(t, testworld.Flatten(must(shard.Compose(shardXR(), st)).Desired, st), "certificate-server"), pk.clientCA.chain
			},
		},
		"FrontProxy": {
			kc: kubeconfigXR(toFrontProxy("edge")),
			fp: frontProxy(func(fp *v1alpha1.FrontProxy) {
				fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "corporate-ca"}
				fp.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "corporate-ca"}
			}),
			server: frontProxyServer,
		},
		"FrontProxyFallsBackToRootShardHostname": {
			kc:     kubeconfigXR(toFrontProxy("edge")),
			fp:     frontProxy(func(fp *v1alpha1.FrontProxy) { fp.Spec.External = v1alpha1.ExternalConfig{} }),
			server: frontProxyServer,
		},
		"FrontProxyDeprecatedHostname": {
			kc: kubeconfigXR(toFrontProxy("edge")),
			fp: frontProxy(func(fp *v1alpha1.FrontProxy) {
				fp.Spec.External = v1alpha1.ExternalConfig{}
				fp.Spec.ExternalHostname = "old.example.com"
			}),
			server: frontProxyServer,
		},
		"FrontProxyDeprecatedHostnameWithPort": {
			kc: kubeconfigXR(toFrontProxy("edge")),
			fp: frontProxy(func(fp *v1alpha1.FrontProxy) {
				fp.Spec.External = v1alpha1.ExternalConfig{}
				fp.Spec.ExternalHostname = "old.example.com:7443"
			}),
			server: frontProxyServer,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rs := rootShard()
			if tc.rs != nil {
				rs = tc.rs
			}
			// The installation's world: the RootShard, its Shard, the FrontProxy, and every
			// CA Secret cert-manager wrote.
			w := testworld.New().Object(rs).Object(shardXR()).
				SecretData("root-ca", pk.root.secretData(t)).
				SecretData("root-client-ca", pk.clientCA.secretData(t)).
				SecretData("root-server-ca", pk.serverCA.secretData(t)).
				SecretData("corporate-ca", map[string]string{"tls.crt": string(corporate.chain)})
			if tc.fp != nil {
				w.Object(tc.fp)
			}

			// The first render composes the client Certificate; cert-manager issues it.
			r := run(t, tc.kc, w)
			o, ok := r.Desired.Get("certificate-kubeconfig-cert-admin")
			if !ok {
				t.Fatalf("no client Certificate: %v", r.Conditions)
			}
			cert := o.Resource.(*cmv1.Certificate)
			if cert.Spec.IssuerRef.Name != "root-client-ca" {
				t.Fatalf("the client certificate is issued by %s", cert.Spec.IssuerRef.Name)
			}
			client := issueFrom(t, cert, pk.clientCA)
			w.Certificate("certificate-kubeconfig-cert-admin", cert.Name, testworld.Cert{Ready: true})
			w.SecretData(cert.Spec.SecretName, client.secretData(t))

			// The second render writes the kubeconfig.
			r = run(t, tc.kc, w)
			var cfg kubeconfigfile.Config
			if err := yaml.Unmarshal([]byte(kubeconfigData(t, r)), &cfg); err != nil {
				t.Fatalf("the kubeconfig does not parse: %v", err)
			}
			if len(cfg.Users) != 1 || cfg.Users[0].Name != "alice" {
				t.Fatalf("one user named alice, got %+v", cfg.Users)
			}
			user := cfg.Users[0].User

			// The target's server certificate, issued from the SANs composed for it.
			serverCert, trustedClientCAs := tc.server(t, w.State(), rs, tc.fp)
			server := issueFrom(t, serverCert, pk.serverCA)

			// (a) The server accepts the client certificate: it chains to the client CA the
			// server trusts, for client authentication, and the key matches.
			if _, err := tls.X509KeyPair(user.ClientCertificateData, user.ClientKeyData); err != nil {
				t.Errorf("client certificate and key do not match: %v", err)
			}
			chain := certs(t, user.ClientCertificateData)
			intermediates := x509.NewCertPool()
			for _, c := range chain[1:] {
				intermediates.AddCert(c)
			}
			leaf := chain[0]
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(t, trustedClientCAs), Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("(a) the client certificate does not verify against the server's client CA: %v", err)
			}
			if leaf.Subject.CommonName != "alice" || !contains(leaf.Subject.Organization, "kubeconfig:admin") {
				t.Errorf("client identity: CN %q, O %v", leaf.Subject.CommonName, leaf.Subject.Organization)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool(t, corporate.chain), Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
				t.Errorf("the check has no teeth: the client certificate verifies against an unrelated CA")
			}

			// (b) kubectl accepts the server: for every cluster, its CA data verifies the
			// server's certificate chain for the host of its server URL.
			presented := certs(t, server.chain)
			serverIntermediates := x509.NewCertPool()
			for _, c := range presented[1:] {
				serverIntermediates.AddCert(c)
			}
			for _, cl := range cfg.Clusters {
				u, err := url.Parse(cl.Cluster.Server)
				if err != nil {
					t.Fatalf("cluster %s: bad server URL: %v", cl.Name, err)
				}
				opts := x509.VerifyOptions{DNSName: u.Hostname(), Roots: pool(t, cl.Cluster.CertificateAuthorityData), Intermediates: serverIntermediates}
				if _, err := presented[0].Verify(opts); err != nil {
					t.Errorf("(b) cluster %s (%s): the server certificate (SANs %v) does not verify: %v", cl.Name, cl.Cluster.Server, presented[0].DNSNames, err)
				}
				opts.DNSName = "unrelated.example.org"
				if _, err := presented[0].Verify(opts); err == nil {
					t.Errorf("the check has no teeth: the server certificate verifies for any host")
				}
			}
		})
	}
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// desiredCertificate returns the composed Certificate key of a desired set.
func desiredCertificate(t *testing.T, d desired.Set, key resource.Name) *cmv1.Certificate {
	t.Helper()
	o, ok := d.Get(key)
	if !ok {
		t.Fatalf("%s is not composed; desired: %v", key, d.Names())
	}
	return o.Resource.(*cmv1.Certificate)
}
