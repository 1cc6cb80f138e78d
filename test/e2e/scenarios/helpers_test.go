package scenarios

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// applyExample applies every manifest of examples/<name>, as a user following the README.
func applyExample(ctx context.Context, t *testing.T, e *env, name string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(e.root, "examples", name, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in examples/%s: %v", name, err)
	}
	sort.Strings(files)
	n, err := e.ApplyFiles(ctx, files...)
	if err != nil {
		t.Fatalf("apply examples/%s: %v", name, err)
	}
	t.Logf("applied examples/%s (%d objects)", name, n)
}

// composed lists the objects of the given kinds in a namespace that Crossplane composed
// (they carry the crossplane.io/composite label), by "Kind/name".
func composed(ctx context.Context, e *env, namespace string, kinds ...string) (map[string]stack.Object, error) {
	out := map[string]stack.Object{}
	var list struct {
		Items []stack.Object `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, strings.Join(kinds, ","), "-n", namespace, "-l", "crossplane.io/composite"); err != nil {
		return nil, err
	}
	for _, o := range list.Items {
		out[o.Kind+"/"+o.Metadata.Name] = o
	}
	return out, nil
}

// composedKinds are the kinds the function composes.
var composedKinds = []string{"certificates.cert-manager.io", "issuers.cert-manager.io", "secrets", "configmaps", "deployments.apps", "services"}

// waitCertificatesReady waits until every Certificate in the namespace is issued (see
// certificates) and there are at least want of them.
func waitCertificatesReady(ctx context.Context, e *env, namespace string, want int) error {
	return waitCertificatesReadyWithin(ctx, e, namespace, want, timeout)
}

// waitCertificatesReadyWithin is waitCertificatesReady with a timeout of its own.
func waitCertificatesReadyWithin(ctx context.Context, e *env, namespace string, want int, within time.Duration) error {
	return e.Eventually(ctx, within, "certificates in "+namespace+" Ready", func(ctx context.Context) (bool, string, error) {
		certs, err := certificates(ctx, e, namespace)
		if err != nil {
			return false, "", err
		}
		var waiting []string
		for _, c := range certs {
			if !c.issued {
				waiting = append(waiting, c.name+" ("+c.state+")")
			}
		}
		status := fmt.Sprintf("%d certificates, not issued: %s", len(certs), strings.Join(waiting, ", "))
		return len(certs) >= want && len(waiting) == 0, status, nil
	})
}

// certificate is a Certificate's issuance as the scenarios read it.
type certificate struct {
	name   string
	issued bool
	// state says why it is not issued yet.
	state string
	// secret is the Secret cert-manager writes; revision counts its issuances.
	secret   string
	revision int
}

// certificates reads the Certificates in a namespace. One counts as issued once Ready with its
// revision recorded: cert-manager's readiness and issuing controllers write those two
// separately, and a Certificate can be Ready a moment before its revision appears, so a
// snapshot taken then would see revision 0.
func certificates(ctx context.Context, e *env, namespace string) ([]certificate, error) {
	var list struct {
		// A Status of its own would hide stack.Object's: read both fields here.
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				SecretName string `json:"secretName"`
			} `json:"spec"`
			Status struct {
				Conditions []stack.Condition `json:"conditions"`
				Revision   int               `json:"revision"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "certificates.cert-manager.io", "-n", namespace); err != nil {
		return nil, err
	}
	out := make([]certificate, 0, len(list.Items))
	for _, c := range list.Items {
		cond := stack.Condition{Type: "Ready", Status: "Unknown"}
		for _, x := range c.Status.Conditions {
			if x.Type == "Ready" {
				cond = x
			}
		}
		cert := certificate{name: c.Metadata.Name, secret: c.Spec.SecretName, revision: c.Status.Revision}
		switch {
		case cond.Status != "True":
			cert.state = cond.Reason + ": " + cond.Message
		case c.Status.Revision < 1:
			cert.state = "Ready, revision not recorded yet"
		default:
			cert.issued = true
		}
		out = append(out, cert)
	}
	return out, nil
}

