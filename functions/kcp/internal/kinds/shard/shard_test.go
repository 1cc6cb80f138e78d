package shard

import (
	"slices"
	"strings"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func shard(mods ...func(*v1alpha1.Shard)) *v1alpha1.Shard {
	sh := &v1alpha1.Shard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Shard"},
		ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: "kcp"},
		Spec: v1alpha1.ShardSpec{
			CommonShardSpec: v1alpha1.CommonShardSpec{Etcd: v1alpha1.EtcdConfig{Endpoints: []string{"http://etcd-alpha:2379"}}},
			RootShard:       v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}},
		},
	}
	for _, m := range mods {
		m(sh)
	}
	return sh
}

// converge composes until the desired set settles, with the RootShard and its CAs present.
func converge(sh *v1alpha1.Shard, rs *v1alpha1.RootShard, extra func(*testworld.World)) Result {
	base := func() *testworld.World {
		w := testworld.New().Object(rs).RootCAs()
		if extra != nil {
			extra(w)
		}
		return w
	}
	r := composeOK(sh, base().State())
	for range 4 {
		r = composeOK(sh, base().Settle(r.Desired).State())
	}
	return r
}

func deployment(t *testing.T, r Result) *appsv1.Deployment {
	t.Helper()
	o, ok := r.Desired.Get("deployment-shard-kcp")
	if !ok {
		t.Fatalf("deployment-shard-kcp is not desired; desired: %v", r.Desired.Names())
	}
	d, ok := o.Resource.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("deployment-shard-kcp is kept, not built")
	}
	return d
}

