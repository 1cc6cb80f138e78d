package scenarios

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"path"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// checkTrust checks, without running kcp, every TLS connection an installation's components
// make to each other and that its clients make: for each server URL in each kubeconfig a
// component mounts, each backend of a front-proxy's path mapping, the admin kubeconfig, and
// each public shard name, the certificate the named component would serve for that name
// (its --tls-sni-cert-key for the name, else its --tls-cert-file) must verify, for that
// name, against the CAs the dialer trusts. publicRoots are what public clients trust (a
// public CA's root), nil for the installation's own CA. It returns how many it checked.
func checkTrust(ctx context.Context, t *testing.T, e *env, ns, rootShard, adminSecret string, publicRoots []byte) int {
	t.Helper()
	w := readWorld(ctx, t, e, ns)
	checked := 0
	verify := func(who, rawURL string, roots []byte) {
		t.Helper()
		checked++
		u, err := url.Parse(rawURL)
		if err != nil || u.Hostname() == "" {
			t.Errorf("%s dials %q, which is not a URL", who, rawURL)
			return
		}
		host := u.Hostname()
		dep, ok := w.serverOf(host)
		if !ok {
			t.Errorf("%s dials %s: no component of namespace %s serves that name (no Service of that name, no public name)", who, rawURL, ns)
			return
		}
		secret := w.servedCert(dep, host)
		if secret == "" {
			t.Errorf("%s dials %s: Deployment %s serves no certificate", who, rawURL, dep)
			return
		}
		if err := verifyServed(w.secrets[secret], host, roots); err != nil {
			t.Errorf("%s dials %s (Deployment %s, certificate %s): %v", who, rawURL, dep, secret, err)
			return
		}
		t.Logf("%s -> %s: %s serves %s, trusted", who, rawURL, dep, secret)
	}

	for _, d := range w.deployments {
		c := d.Spec.Template.Spec.Containers[0]
		files := w.mountedFiles(d)
		for _, vm := range c.VolumeMounts {
			secret, ok := w.secretVolume(d, vm.Name)
			if !ok || len(w.secrets[secret]["kubeconfig"]) == 0 || usersWebhookVolumes[vm.Name] {
				continue
			}
			for _, cl := range kubeconfigClusters(t, w.secrets[secret]["kubeconfig"]) {
				roots := cl.caData
				if cl.caFile != "" {
					if roots, ok = files[cl.caFile]; !ok {
						t.Errorf("Deployment %s: kubeconfig %s trusts %s, which no volume of the pod provides", d.Metadata.Name, secret, cl.caFile)
						continue
					}
				}
				verify(fmt.Sprintf("Deployment %s (kubeconfig %s, cluster %s)", d.Metadata.Name, secret, cl.name), cl.server, roots)
			}
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.ConfigMap == nil {
				continue
			}
			var mappings []struct {
				Path            string `json:"path"`
				Backend         string `json:"backend"`
				BackendServerCA string `json:"backend_server_ca"`
			}
			if raw := w.configMaps[v.ConfigMap.Name]["path-mapping.yaml"]; raw != "" {
				if err := yaml.Unmarshal([]byte(raw), &mappings); err != nil {
					t.Fatal(err)
				}
			}
			for _, m := range mappings {
				roots, ok := files[m.BackendServerCA]
				if !ok {
					t.Errorf("Deployment %s: path mapping %s trusts %s, which no volume of the pod provides", d.Metadata.Name, m.Path, m.BackendServerCA)
					continue
				}
				if m.Path != "/clusters/" && m.Path != "/services/" {
					// additionalPathMappings: a backend of the user's, with the user's CA,
					// which a volume of the pod provides (checked above).
					continue
				}
				verify(fmt.Sprintf("Deployment %s (path mapping %s)", d.Metadata.Name, m.Path), m.Backend, roots)
			}
		}
	}

	for _, cl := range kubeconfigClusters(t, secretKey(ctx, t, e, ns, adminSecret, "kubeconfig")) {
		verify("the admin kubeconfig "+adminSecret+" (cluster "+cl.name+")", cl.server, cl.caData)
	}

	for host, p := range w.public {
		roots := publicRoots
		if !p.ownCertificate {
			roots = w.secrets[rootCASecret(ctx, t, e, ns, rootShard)]["tls.crt"] // the installation's root CA
		}
		verify("a client outside the cluster (public name of "+p.deployment+")", "https://"+host, roots)
		// A front-proxy may be fronted by a CDN or an ingress of the platform's (the dual
		// front-proxy topology's edge is ClusterIP): only public shards must be exposed by a
		// LoadBalancer of their own.
		if !strings.HasSuffix(p.deployment, "-front-proxy") && p.serviceType != "LoadBalancer" {
			t.Errorf("public name %s: Deployment %s is exposed by a Service of type %q, want LoadBalancer", host, p.deployment, p.serviceType)
		}
	}
	return checked
}

