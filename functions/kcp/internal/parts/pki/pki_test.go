package pki

import (
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

var typeMeta = metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"}

func rsa4096() *cmv1.CertificatePrivateKey {
	return &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096}
}

// caKey is a CA's private key: kept when the CA renews, so what it signed stays valid.
func caKey() *cmv1.CertificatePrivateKey {
	k := rsa4096()
	k.RotationPolicy = cmv1.RotationPolicyNever
	return k
}

func hours(h int) *metav1.Duration { return &metav1.Duration{Duration: time.Duration(h) * time.Hour} }

func TestLifetimes(t *testing.T) {
	// kcp-operator's DefaultCertificateDuration/Renewal and DefaultCADuration/Renewal, as
	// they appear in the Certificate spec.
	cases := map[string]struct {
		reason string
		got    time.Duration
		want   string
	}{
		"LeafDuration":    {reason: "Leaves live one year (8760h).", got: LeafDuration, want: "8760h0m0s"},
		"LeafRenewBefore": {reason: "Leaves renew a week (168h) early.", got: LeafRenewBefore, want: "168h0m0s"},
		"CADuration":      {reason: "CAs live ten years (87600h).", got: CADuration, want: "87600h0m0s"},
		"CARenewBefore":   {reason: "CAs renew 30 days (720h) early.", got: CARenewBefore, want: "720h0m0s"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got.String()); diff != "" {
				t.Errorf("%s\n%s.String(): -want, +got:\n%s", tc.reason, name, diff)
			}
		})
	}
}

func TestIssuerRef(t *testing.T) {
	want := cmmeta.IssuerReference{Name: "root-server-ca", Kind: "Issuer", Group: "cert-manager.io"}
	if diff := cmp.Diff(want, IssuerRef("root-server-ca")); diff != "" {
		t.Errorf("A namespaced cert-manager Issuer is referenced with kind Issuer and group cert-manager.io.\nIssuerRef(...): -want, +got:\n%s", diff)
	}
}