func TestComposeConverged(t *testing.T) {
	r := converge(shard(), testworld.RootShard(), nil)

	wantKeys := []resource.Name{
		"certificate-client", "certificate-external-logical-cluster-admin", "certificate-logical-cluster-admin",
		"certificate-mounts-proxy", "certificate-server", "certificate-service-account", "certificate-virtual-workspaces",
		"deployment-shard-kcp",
		"poddisruptionbudget-shard-kcp",
		"secret-client-kubeconfig", "secret-external-logical-cluster-admin-kubeconfig", "secret-logical-cluster-admin-kubeconfig",
		"service-shard-kcp",
	}
	if diff := cmp.Diff(wantKeys, r.Desired.Names()); diff != "" {
		t.Errorf("A Shard composes kcp-operator's 7 certificates, 3 kubeconfigs, Deployment and Service, and a PodDisruptionBudget for its 2 replicas.\n-want, +got:\n%s", diff)
	}
	for _, c := range r.Conditions {
		// Whether kcp registered the shard, and schedules onto it, is kcp's to say, through
		// the RootShard's Object (TestRegistered, TestSchedulable); everything else is settled.
		if !c.Status && c.Type != TypeRegistered && c.Type != TypeSchedulable {
			t.Errorf("converged: condition %s is False: %s", c.Type, c.Message)
		}
	}
	if r.Status.Phase != v1alpha1.PhaseRunning || r.Status.BaseURL != "https://alpha-shard-kcp.kcp.svc.cluster.local:6443" {
		t.Errorf("status = %+v", r.Status)
	}

	wantArgs := []string{
		"--root-ca-file=/etc/kcp/tls/ca/root/tls.crt",
		"--client-ca-file=/etc/kcp/tls/ca/client/tls.crt",
		"--requestheader-client-ca-file=/etc/kcp/tls/ca/requestheader-client/tls.crt",
		"--requestheader-allowed-names=kcp-front-proxy,kcp-root-shard-proxy",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--tls-private-key-file=/etc/kcp/tls/server/tls.key",
		"--tls-cert-file=/etc/kcp/tls/server/tls.crt",
		"--service-account-key-file=/etc/kcp/tls/service-account/tls.crt",
		"--service-account-private-key-file=/etc/kcp/tls/service-account/tls.key",
		"--service-account-lookup=false",
		"--shard-client-key-file=/etc/kcp/tls/client/tls.key",
		"--shard-client-cert-file=/etc/kcp/tls/client/tls.crt",
		"--shard-name=alpha",
		"--shard-base-url=https://alpha-shard-kcp.kcp.svc.cluster.local:6443",
		"--shard-external-url=https://api.example.com:6443",
		// kcp-operator's --external-hostname=api.example.com is left out: kcp ignores it from 0.31.
		"--cache-kubeconfig=/etc/kcp/client-kubeconfig/kubeconfig",
		"--root-shard-kubeconfig-file=/etc/kcp/client-kubeconfig/kubeconfig",
		"--logical-cluster-admin-kubeconfig=/etc/kcp/logical-cluster-admin-kubeconfig/kubeconfig",
		"--external-logical-cluster-admin-kubeconfig=/etc/kcp/external-logical-cluster-admin-kubeconfig/kubeconfig",
		"--batteries-included=workspace-types",
		"--root-directory=",
		"--enable-leader-election=true",
		"--logging-format=json",
		"--mount-proxy-client-cert-file=/etc/kcp/tls/mounts-proxy/tls.crt",
		"--mount-proxy-client-key-file=/etc/kcp/tls/mounts-proxy/tls.key",
		"--etcd-servers=http://etcd-alpha:2379",
	}
	d := deployment(t, r)
	if diff := cmp.Diff(wantArgs, d.Spec.Template.Spec.Containers[0].Args); diff != "" {
		t.Errorf("shard flags must match kcp-operator's, in order.\n-want, +got:\n%s", diff)
	}
	var vols []string
	for _, v := range d.Spec.Template.Spec.Volumes {
		vols = append(vols, v.Name+"="+v.Secret.SecretName)
	}
	wantVols := []string{
		"kcp-ca=root-ca", "client-kubeconfig=alpha-client-kubeconfig",
		"logical-cluster-admin-kubeconfig=alpha-logical-cluster-admin-kubeconfig",
		"external-logical-cluster-admin-kubeconfig=alpha-external-logical-cluster-admin-kubeconfig",
		"server-ca=root-server-ca", "service-account-ca=root-service-account-ca",
		"requestheader-client-ca=root-requestheader-client-ca", "client-ca=root-client-ca",
		"server-cert=alpha-server", "service-account-cert=alpha-service-account", "client-cert=alpha-client",
		"logical-cluster-admin-cert=alpha-logical-cluster-admin", "external-logical-cluster-admin-cert=alpha-external-logical-cluster-admin",
		"mounts-proxy-cert=alpha-mounts-proxy",
	}
	if diff := cmp.Diff(wantVols, vols); diff != "" {
		t.Errorf("shard volumes must match kcp-operator's, in order.\n-want, +got:\n%s", diff)
	}
	if got := d.Labels["app.kubernetes.io/component"]; got != "shard" {
		t.Errorf("component label = %q", got)
	}

	o, _ := r.Desired.Get("certificate-client")
	c := o.Resource.(*cmv1.Certificate)
	if c.Spec.CommonName != "shard-alpha" || c.Spec.IssuerRef.Name != "root-client-ca" || c.Spec.SecretTemplate.Labels["operator.kcp.io/rootshard"] != "root" {
		t.Errorf("client certificate: CN %q, issuer %q, secret labels %v", c.Spec.CommonName, c.Spec.IssuerRef.Name, c.Spec.SecretTemplate.Labels)
	}
	o, _ = r.Desired.Get("certificate-server")
	if diff := cmp.Diff([]string{"alpha-shard-kcp.kcp.svc.cluster.local", "localhost"}, o.Resource.(*cmv1.Certificate).Spec.DNSNames); diff != "" {
		t.Errorf("server SANs: -want, +got:\n%s", diff)
	}
	o, _ = r.Desired.Get("secret-client-kubeconfig")
	kc := string(o.Resource.(*corev1.Secret).Data["kubeconfig"])
	if !strings.Contains(kc, "server: https://root-kcp.kcp.svc.cluster.local:6443") || !strings.Contains(kc, "name: shard-base") {
		t.Errorf("the client kubeconfig reaches the root shard:\n%s", kc)
	}
}