// rootCASecret is the Secret holding the root shard's root CA: the one its Issuer <rs>-ca
// signs with, <rs>-ca unless the RootShard brings its own key pair (caSecretRef).
func rootCASecret(ctx context.Context, t *testing.T, e *env, ns, rootShard string) string {
	t.Helper()
	var issuer struct {
		Spec struct {
			CA struct {
				SecretName string `json:"secretName"`
			} `json:"ca"`
		} `json:"spec"`
	}
	if err := e.GetJSON(ctx, &issuer, "issuers.cert-manager.io", "-n", ns, rootShard+"-ca"); err != nil {
		t.Fatal(err)
	}
	if issuer.Spec.CA.SecretName == "" {
		t.Fatalf("Issuer %s/%s-ca names no CA Secret", ns, rootShard)
	}
	return issuer.Spec.CA.SecretName
}

// trustWorld is what checkTrust reads of one namespace.
type trustWorld struct {
	deployments  map[string]deployment
	services     map[string]string // name: type
	servicePorts map[string]int    // name: first port
	secrets      map[string]map[string][]byte
	configMaps   map[string]map[string]string
	public       map[string]publicName
	// baseNames are the hosts of shardBaseURLs, each a name the platform's DNS gives a
	// shard's own Service (its Deployment's): dialled by kcp's components, not public.
	baseNames map[string]string
}

// publicName is a name a component is reached at from outside the cluster.
type publicName struct {
	deployment     string
	serviceType    string
	ownCertificate bool // served from a certificate of a public issuer
}

func readWorld(ctx context.Context, t *testing.T, e *env, ns string) trustWorld {
	t.Helper()
	w := trustWorld{deployments: map[string]deployment{}, services: map[string]string{}, servicePorts: map[string]int{}, secrets: map[string]map[string][]byte{}, configMaps: map[string]map[string]string{}, public: map[string]publicName{}, baseNames: map[string]string{}}
	var deps struct{ Items []deployment }
	if err := e.GetJSON(ctx, &deps, "deployments.apps", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, d := range deps.Items {
		w.deployments[d.Metadata.Name] = d
	}
	var svcs struct {
		Items []struct {
			Metadata struct{ Name string }
			Spec     struct {
				Type  string
				Ports []struct{ Port int }
			}
		}
	}
	if err := e.GetJSON(ctx, &svcs, "services", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, s := range svcs.Items {
		w.services[s.Metadata.Name] = s.Spec.Type
		if len(s.Spec.Ports) > 0 {
			w.servicePorts[s.Metadata.Name] = s.Spec.Ports[0].Port
		}
	}
	var secrets struct {
		Items []struct {
			Metadata struct{ Name string }
			Data     map[string][]byte
		}
	}
	if err := e.GetJSON(ctx, &secrets, "secrets", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		w.secrets[s.Metadata.Name] = s.Data
	}
	var cms struct {
		Items []struct {
			Metadata struct{ Name string }
			Data     map[string]string
		}
	}
	if err := e.GetJSON(ctx, &cms, "configmaps", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, c := range cms.Items {
		w.configMaps[c.Metadata.Name] = c.Data
	}

	var xrs struct {
		Items []struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				External struct{ Hostname string }
				Public   *struct {
					Hostname          string
					ServerCertificate *struct{}
				}
				PublicServerCertificate *struct{}
				ShardBaseURL            string
			}
		}
	}
	if err := e.GetJSON(ctx, &xrs, "frontproxies.kcp.crossplane.io,rootshards.kcp.crossplane.io,shards.kcp.crossplane.io", "-n", ns); err != nil {
		t.Fatal(err)
	}
	for _, x := range xrs.Items {
		// A shardBaseURL's host is a name the platform's DNS gives the shard's own Service.
		if u, err := url.Parse(x.Spec.ShardBaseURL); err == nil && u.Hostname() != "" {
			w.baseNames[u.Hostname()] = map[string]string{"RootShard": x.Metadata.Name + "-kcp", "Shard": x.Metadata.Name + "-shard-kcp"}[x.Kind]
		}
		switch {
		case x.Kind == "FrontProxy" && x.Spec.External.Hostname != "":
			dep := x.Metadata.Name + "-front-proxy"
			w.public[x.Spec.External.Hostname] = publicName{deployment: dep, serviceType: w.services[dep], ownCertificate: x.Spec.PublicServerCertificate != nil}
		case x.Kind == "RootShard" && x.Spec.Public != nil:
			dep := x.Metadata.Name + "-kcp"
			w.public[x.Spec.Public.Hostname] = publicName{deployment: dep, serviceType: w.services[dep], ownCertificate: x.Spec.Public.ServerCertificate != nil}
		case x.Kind == "Shard" && x.Spec.Public != nil:
			dep := x.Metadata.Name + "-shard-kcp"
			w.public[x.Spec.Public.Hostname] = publicName{deployment: dep, serviceType: w.services[dep], ownCertificate: x.Spec.Public.ServerCertificate != nil}
		}
	}
	return w
}

// serverOf is the Deployment that serves host: the one behind the in-cluster Service the
// host names (every component's Service has its Deployment's name), or the one with that
// public name.
func (w trustWorld) serverOf(host string) (string, bool) {
	if p, ok := w.public[host]; ok {
		return p.deployment, true
	}
	if dep, ok := w.baseNames[host]; ok {
		return dep, true
	}
	svc, _, _ := strings.Cut(host, ".")
	if _, ok := w.services[svc]; !ok {
		return "", false
	}
	_, ok := w.deployments[svc]
	return svc, ok
}

// servedCert is the Secret of the certificate Deployment dep serves to a client asking for
// host: the --tls-sni-cert-key whose names include host, else --tls-cert-file's.
func (w trustWorld) servedCert(dep, host string) string {
	d := w.deployments[dep]
	files := w.mountedSecrets(d)
	var def string
	for _, a := range d.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--tls-sni-cert-key="); ok {
			pair, names, _ := strings.Cut(v, ":")
			crt, _, _ := strings.Cut(pair, ",")
			for _, n := range strings.Split(names, ",") {
				if n == host {
					return files[path.Dir(crt)]
				}
			}
		}
		if v, ok := strings.CutPrefix(a, "--tls-cert-file="); ok {
			def = files[path.Dir(v)]
		}
	}
	return def
}