func TestLeafCertificate(t *testing.T) {
	cases := map[string]struct {
		reason string
		leaf   Leaf
		want   *cmv1.Certificate
	}{
		"Server": {
			reason: "A serving certificate has no subject, its DNS names and usages as given, a Secret named like itself and kcp-operator's leaf defaults.",
			leaf: Leaf{
				Name:         "root-server",
				Namespace:    "kcp",
				DNSNames:     []string{"api.example.com", "root-kcp.kcp.svc.cluster.local"},
				Usages:       UsagesServing,
				Issuer:       "root-server-ca",
				Labels:       map[string]string{"app.kubernetes.io/component": "rootshard"},
				SecretLabels: map[string]string{"operator.kcp.io/rootshard": "root"},
			},
			want: &cmv1.Certificate{
				TypeMeta: typeMeta,
				ObjectMeta: metav1.ObjectMeta{
					Name: "root-server", Namespace: "kcp",
					Labels: map[string]string{"app.kubernetes.io/component": "rootshard"},
				},
				Spec: cmv1.CertificateSpec{
					SecretName:     "root-server",
					SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/rootshard": "root"}},
					PrivateKey:     rsa4096(),
					DNSNames:       []string{"api.example.com", "root-kcp.kcp.svc.cluster.local"},
					Usages:         []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
					IssuerRef:      cmmeta.IssuerReference{Name: "root-server-ca", Kind: "Issuer", Group: "cert-manager.io"},
					Duration:       hours(8760),
					RenewBefore:    hours(168),
				},
			},
		},
		"Client": {
			reason: "A client certificate carries its common name and organizations as the subject.",
			leaf: Leaf{
				Name:          "root-kcp-operator",
				Namespace:     "kcp",
				CommonName:    "system:kcp-operator",
				Organizations: []string{"system:kcp:admin"},
				Usages:        UsagesClient,
				Issuer:        "root-client-ca",
			},
			want: &cmv1.Certificate{
				TypeMeta:   typeMeta,
				ObjectMeta: metav1.ObjectMeta{Name: "root-kcp-operator", Namespace: "kcp"},
				Spec: cmv1.CertificateSpec{
					SecretName:  "root-kcp-operator",
					PrivateKey:  rsa4096(),
					CommonName:  "system:kcp-operator",
					Subject:     &cmv1.X509Subject{Organizations: []string{"system:kcp:admin"}},
					Usages:      []cmv1.KeyUsage{cmv1.UsageClientAuth},
					IssuerRef:   cmmeta.IssuerReference{Name: "root-client-ca", Kind: "Issuer", Group: "cert-manager.io"},
					Duration:    hours(8760),
					RenewBefore: hours(168),
				},
			},
		},
		"SigningKey": {
			reason: "A service-account signing key pair uses digital signature and key encipherment.",
			leaf: Leaf{
				Name:       "root-service-account",
				Namespace:  "kcp",
				CommonName: "root-service-account",
				Usages:     UsagesSigningKey,
				Issuer:     "root-service-account-ca",
			},
			want: &cmv1.Certificate{
				TypeMeta:   typeMeta,
				ObjectMeta: metav1.ObjectMeta{Name: "root-service-account", Namespace: "kcp"},
				Spec: cmv1.CertificateSpec{
					SecretName:  "root-service-account",
					PrivateKey:  rsa4096(),
					CommonName:  "root-service-account",
					Usages:      []cmv1.KeyUsage{cmv1.UsageDigitalSignature, cmv1.UsageKeyEncipherment},
					IssuerRef:   cmmeta.IssuerReference{Name: "root-service-account-ca", Kind: "Issuer", Group: "cert-manager.io"},
					Duration:    hours(8760),
					RenewBefore: hours(168),
				},
			},
		},
		"CacheClient": {
			reason: "The cache server's client certificate has client auth, key encipherment and digital signature.",
			leaf: Leaf{
				Name: "cache-client-certificate", Namespace: "kcp", CommonName: "cache-client",
				Organizations: []string{"system:masters"}, Usages: UsagesCacheClient, Issuer: "cache-ca",
			},
			want: &cmv1.Certificate{
				TypeMeta:   typeMeta,
				ObjectMeta: metav1.ObjectMeta{Name: "cache-client-certificate", Namespace: "kcp"},
				Spec: cmv1.CertificateSpec{
					SecretName:  "cache-client-certificate",
					PrivateKey:  rsa4096(),
					CommonName:  "cache-client",
					Subject:     &cmv1.X509Subject{Organizations: []string{"system:masters"}},
					Usages:      []cmv1.KeyUsage{cmv1.UsageClientAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
					IssuerRef:   cmmeta.IssuerReference{Name: "cache-ca", Kind: "Issuer", Group: "cert-manager.io"},
					Duration:    hours(8760),
					RenewBefore: hours(168),
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.leaf.Certificate()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nLeaf.Certificate(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestLeafCertificateDoesNotAlias(t *testing.T) {
	l := Leaf{
		Name: "x", Organizations: []string{"o"}, DNSNames: []string{"d"}, Usages: []cmv1.KeyUsage{cmv1.UsageClientAuth},
		Labels: map[string]string{"l": "v"}, SecretLabels: map[string]string{"s": "v"},
	}
	c := l.Certificate()
	c.Spec.Subject.Organizations[0] = "changed"
	c.Spec.DNSNames[0] = "changed"
	c.Spec.Usages[0] = cmv1.UsageServerAuth
	c.Labels["l"] = "changed"
	c.Spec.SecretTemplate.Labels["s"] = "changed"
	want := Leaf{
		Name: "x", Organizations: []string{"o"}, DNSNames: []string{"d"}, Usages: []cmv1.KeyUsage{cmv1.UsageClientAuth},
		Labels: map[string]string{"l": "v"}, SecretLabels: map[string]string{"s": "v"},
	}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("Changing a generated Certificate must not change the Leaf it came from (or other Certificates sharing its inputs).\nLeaf.Certificate(): -want, +got:\n%s", diff)
	}
	if UsagesClient[0] != cmv1.UsageClientAuth {
		t.Errorf("Changing a generated Certificate's usages must not change the shared UsagesClient variable.")
	}
}

func TestCA(t *testing.T) {
	type args struct {
		name, namespace      string
		issuer               cmmeta.IssuerReference
		labels, secretLabels map[string]string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   *cmv1.Certificate
	}{
		"RootCA": {
			reason: "The root CA is issued by the user's issuer, copied verbatim, and named, common-named and stored under its own name, with kcp-operator's CA defaults and its key kept on renewal.",
			args: args{
				name: "root-ca", namespace: "kcp",
				issuer:       cmmeta.IssuerReference{Name: "selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"},
				labels:       map[string]string{"app.kubernetes.io/instance": "root"},
				secretLabels: map[string]string{"operator.kcp.io/rootshard": "root"},
			},
			want: &cmv1.Certificate{
				TypeMeta: typeMeta,
				ObjectMeta: metav1.ObjectMeta{
					Name: "root-ca", Namespace: "kcp",
					Labels: map[string]string{"app.kubernetes.io/instance": "root"},
				},
				Spec: cmv1.CertificateSpec{
					IsCA:           true,
					CommonName:     "root-ca",
					SecretName:     "root-ca",
					SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/rootshard": "root"}},
					PrivateKey:     caKey(),
					IssuerRef:      cmmeta.IssuerReference{Name: "selfsigned", Kind: "ClusterIssuer", Group: "cert-manager.io"},
					Duration:       hours(87600),
					RenewBefore:    hours(720),
				},
			},
		},
		"IntermediateCA": {
			reason: "An intermediate CA is issued by the root CA Issuer and has no usages.",
			args: args{
				name: "root-server-ca", namespace: "kcp",
				issuer: IssuerRef("root-ca"),
			},
			want: &cmv1.Certificate{
				TypeMeta:   typeMeta,
				ObjectMeta: metav1.ObjectMeta{Name: "root-server-ca", Namespace: "kcp"},
				Spec: cmv1.CertificateSpec{
					IsCA:        true,
					CommonName:  "root-server-ca",
					SecretName:  "root-server-ca",
					PrivateKey:  caKey(),
					IssuerRef:   cmmeta.IssuerReference{Name: "root-ca", Kind: "Issuer", Group: "cert-manager.io"},
					Duration:    hours(87600),
					RenewBefore: hours(720),
				},
			},
		},
		"EmptyKindAndGroup": {
			reason: "kcp-operator passes an issuerRef with empty kind and group through as empty.",
			args: args{
				name: "root-ca", namespace: "kcp",
				issuer: cmmeta.IssuerReference{Name: "my-issuer"},
			},
			want: &cmv1.Certificate{
				TypeMeta:   typeMeta,
				ObjectMeta: metav1.ObjectMeta{Name: "root-ca", Namespace: "kcp"},
				Spec: cmv1.CertificateSpec{
					IsCA:        true,
					CommonName:  "root-ca",
					SecretName:  "root-ca",
					PrivateKey:  caKey(),
					IssuerRef:   cmmeta.IssuerReference{Name: "my-issuer"},
					Duration:    hours(87600),
					RenewBefore: hours(720),
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := CA(tc.args.name, tc.args.namespace, tc.args.issuer, tc.args.labels, tc.args.secretLabels)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nCA(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCAIssuer(t *testing.T) {
	cases := map[string]struct {
		reason     string
		name       string
		secretName string
		labels     map[string]string
		want       *cmv1.Issuer
	}{
		"OwnSecret": {
			reason:     "A CA Issuer signs with the key pair of the CA Certificate of the same name.",
			name:       "root-server-ca",
			secretName: "root-server-ca",
			labels:     map[string]string{"app.kubernetes.io/component": "rootshard"},
			want: &cmv1.Issuer{
				TypeMeta: metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Issuer"},
				ObjectMeta: metav1.ObjectMeta{
					Name: "root-server-ca", Namespace: "kcp",
					Labels: map[string]string{"app.kubernetes.io/component": "rootshard"},
				},
				Spec: cmv1.IssuerSpec{IssuerConfig: cmv1.IssuerConfig{CA: &cmv1.CAIssuer{SecretName: "root-server-ca"}}},
			},
		},
		"CASecretRef": {
			reason:     "With caSecretRef the root Issuer signs with the user's Secret.",
			name:       "root-ca",
			secretName: "my-ca",
			want: &cmv1.Issuer{
				TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Issuer"},
				ObjectMeta: metav1.ObjectMeta{Name: "root-ca", Namespace: "kcp"},
				Spec:       cmv1.IssuerSpec{IssuerConfig: cmv1.IssuerConfig{CA: &cmv1.CAIssuer{SecretName: "my-ca"}}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := CAIssuer(tc.name, "kcp", tc.secretName, tc.labels)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nCAIssuer(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// generated is a Certificate as the composer builds it, before templates apply.
func generated() *cmv1.Certificate {
	return Leaf{
		Name:          "root-client",
		Namespace:     "kcp",
		CommonName:    "root",
		Organizations: []string{"system:masters"},
		DNSNames:      []string{"root-kcp.kcp.svc.cluster.local", "api.example.com"},
		Usages:        UsagesClient,
		Issuer:        "root-client-ca",
		Labels:        map[string]string{"app.kubernetes.io/instance": "root", "app.kubernetes.io/component": "rootshard"},
		SecretLabels:  map[string]string{"operator.kcp.io/rootshard": "root"},
	}.Certificate()
}

func TestApplyTemplate(t *testing.T) {
	cases := map[string]struct {
		reason string
		tpl    *v1alpha1.CertificateTemplate
		want   func(c *cmv1.Certificate)
	}{
		"Nil": {
			reason: "A nil template changes nothing.",
			tpl:    nil,
			want:   func(*cmv1.Certificate) {},
		},
		"Empty": {
			reason: "An empty template changes nothing.",
			tpl:    &v1alpha1.CertificateTemplate{},
			want:   func(*cmv1.Certificate) {},
		},
		"EmptySpec": {
			reason: "A template with an empty spec changes nothing (no sorting, no new fields).",
			tpl:    &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{}},
			want:   func(*cmv1.Certificate) {},
		},
		"Metadata": {
			reason: "Template labels and annotations are added; generated label keys win on conflict.",
			tpl: &v1alpha1.CertificateTemplate{Metadata: &v1alpha1.CertificateMetadataTemplate{
				Labels:      map[string]string{"team": "platform", "app.kubernetes.io/instance": "hijack"},
				Annotations: map[string]string{"note": "hello"},
			}},
			want: func(c *cmv1.Certificate) {
				c.Labels = map[string]string{"app.kubernetes.io/instance": "root", "app.kubernetes.io/component": "rootshard", "team": "platform"}
				c.Annotations = map[string]string{"note": "hello"}
			},
		},
		"Subject": {
			reason: "Every subject list is the sorted set union with the generated values; serialNumber replaces.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{
				Organizations:       []string{"zeta", "acme", "system:masters"},
				Countries:           []string{"DE", "CH", "DE"},
				OrganizationalUnits: []string{"ou2", "ou1"},
				Localities:          []string{"Berlin"},
				Provinces:           []string{"BE"},
				StreetAddresses:     []string{"Main St 1"},
				PostalCodes:         []string{"10115", "10001"},
				SerialNumber:        "42",
			}}},
			want: func(c *cmv1.Certificate) {
				c.Spec.Subject = &cmv1.X509Subject{
					Organizations:       []string{"acme", "system:masters", "zeta"},
					Countries:           []string{"CH", "DE"},
					OrganizationalUnits: []string{"ou1", "ou2"},
					Localities:          []string{"Berlin"},
					Provinces:           []string{"BE"},
					StreetAddresses:     []string{"Main St 1"},
					PostalCodes:         []string{"10001", "10115"},
					SerialNumber:        "42",
				}
			},
		},
		"SubjectEmptySerial": {
			reason: "An empty serialNumber keeps the generated subject as it is.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Subject: &v1alpha1.X509Subject{
				Countries: []string{"DE"},
			}}},
			want: func(c *cmv1.Certificate) {
				c.Spec.Subject = &cmv1.X509Subject{Organizations: []string{"system:masters"}, Countries: []string{"DE"}}
			},
		},
		"DNSNamesUnion": {
			reason: "Without an issuerRef, template DNS names are a sorted set union with the generated ones.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				DNSNames: []string{"kcp.example.org", "api.example.com"},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.DNSNames = []string{"api.example.com", "kcp.example.org", "root-kcp.kcp.svc.cluster.local"}
			},
		},
		"IssuerRefAndDNSNames": {
			reason: "With an issuerRef, the issuer is replaced and the template's DNS names replace the generated ones.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				IssuerRef: &v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"},
				DNSNames:  []string{"kcp.example.org"},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.IssuerRef = cmmeta.IssuerReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"}
				c.Spec.DNSNames = []string{"kcp.example.org"}
			},
		},
		"IssuerRefOnly": {
			reason: "An issuerRef without DNS names replaces the issuer and keeps the generated DNS names.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				IssuerRef: &v1alpha1.ObjectReference{Name: "vault"},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.IssuerRef = cmmeta.IssuerReference{Name: "vault"}
			},
		},
		"IPAddresses": {
			reason: "IP addresses are a sorted set union.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				IPAddresses: []string{"10.0.0.2", "10.0.0.1", "10.0.0.2"},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.IPAddresses = []string{"10.0.0.1", "10.0.0.2"}
			},
		},
		"SecretTemplate": {
			reason: "Secret template labels and annotations merge; generated keys win.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				SecretTemplate: &v1alpha1.CertificateSecretTemplate{
					Labels:      map[string]string{"operator.kcp.io/rootshard": "other", "backup": "true"},
					Annotations: map[string]string{"reflector": "yes"},
				},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.SecretTemplate = &cmv1.CertificateSecretTemplate{
					Labels:      map[string]string{"operator.kcp.io/rootshard": "root", "backup": "true"},
					Annotations: map[string]string{"reflector": "yes"},
				}
			},
		},
		"Lifetimes": {
			reason: "duration and renewBefore replace the defaults.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				Duration:    hours(48),
				RenewBefore: hours(12),
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.Duration = hours(48)
				c.Spec.RenewBefore = hours(12)
			},
		},
		"ShortDurationOnly": {
			reason: "A duration no longer than the default renewBefore (a week for a leaf) would be refused by cert-manager with kcp-operator's defaults: it renews at a third of its lifetime instead.",
			tpl:    &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Duration: hours(72)}},
			want: func(c *cmv1.Certificate) {
				c.Spec.Duration = hours(72)
				c.Spec.RenewBefore = hours(24)
			},
		},
		"LongDurationOnly": {
			reason: "A duration longer than the default renewBefore keeps it, as kcp-operator does.",
			tpl:    &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Duration: hours(720)}},
			want: func(c *cmv1.Certificate) {
				c.Spec.Duration = hours(720)
			},
		},
		"PrivateKeyAll": {
			reason: "Every set private key field replaces the generated one.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				PrivateKey: &v1alpha1.CertificatePrivateKeyTemplate{RotationPolicy: "Always", Encoding: "PKCS8", Algorithm: "ECDSA", Size: 384},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.PrivateKey = &cmv1.CertificatePrivateKey{
					RotationPolicy: cmv1.RotationPolicyAlways, Encoding: cmv1.PKCS8, Algorithm: cmv1.ECDSAKeyAlgorithm, Size: 384,
				}
			},
		},
		"PrivateKeyPartial": {
			reason: "Unset private key fields keep RSA 4096.",
			tpl: &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
				PrivateKey: &v1alpha1.CertificatePrivateKeyTemplate{RotationPolicy: "Never"},
			}},
			want: func(c *cmv1.Certificate) {
				c.Spec.PrivateKey = &cmv1.CertificatePrivateKey{RotationPolicy: cmv1.RotationPolicyNever, Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := generated()
			tc.want(want)
			got := generated()
			ApplyTemplate(got, tc.tpl)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nApplyTemplate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestApplyTemplateOnCertificateWithoutSubjectOrSecretTemplate(t *testing.T) {
	got := Leaf{Name: "root-server", Namespace: "kcp", Issuer: "root-server-ca"}.Certificate()
	ApplyTemplate(got, &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
		Subject:        &v1alpha1.X509Subject{Organizations: []string{"acme"}},
		SecretTemplate: &v1alpha1.CertificateSecretTemplate{Labels: map[string]string{"backup": "true"}},
	}})
	want := Leaf{Name: "root-server", Namespace: "kcp", Issuer: "root-server-ca"}.Certificate()
	want.Spec.Subject = &cmv1.X509Subject{Organizations: []string{"acme"}}
	want.Spec.SecretTemplate = &cmv1.CertificateSecretTemplate{Labels: map[string]string{"backup": "true"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("A template subject and secret template are created when the generated Certificate has none.\nApplyTemplate(...): -want, +got:\n%s", diff)
	}
}

func TestApplyTemplateDoesNotAliasTemplate(t *testing.T) {
	tpl := &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
		IssuerRef: &v1alpha1.ObjectReference{Name: "acme"},
		DNSNames:  []string{"kcp.example.org"},
		Duration:  hours(1),
	}}
	a := generated()
	ApplyTemplate(a, tpl)
	a.Spec.DNSNames[0] = "changed"
	a.Spec.Duration.Duration = 0
	want := &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{
		IssuerRef: &v1alpha1.ObjectReference{Name: "acme"},
		DNSNames:  []string{"kcp.example.org"},
		Duration:  hours(1),
	}}
	if diff := cmp.Diff(want, tpl); diff != "" {
		t.Errorf("A template applied to several Certificates must not be changed through one of them.\nApplyTemplate(...): -want, +got:\n%s", diff)
	}
}