// xr is the part of a configuration-kcp XR the scenarios read.
type xr struct {
	stack.Object
	Spec struct {
		Crossplane struct {
			ResourceRefs []struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"resourceRefs"`
		} `json:"crossplane"`
	} `json:"spec"`
	Status map[string]any `json:"status"`
}

// conditions returns the XR's conditions by type.
func (x xr) conditions() map[string]stack.Condition {
	out := map[string]stack.Condition{}
	b, _ := json.Marshal(x.Status["conditions"])
	var cs []stack.Condition
	_ = json.Unmarshal(b, &cs)
	for _, c := range cs {
		out[c.Type] = c
	}
	return out
}

func getXR(ctx context.Context, e *env, kind, namespace, name string) (xr, error) {
	var x xr
	err := e.GetJSON(ctx, &x, strings.ToLower(kind)+".kcp.crossplane.io", "-n", namespace, name)
	return x, err
}

// waitXR waits until the XR's condition has the wanted status.
func waitXR(ctx context.Context, e *env, kind, namespace, name, condition, status string) (xr, error) {
	var last xr
	err := e.Eventually(ctx, timeout, fmt.Sprintf("%s %s/%s %s=%s", kind, namespace, name, condition, status), func(ctx context.Context) (bool, string, error) {
		x, err := getXR(ctx, e, kind, namespace, name)
		if err != nil {
			return false, "", err
		}
		last = x
		var parts []string
		for _, c := range x.conditions() {
			parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
		}
		sort.Strings(parts)
		return x.conditions()[condition].Status == status, strings.Join(parts, "; "), nil
	})
	return last, err
}

// deployment is the part of a Deployment the scenarios compare with the golden renders.
type deployment struct {
	stack.Object
	Spec struct {
		Template struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Spec struct {
				Containers []struct {
					Name         string   `json:"name"`
					Image        string   `json:"image"`
					Command      []string `json:"command"`
					Args         []string `json:"args"`
					VolumeMounts []struct {
						Name      string `json:"name"`
						MountPath string `json:"mountPath"`
						ReadOnly  bool   `json:"readOnly"`
					} `json:"volumeMounts"`
				} `json:"containers"`
				Volumes []struct {
					Name   string `json:"name"`
					Secret *struct {
						SecretName string `json:"secretName"`
					} `json:"secret"`
					ConfigMap *struct {
						Name string `json:"name"`
					} `json:"configMap"`
				} `json:"volumes"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// goldenRender reads the reviewed golden render of an example's converged state.
func goldenRender(t *testing.T, e *env, example string) [][]byte {
	t.Helper()
	docs, err := stack.ReadManifests(filepath.Join(e.root, "test", "render", "testdata", "golden", example, "converged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// goldenDeployments are the Deployments of a golden render, by name.
func goldenDeployments(t *testing.T, docs [][]byte) map[string]deployment {
	t.Helper()
	out := map[string]deployment{}
	for _, d := range docs {
		var dep deployment
		if err := json.Unmarshal(d, &dep); err != nil {
			t.Fatal(err)
		}
		if dep.Kind == "Deployment" {
			out[dep.Metadata.Name] = dep
		}
	}
	return out
}

// checkDeployments compares every live Deployment of the namespace with the golden render
// (containers' images, commands, args in order, mounts, and the Secrets and ConfigMaps behind
// the volumes), and checks that every Secret and ConfigMap a volume names exists.
func checkDeployments(ctx context.Context, t *testing.T, e *env, namespace string, golden [][]byte) {
	t.Helper()
	want := goldenDeployments(t, golden)
	var list struct {
		Items []deployment `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "deployments.apps", "-n", namespace); err != nil {
		t.Fatal(err)
	}
	got := map[string]deployment{}
	for _, d := range list.Items {
		got[d.Metadata.Name] = d
	}
	if len(got) != len(want) {
		t.Errorf("namespace %s has Deployments %v, the golden render has %v", namespace, keys(got), keys(want))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("Deployment %s of the golden render does not exist", name)
			continue
		}
		gc, wc := g.Spec.Template.Spec.Containers, w.Spec.Template.Spec.Containers
		if len(gc) != len(wc) {
			t.Errorf("Deployment %s: %d containers, golden has %d", name, len(gc), len(wc))
			continue
		}
		for i := range wc {
			if gc[i].Image != wc[i].Image || strings.Join(gc[i].Command, " ") != strings.Join(wc[i].Command, " ") {
				t.Errorf("Deployment %s container %s: image %s command %v, golden %s %v", name, wc[i].Name, gc[i].Image, gc[i].Command, wc[i].Image, wc[i].Command)
			}
			if a, b := strings.Join(gc[i].Args, "\n"), strings.Join(wc[i].Args, "\n"); a != b {
				t.Errorf("Deployment %s container %s args differ from the golden render:\n got: %q\nwant: %q", name, wc[i].Name, gc[i].Args, wc[i].Args)
			}
			if a, b := fmt.Sprint(gc[i].VolumeMounts), fmt.Sprint(wc[i].VolumeMounts); a != b {
				t.Errorf("Deployment %s container %s mounts differ from the golden render:\n got: %s\nwant: %s", name, wc[i].Name, a, b)
			}
		}
		if a, b := volumeSources(g), volumeSources(w); a != b {
			t.Errorf("Deployment %s volumes differ from the golden render:\n got: %s\nwant: %s", name, a, b)
		}
		for _, v := range g.Spec.Template.Spec.Volumes {
			switch {
			case v.Secret != nil:
				if _, err := e.Kubectl(ctx, nil, "get", "secret", "-n", namespace, v.Secret.SecretName); err != nil {
					t.Errorf("Deployment %s mounts Secret %s, which does not exist: %v", name, v.Secret.SecretName, err)
				}
			case v.ConfigMap != nil:
				if _, err := e.Kubectl(ctx, nil, "get", "configmap", "-n", namespace, v.ConfigMap.Name); err != nil {
					t.Errorf("Deployment %s mounts ConfigMap %s, which does not exist: %v", name, v.ConfigMap.Name, err)
				}
			}
		}
	}
}

func volumeSources(d deployment) string {
	var out []string
	for _, v := range d.Spec.Template.Spec.Volumes {
		switch {
		case v.Secret != nil:
			out = append(out, v.Name+"=secret:"+v.Secret.SecretName)
		case v.ConfigMap != nil:
			out = append(out, v.Name+"=configmap:"+v.ConfigMap.Name)
		default:
			out = append(out, v.Name+"=other")
		}
	}
	return strings.Join(out, " ")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// kubeconfigFile is the part of a kubeconfig file the scenarios read.
type kubeconfigFile struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthorityData []byte `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			ClientCertificateData []byte `json:"client-certificate-data"`
			ClientKeyData         []byte `json:"client-key-data"`
		} `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
}

// current returns the server, CA and client key pair of the current context.
func (k kubeconfigFile) current() (server string, ca []byte, cert tls.Certificate, err error) {
	for _, c := range k.Contexts {
		if c.Name != k.CurrentContext {
			continue
		}
		for _, cl := range k.Clusters {
			if cl.Name == c.Context.Cluster {
				server, ca = cl.Cluster.Server, cl.Cluster.CertificateAuthorityData
			}
		}
		for _, u := range k.Users {
			if u.Name == c.Context.User {
				cert, err = tls.X509KeyPair(u.User.ClientCertificateData, u.User.ClientKeyData)
				if err != nil {
					return "", nil, cert, fmt.Errorf("user %s: client certificate and key do not match: %w", u.Name, err)
				}
				cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0])
				if err != nil {
					return "", nil, cert, err
				}
			}
		}
		if server == "" || len(ca) == 0 || cert.Leaf == nil {
			return "", nil, cert, fmt.Errorf("context %s lacks a server, a CA or a client certificate", c.Name)
		}
		return server, ca, cert, nil
	}
	return "", nil, cert, fmt.Errorf("no context %q", k.CurrentContext)
}

// parseKubeconfig reads a kubeconfig from a Secret's key.
func parseKubeconfig(b []byte) (kubeconfigFile, error) {
	var k kubeconfigFile
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return k, err
	}
	return k, json.Unmarshal(j, &k)
}

// pool returns a certificate pool of every PEM certificate in b.
func pool(b []byte) *x509.CertPool {
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(b)
	return p
}

// chain returns the certificates after the first of a PEM bundle (what a TLS server sends
// as intermediates).
func chain(b []byte) *x509.CertPool {
	p := x509.NewCertPool()
	first := true
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return p
		}
		if first {
			first = false
			continue
		}
		if c, err := x509.ParseCertificate(blk.Bytes); err == nil {
			p.AddCert(c)
		}
	}
}

// leaf parses the first certificate of a PEM bundle.
func leaf(b []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(blk.Bytes)
}

// offerSelfService does the platform team's part of self-service for user in namespace ns:
// the namespace (enforcing Pod Security restricted), install/tenant-clusterrole.yaml, examples/installation's ClusterIssuer and
// issuer policy, and Kubernetes' edit role for user. It returns a function that prefixes kubectl arguments with
// --as=user, once the aggregated rules let user create KcpInstallations.
func offerSelfService(ctx context.Context, t *testing.T, e *env, ns, user string) func(args ...string) []string {
	t.Helper()
	for _, args := range [][]string{
		{"create", "namespace", ns},
		append([]string{"label", "namespace", ns}, restrictedLabels...),
		{"apply", "-f", filepath.Join(e.root, "install", "tenant-clusterrole.yaml")},
		{"apply", "-f", filepath.Join(e.root, "examples", "installation", "clusterissuer.yaml")},
		{"apply", "-f", filepath.Join(e.root, "examples", "installation", "policy.yaml")},
		{"create", "rolebinding", user + "-edit", "-n", ns, "--clusterrole=edit", "--user=" + user},
	} {
		if _, err := e.Kubectl(ctx, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	as := func(args ...string) []string { return append([]string{"--as=" + user}, args...) }
	err := e.Eventually(ctx, timeout, user+" may create kcpinstallations in "+ns, func(ctx context.Context) (bool, string, error) {
		out, _ := e.Kubectl(ctx, nil, as("auth", "can-i", "create", "kcpinstallations.kcp.crossplane.io", "-n", ns)...)
		got := strings.TrimSpace(string(out))
		return got == "yes", "kubectl auth can-i says " + got, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// installationKinds are the kinds a KcpInstallation composes, directly or through its XRs.
var installationKinds = append([]string{
	"kcpinstallations.kcp.crossplane.io", "rootshards.kcp.crossplane.io", "shards.kcp.crossplane.io",
	"cacheservers.kcp.crossplane.io", "frontproxies.kcp.crossplane.io", "kubeconfigs.kcp.crossplane.io",
	"statefulsets.apps", "cronjobs.batch",
}, composedKinds...)

// waitInstallationGone waits until nothing Crossplane composed for an installation is left in
// the namespace.
func waitInstallationGone(ctx context.Context, e *env, ns string) error {
	return e.Eventually(ctx, timeout, "everything composed in "+ns+" deleted", func(ctx context.Context) (bool, string, error) {
		left, err := composed(ctx, e, ns, installationKinds...)
		return len(left) == 0, fmt.Sprintf("%d left: %v", len(left), keys(left)), err
	})
}

// adminClientCert returns the client certificate of an installation's admin kubeconfig.
func adminClientCert(ctx context.Context, t *testing.T, e *env, ns, installation string) tls.Certificate {
	t.Helper()
	_, _, cert := kubeconfigSecret(ctx, t, e, ns, installation+"-admin-kubeconfig")
	return cert
}

// kubeconfigSecret reads the kubeconfig in a Secret: its current context's server, CA and
// client certificate.
func kubeconfigSecret(ctx context.Context, t *testing.T, e *env, ns, name string) (server string, ca []byte, cert tls.Certificate) {
	t.Helper()
	data, err := e.SecretData(ctx, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	k, err := parseKubeconfig(data["kubeconfig"])
	if err != nil {
		t.Fatal(err)
	}
	server, ca, cert, err = k.current()
	if err != nil {
		t.Fatal(err)
	}
	return server, ca, cert
}