// secretVolume is the Secret a volume of d holds.
func (w trustWorld) secretVolume(d deployment, volume string) (string, bool) {
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == volume && v.Secret != nil {
			return v.Secret.SecretName, true
		}
	}
	return "", false
}

// mountedSecrets maps each mount directory of d's container to the Secret mounted there.
func (w trustWorld) mountedSecrets(d deployment) map[string]string {
	out := map[string]string{}
	for _, vm := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		if s, ok := w.secretVolume(d, vm.Name); ok {
			out[vm.MountPath] = s
		}
	}
	return out
}

// mountedFiles maps each file path a Secret puts in d's container to its content.
func (w trustWorld) mountedFiles(d deployment) map[string][]byte {
	out := map[string][]byte{}
	for dir, s := range w.mountedSecrets(d) {
		for k, v := range w.secrets[s] {
			out[dir+"/"+k] = v
		}
	}
	return out
}

type kubeconfigCluster struct {
	name, server, caFile string
	caData               []byte
}

func kubeconfigClusters(t *testing.T, raw []byte) []kubeconfigCluster {
	t.Helper()
	var kc struct {
		Clusters []struct {
			Name    string
			Cluster struct {
				Server   string `json:"server"`
				CAFile   string `json:"certificate-authority"`
				CAData   []byte `json:"certificate-authority-data"`
				Insecure bool   `json:"insecure-skip-tls-verify"`
			}
		}
	}
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		t.Fatal(err)
	}
	var out []kubeconfigCluster
	for _, c := range kc.Clusters {
		if c.Cluster.Insecure {
			t.Errorf("kubeconfig cluster %s skips TLS verification", c.Name)
		}
		out = append(out, kubeconfigCluster{name: c.Name, server: c.Cluster.Server, caFile: c.Cluster.CAFile, caData: c.Cluster.CAData})
	}
	return out
}

// verifyServed verifies a certificate Secret (tls.crt: leaf then chain; ca.crt) for host
// against roots.
func verifyServed(secret map[string][]byte, host string, roots []byte) error {
	certs := parsePEMCerts(secret["tls.crt"])
	if len(certs) == 0 {
		return fmt.Errorf("the certificate Secret has no tls.crt")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(roots) {
		return fmt.Errorf("the dialer trusts no CA certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range append(certs[1:], parsePEMCerts(secret["ca.crt"])...) {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{DNSName: host, Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

func parsePEMCerts(b []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return out
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// usersWebhookVolumes mount the kubeconfigs of webhooks the user runs (spec.auth.webhook,
// spec.authorization.webhook, spec.audit.webhook): they dial the user's servers, not a
// component of the installation, with the user's CA.
var usersWebhookVolumes = map[string]bool{"authentication-webhook-config": true, "authorization-webhook-config": true, "audit-webhook-config": true}