func TestMissingRootShard(t *testing.T) {
	converged := converge(shard(), testworld.RootShard(), nil)
	w := testworld.New().RootCAs().Settle(converged.Desired)
	r := composeOK(shard(), w.State())

	if diff := cmp.Diff(converged.Desired.Names(), r.Desired.Names()); diff != "" {
		t.Errorf("A vanished RootShard must not shrink the desired set.\n-want, +got:\n%s", diff)
	}
	for _, o := range r.Desired.Objects() {
		if o.Kept == nil {
			t.Errorf("%s must be kept exactly as observed", o.Name)
		}
	}
	want := condition.Condition{Type: condition.TypeInputsReady, Reason: condition.ReasonMissing,
		Message: "RootShard root (spec.rootShard.ref.name) does not exist in namespace kcp; create it or fix the reference. Everything composed so far is kept unchanged meanwhile."}
	if diff := cmp.Diff([]condition.Condition{want}, r.Conditions); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	if !r.NotReady {
		t.Errorf("the Shard must not be ready without its RootShard")
	}

	fresh := composeOK(shard(), testworld.New().State())
	if len(fresh.Desired.Objects()) != 0 {
		t.Errorf("Nothing is composed for a Shard whose RootShard never existed, got %v", fresh.Desired.Names())
	}
}

func TestOptions(t *testing.T) {
	cases := map[string]struct {
		reason string
		sh     func(*v1alpha1.Shard)
		rs     func(*v1alpha1.RootShard)
		extra  func(*testworld.World)
		check  func(t *testing.T, r Result)
	}{
		"CacheServerFromRootShard": {
			reason: "a RootShard's cache.ref is inherited: the shard mounts the cache server's Secrets",
			rs:     func(rs *v1alpha1.RootShard) { rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"} },
			extra: func(w *testworld.World) {
				w.Secret("cache-kubeconfig").Secret("cache-ca").Secret("cache-client-certificate")
			},
			check: func(t *testing.T, r Result) {
				args := strings.Join(deployment(t, r).Spec.Template.Spec.Containers[0].Args, " ")
				if !strings.Contains(args, "--cache-kubeconfig=/etc/cache-server/kubeconfig/kubeconfig --root-shard-kubeconfig-file=") {
					t.Errorf("cache flag: %s", args)
				}
			},
		},
		"CacheServerMissing": {
			reason: "a referenced CacheServer whose Secrets do not exist holds the Deployment and says so",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.Cache = &v1alpha1.ShardCacheConfig{Ref: &corev1.LocalObjectReference{Name: "cache"}}
			},
			check: func(t *testing.T, r Result) {
				if r.Desired.Has("deployment-shard-kcp") {
					t.Errorf("the Deployment must wait for the cache server's Secrets")
				}
				if c := r.Conditions[1]; c.Status || !strings.Contains(c.Message, "Secret cache-kubeconfig (spec.cache.ref.name (CacheServer cache))") {
					t.Errorf("InputsReady = %+v", c)
				}
			},
		},
		"MergedBundlesQuirk4": {
			reason: "quirk 4: the shard's merged CA bundle starts with the server CA; the client CA merges the RootShard's and the shard's bundles",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "shard-bundle"}
				sh.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "shard-clients"}
			},
			rs: func(rs *v1alpha1.RootShard) {
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "root-clients"}
			},
			extra: func(w *testworld.World) { w.Secret("shard-bundle").Secret("shard-clients").Secret("root-clients") },
			check: func(t *testing.T, r Result) {
				o, _ := r.Desired.Get("secret-merged-ca-bundle")
				if got := string(o.Resource.(*corev1.Secret).Data["tls.crt"]); got != "PEM(root-server-ca)\nPEM(shard-bundle)" {
					t.Errorf("merged CA bundle = %q", got)
				}
				o, _ = r.Desired.Get("secret-merged-client-ca")
				if got := string(o.Resource.(*corev1.Secret).Data["tls.crt"]); got != "PEM(root-client-ca)\nPEM(root-clients)\nPEM(shard-clients)" {
					t.Errorf("merged client CA = %q", got)
				}
				vols := deployment(t, r).Spec.Template.Spec.Volumes
				if vols[7].Secret.SecretName != "alpha-merged-client-ca" {
					t.Errorf("client-ca mounts %q", vols[7].Secret.SecretName)
				}
			},
		},
		"OldKcpNoMountsProxy": {
			reason: "kcp 0.32.2 predates the mounts proxy flags",
			sh:     func(sh *v1alpha1.Shard) { sh.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.32.2"} },
			check: func(t *testing.T, r Result) {
				args := strings.Join(deployment(t, r).Spec.Template.Spec.Containers[0].Args, " ")
				if strings.Contains(args, "mount-proxy") {
					t.Errorf("no mount-proxy flags for 0.32.2: %s", args)
				}
			},
		},
		"ServiceAccountsAcrossShards": {
			reason: "with service account auth every shard trusts the root's and every shard's key, sorted",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.Auth = &v1alpha1.AuthSpec{ServiceAccount: &v1alpha1.ServiceAccountAuthentication{Enabled: true}}
			},
			extra: func(w *testworld.World) {
				w.Object(shard(func(s *v1alpha1.Shard) { s.Name = "beta" })).Object(shard())
				w.Secret("root-service-account").Secret("beta-service-account")
			},
			check: func(t *testing.T, r Result) {
				args := deployment(t, r).Spec.Template.Spec.Containers[0].Args
				want := []string{
					"--service-account-lookup=false",
					"--service-account-key-file=/etc/kcp/tls/root/service-account/tls.crt",
					"--service-account-key-file=/etc/kcp/tls/alpha/service-account/tls.crt",
					"--service-account-key-file=/etc/kcp/tls/beta/service-account/tls.crt",
				}
				if diff := cmp.Diff(want, args[len(args)-4:]); diff != "" {
					t.Errorf("-want, +got:\n%s", diff)
				}
			},
		},
		"VirtualWorkspace": {
			reason: "an external VirtualWorkspace turns off in-process virtual workspaces and advertises its URL",
			sh:     func(sh *v1alpha1.Shard) { sh.Spec.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: "vw"} },
			extra: func(w *testworld.World) {
				w.Object(&v1alpha1.VirtualWorkspace{
					TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "VirtualWorkspace"},
					ObjectMeta: metav1.ObjectMeta{Name: "vw", Namespace: "kcp"},
					Spec:       v1alpha1.VirtualWorkspaceSpec{External: v1alpha1.ExternalConfig{Hostname: "vw.example.com", Port: 6443}},
				})
			},
			check: func(t *testing.T, r Result) {
				d := deployment(t, r)
				args := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " ")
				if !strings.Contains(args, "--run-virtual-workspaces=false --shard-virtual-workspace-url=https://vw.example.com:6443 --shard-virtual-workspace-ca-file=/etc/kcp/tls/ca/server/tls.crt --etcd-servers") {
					t.Errorf("virtual workspace flags: %s", args)
				}
				o, _ := r.Desired.Get("service-shard-kcp")
				if n := len(o.Resource.(*corev1.Service).Spec.Ports); n != 1 {
					t.Errorf("without in-process virtual workspaces the Service has 1 port, got %d", n)
				}
			},
		},
		"VirtualWorkspaceMissing": {
			reason: "a VirtualWorkspace that does not exist holds the Deployment",
			sh:     func(sh *v1alpha1.Shard) { sh.Spec.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: "vw"} },
			check: func(t *testing.T, r Result) {
				if r.Desired.Has("deployment-shard-kcp") {
					t.Errorf("the Deployment must wait for the VirtualWorkspace")
				}
				if c := r.Conditions[1]; c.Status || !strings.Contains(c.Message, "VirtualWorkspace vw (spec.kcpVirtualWorkspace.name)") {
					t.Errorf("InputsReady = %+v", c)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sh, rs := shard(), testworld.RootShard()
			if tc.sh != nil {
				tc.sh(sh)
			}
			if tc.rs != nil {
				tc.rs(rs)
			}
			tc.check(t, converge(sh, rs, tc.extra))
		})
	}
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		mod    func(*v1alpha1.Shard)
		want   []string
	}{
		"Valid":    {reason: "the default shard is valid", mod: func(*v1alpha1.Shard) {}},
		"NoRoot":   {reason: "a shard belongs to a RootShard", mod: func(sh *v1alpha1.Shard) { sh.Spec.RootShard.Ref = nil }, want: []string{"spec.rootShard.ref.name: Required value: name the RootShard (in the same namespace) this shard belongs to, or set secretRef to its reference Secret"}},
		"LongName": {reason: "<name>-service-account must be a valid volume name", mod: func(sh *v1alpha1.Shard) { sh.Name = strings.Repeat("a", 48) }, want: []string{"metadata.name: Too long: may not be more than 47 bytes"}},
		"BadEtcd":  {reason: "etcd endpoints are URLs", mod: func(sh *v1alpha1.Shard) { sh.Spec.Etcd.Endpoints = []string{"etcd"} }, want: []string{`spec.etcd.endpoints[0]: Invalid value: "etcd": must be an etcd client URL such as https://etcd:2379`}},
		"VolClash": {reason: "extra volumes must not reuse generated names", mod: func(sh *v1alpha1.Shard) { sh.Spec.ExtraVolumes = []corev1.Volume{{Name: "client-kubeconfig"}} }, want: []string{`spec.extraVolumes[0].name: Duplicate value: "client-kubeconfig"`}},
		"EmptyCache": {reason: "a cache ref needs a name", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.Cache = &v1alpha1.ShardCacheConfig{Ref: &corev1.LocalObjectReference{}}
		}, want: []string{"spec.cache.ref.name: Required value: name the CacheServer, or remove spec.cache to use the RootShard's cache"}},
		"Public": {reason: "a public name with a certificate from the user's issuer", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}}}
		}},
		"PublicNoHostname": {reason: "spec.public is checked under its own path", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.Public = &v1alpha1.PublicEndpoint{}
		}, want: []string{"spec.public.hostname: Required value: set the shard's public DNS name, for example alpha.kcp.example.com, or remove spec.public"}},
		"PublicCertificateOnShardBaseURL": {reason: "kcp's components dial shardBaseURL: it must not be served the public certificate", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.ShardBaseURL = "https://alpha.kcp.example.com:6443"
			sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}}}
		}, want: []string{`spec.public.serverCertificate: Invalid value: "alpha.kcp.example.com": spec.shardBaseURL names alpha.kcp.example.com, which this certificate serves, so kcp's own components would be served a certificate they cannot verify: leave spec.shardBaseURL unset (the in-cluster Service) or set it to another name`}},
		"PublicCertVolumeClash": {reason: "with a public certificate, public-server-cert is a generated volume", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer"}}}
			sh.Spec.ExtraVolumes = []corev1.Volume{{Name: "public-server-cert"}}
		}, want: []string{`spec.extraVolumes[0].name: Duplicate value: "public-server-cert"`}},
		"ObjectLimitOnV032": {reason: "kcp v0.32.3 would not start with the object limit flags", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.ObjectLimit = &v1alpha1.ObjectLimit{Total: 10000}
		}, want: []string{"spec.objectLimit: Forbidden: kcp v0.32.3 has no --logical-cluster-total-object-limit and would not start with it (it comes with kcp's release after v0.32.3); remove it, or run kcp v0.33.0 or later (spec.image.tag)"}},
		"ObjectLimitOnNextKCP": {reason: "kcp v0.33.0 takes the object limit", mod: func(sh *v1alpha1.Shard) {
			sh.Spec.ObjectLimit = &v1alpha1.ObjectLimit{Total: 10000}
			sh.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"}
		}},
		"Placed": {reason: "a placed shard with the URL the others reach it by", mod: inClusterB},
		"PlacedWithoutBaseURL": {reason: "the shard's Service name resolves only in the cluster it runs in", mod: func(sh *v1alpha1.Shard) {
			inClusterB(sh)
			sh.Spec.ShardBaseURL = ""
		}, want: []string{"spec.shardBaseURL: Required value: a shard placed in another cluster is reached by its shardBaseURL (its Service name resolves only there); set it to a URL the root shard and the front-proxies reach"}},
		"PlacedMonitored": {reason: "the PodMonitor would be composed where the pods are not", mod: func(sh *v1alpha1.Shard) {
			inClusterB(sh)
			sh.Spec.Monitoring = &v1alpha1.Monitoring{Enabled: true}
		}, want: []string{"spec.monitoring.enabled: Forbidden: a placed component cannot be monitored by a PodMonitor composed in this cluster yet; turn monitoring off, or scrape it with the other cluster's Prometheus"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sh := shard()
			tc.mod(sh)
			var got []string
			for _, e := range Validate(sh) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// between returns the elements of list after the first one equal to after and before the
// next one equal to before; nil if there are none.
func between(t *testing.T, list []string, after, before string) []string {
	t.Helper()
	start := slices.Index(list, after)
	if start < 0 {
		t.Fatalf("%q not in %q", after, list)
	}
	end := slices.Index(list[start+1:], before)
	if end < 0 {
		t.Fatalf("%q not after %q in %q", before, after, list)
	}
	if end == 0 {
		return nil
	}
	return list[start+1 : start+1+end]
}

func TestPublic(t *testing.T) {
	letsencrypt := v1alpha1.ObjectReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"}
	svc := "alpha-shard-kcp.kcp.svc.cluster.local"
	publicCert := func(dnsNames ...string) *cmv1.Certificate {
		return &cmv1.Certificate{
			TypeMeta: metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
			ObjectMeta: metav1.ObjectMeta{Name: "alpha-public-serving", Namespace: "kcp", Labels: map[string]string{
				"app.kubernetes.io/managed-by": "configuration-kcp", "app.kubernetes.io/name": "kcp",
				"app.kubernetes.io/instance": "alpha", "app.kubernetes.io/component": "shard",
			}},
			Spec: cmv1.CertificateSpec{
				SecretName:     "alpha-public-serving",
				SecretTemplate: &cmv1.CertificateSecretTemplate{Labels: map[string]string{"operator.kcp.io/rootshard": "root", "operator.kcp.io/shard": "alpha"}},
				PrivateKey:     &cmv1.CertificatePrivateKey{Algorithm: cmv1.RSAKeyAlgorithm, Size: 4096},
				DNSNames:       dnsNames,
				Usages:         []cmv1.KeyUsage{cmv1.UsageServerAuth, cmv1.UsageKeyEncipherment, cmv1.UsageDigitalSignature},
				IssuerRef:      cmmeta.IssuerReference{Name: "letsencrypt", Kind: "ClusterIssuer", Group: "cert-manager.io"},
			},
		}
	}
	vw := func(w *testworld.World) {
		w.Object(&v1alpha1.VirtualWorkspace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "VirtualWorkspace"},
			ObjectMeta: metav1.ObjectMeta{Name: "vw", Namespace: "kcp"},
			Spec:       v1alpha1.VirtualWorkspaceSpec{External: v1alpha1.ExternalConfig{Hostname: "vw.example.com", Port: 6443}},
		})
	}
	cases := map[string]struct {
		reason string
		sh     func(*v1alpha1.Shard)
		extra  func(*testworld.World)
		// wantSNI are the flags between --tls-cert-file and --service-account-key-file.
		wantSNI []string
		// wantVW are the flags between the mounts proxy's and --etcd-servers.
		wantVW []string
		// wantVolumes are the volumes (name=secret@path) between server-cert and service-account-cert.
		wantVolumes []string
		wantSANs    []string
		wantCert    *cmv1.Certificate // certificate-public-serving, nil for none
	}{
		"Private": {
			reason:   "Without spec.public: no virtual workspace URL, no second certificate.",
			wantSANs: []string{svc, "localhost"},
		},
		"PublicHostname": {
			reason:   "A public name without a certificate of its own: the virtual workspaces are advertised there on port 6443, and the serving certificate from the installation's CA covers it.",
			sh:       func(sh *v1alpha1.Shard) { sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com"} },
			wantVW:   []string{"--shard-virtual-workspace-url=https://alpha.kcp.example.com:6443"},
			wantSANs: []string{svc, "alpha.kcp.example.com", "localhost"},
		},
		"PublicPort": {
			reason: "The public port is the virtual workspace URL's.",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", Port: 443}
			},
			wantVW:   []string{"--shard-virtual-workspace-url=https://alpha.kcp.example.com:443"},
			wantSANs: []string{svc, "alpha.kcp.example.com", "localhost"},
		},
		"PublicAndShardBaseURL": {
			reason: "shardBaseURL's host and the public name are both on the serving certificate, once each.",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.ShardBaseURL = "https://alpha.kcp.example.com:6443"
				sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com"}
			},
			wantVW:   []string{"--shard-virtual-workspace-url=https://alpha.kcp.example.com:6443"},
			wantSANs: []string{svc, "alpha.kcp.example.com", "localhost"},
		},
		"ServerCertificate": {
			reason: "A certificate from the user's issuer for the public name, served by SNI right after the serving certificate and mounted after it; the serving certificate keeps the in-cluster names only.",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: letsencrypt}}
			},
			wantSNI:     []string{"--tls-sni-cert-key=/etc/kcp/tls/public-server/tls.crt,/etc/kcp/tls/public-server/tls.key:alpha.kcp.example.com"},
			wantVW:      []string{"--shard-virtual-workspace-url=https://alpha.kcp.example.com:6443"},
			wantVolumes: []string{"public-server-cert=alpha-public-serving@/etc/kcp/tls/public-server"},
			wantSANs:    []string{svc, "localhost"},
			wantCert:    publicCert("alpha.kcp.example.com"),
		},
		"ServerCertificateDNSNames": {
			reason: "The certificate's dnsNames replace the hostname, on the certificate and in the SNI flag.",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com", Port: 443, ServerCertificate: &v1alpha1.PublicServerCertificate{
					IssuerRef: letsencrypt, DNSNames: []string{"alpha.kcp.example.com", "*.alpha.kcp.example.com"},
				}}
			},
			wantSNI:     []string{"--tls-sni-cert-key=/etc/kcp/tls/public-server/tls.crt,/etc/kcp/tls/public-server/tls.key:alpha.kcp.example.com,*.alpha.kcp.example.com"},
			wantVW:      []string{"--shard-virtual-workspace-url=https://alpha.kcp.example.com:443"},
			wantVolumes: []string{"public-server-cert=alpha-public-serving@/etc/kcp/tls/public-server"},
			wantSANs:    []string{svc, "localhost"},
			wantCert:    publicCert("alpha.kcp.example.com", "*.alpha.kcp.example.com"),
		},
		"VirtualWorkspaceWins": {
			reason: "An external VirtualWorkspace serves the virtual workspaces: its URL is advertised, not the public name, which stays on the serving certificate.",
			sh: func(sh *v1alpha1.Shard) {
				sh.Spec.KcpVirtualWorkspace = &corev1.LocalObjectReference{Name: "vw"}
				sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.kcp.example.com"}
			},
			extra: vw,
			wantVW: []string{
				"--run-virtual-workspaces=false",
				"--shard-virtual-workspace-url=https://vw.example.com:6443",
				"--shard-virtual-workspace-ca-file=/etc/kcp/tls/ca/server/tls.crt",
			},
			wantSANs: []string{svc, "alpha.kcp.example.com", "localhost"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sh := shard()
			if tc.sh != nil {
				tc.sh(sh)
			}
			r := converge(sh, testworld.RootShard(), tc.extra)
			d := deployment(t, r)
			args := d.Spec.Template.Spec.Containers[0].Args
			if diff := cmp.Diff(tc.wantSNI, between(t, args, "--tls-cert-file=/etc/kcp/tls/server/tls.crt", "--service-account-key-file=/etc/kcp/tls/service-account/tls.crt")); diff != "" {
				t.Errorf("%s\nflags after --tls-cert-file: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantVW, between(t, args, "--mount-proxy-client-key-file=/etc/kcp/tls/mounts-proxy/tls.key", "--etcd-servers=http://etcd-alpha:2379")); diff != "" {
				t.Errorf("%s\nvirtual workspace flags: -want, +got:\n%s", tc.reason, diff)
			}
			var vols []string
			for i, v := range d.Spec.Template.Spec.Volumes {
				vols = append(vols, v.Name+"="+v.Secret.SecretName+"@"+d.Spec.Template.Spec.Containers[0].VolumeMounts[i].MountPath)
			}
			if diff := cmp.Diff(tc.wantVolumes, between(t, vols, "server-cert=alpha-server@/etc/kcp/tls/server", "service-account-cert=alpha-service-account@/etc/kcp/tls/service-account")); diff != "" {
				t.Errorf("%s\nvolumes after server-cert: -want, +got:\n%s", tc.reason, diff)
			}
			o, _ := r.Desired.Get("certificate-server")
			if diff := cmp.Diff(tc.wantSANs, o.Resource.(*cmv1.Certificate).Spec.DNSNames); diff != "" {
				t.Errorf("%s\nserver SANs: -want, +got:\n%s", tc.reason, diff)
			}
			var got *cmv1.Certificate
			if o, ok := r.Desired.Get("certificate-public-serving"); ok {
				got = o.Resource.(*cmv1.Certificate)
			}
			if diff := cmp.Diff(tc.wantCert, got); diff != "" {
				t.Errorf("%s\ncertificate-public-serving: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestUpgradeWaitsForRootShard: a Shard whose spec.image changes keeps the image its
// Deployment runs until its RootShard runs the new one (kcp#4032).
func TestUpgradeWaitsForRootShard(t *testing.T) {
	const old, next = "ghcr.io/kcp-dev/kcp:v0.32.3", "ghcr.io/kcp-dev/kcp:v0.33.0"
	root := func(running string) *v1alpha1.RootShard {
		return testworld.RootShard(func(rs *v1alpha1.RootShard) { rs.Status.Image = running })
	}
	running := converge(shard(), root(old), nil)
	upgraded := shard(func(sh *v1alpha1.Shard) { sh.Spec.Image = &v1alpha1.ImageSpec{Tag: "v0.33.0"} })
	cases := map[string]struct {
		reason string
		root   *v1alpha1.RootShard
		want   string
		ready  bool
	}{
		"RootShardBehind": {reason: "The RootShard still runs the old kcp: the Deployment keeps it.", root: root(old), want: old},
		"RootShardAhead":  {reason: "The RootShard runs the new kcp: the shard follows.", root: root(next), want: next, ready: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := testworld.New().Object(tc.root).RootCAs().Settle(running.Desired)
			r := composeOK(upgraded, w.State())
			if got := deployment(t, r).Spec.Template.Spec.Containers[0].Image; got != tc.want {
				t.Errorf("%s\nimage = %s, want %s", tc.reason, got, tc.want)
			}
			for _, c := range r.Conditions {
				if c.Type == condition.TypeUpgraded && c.Status != tc.ready {
					t.Errorf("%s\nUpgraded = %v (%s), want %v", tc.reason, c.Status, c.Message, tc.ready)
				}
			}
		})
	}
}
