// Package schema checks the XRDs in apis/ against a real kube-apiserver: every XRD converts to
// a CRD the server accepts and establishes (which compiles its CEL rules), every example XR
// is admitted, and invalid XRs are rejected with the message of the rule they break. Offline
// tools cannot check this: `crossplane xrd convert` accepts any rule text.
//
// Run it with `make e2e-schema`, which builds the binaries and exports their paths.
package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/cluster"
	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

const (
	group     = "kcp.crossplane.io"
	version   = "v1alpha1"
	namespace = "kcp"
)

func TestMain(m *testing.M) { os.Exit(cluster.RunInNetNS(m)) }

// crd is the part of a CustomResourceDefinition these tests read.
type crd struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
	} `json:"spec"`
}

func TestSchema(t *testing.T) {
	crossplane := os.Getenv("CROSSPLANE")
	if crossplane == "" {
		t.Fatal("CROSSPLANE is not set: run this test through make (make e2e-schema), which builds bin/crossplane and exports it")
	}
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.Start(t, cluster.FromEnv(t))

	plurals := map[string]string{} // kind -> plural, from the converted CRDs.
	if !t.Run("XRDsEstablished", func(t *testing.T) { testXRDs(t, c, crossplane, root, plurals) }) {
		t.Fatal("XRDs not established: skipping the XR cases")
	}
	if _, err := c.Kubectl(t.Context(), nil, "create", "namespace", namespace); err != nil {
		t.Fatal(err)
	}
	t.Run("ExamplesAccepted", func(t *testing.T) { testExamples(t, c, root, plurals) })
	t.Run("Validation", func(t *testing.T) { testValidation(t, c, plurals) })
	t.Run("VolumeTypesNotOffered", func(t *testing.T) { testVolumeTypesNotOffered(t, c) })
}

// testVolumeTypesNotOffered checks what the API server does with a volume type an
// installation's schema does not offer (only the types Pod Security "restricted" admits are):
// kubectl, which asks for strict field validation, is refused naming the field; a client that
// does not ask has the type dropped, which leaves the volume with its name alone, for the
// function to refuse (check.UntypedVolumes).
func testVolumeTypesNotOffered(t *testing.T, c *cluster.Cluster) {
	for _, kind := range []string{"KcpInstallation", "KcpInstallationClaim"} {
		t.Run(kind, func(t *testing.T) {
			manifest := []byte(`
apiVersion: kcp.crossplane.io/v1alpha1
kind: ` + kind + `
metadata: {name: node-mount, namespace: ` + namespace + `}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: Issuer, name: team-ca}
  rootShard:
    extra:
      volumes:
      - name: node
        hostPath: {path: /}
`)
			_, err := c.Kubectl(t.Context(), manifest, "create", "--dry-run=server", "-f", "-")
			if want := `unknown field "spec.rootShard.extra.volumes[0].hostPath"`; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("kubectl create (strict field validation): got %v, want an error with %s", err, want)
			}
			out, err := c.Kubectl(t.Context(), manifest, "create", "--dry-run=server", "--validate=false", "-o", "jsonpath={.spec.rootShard.extra.volumes}", "-f", "-")
			if err != nil {
				t.Fatalf("kubectl create --validate=false: %v", err)
			}
			if diff := cmp.Diff(`[{"name":"node"}]`, string(out)); diff != "" {
				t.Errorf("kubectl create --validate=false: the volume as stored, -want, +got:\n%s", diff)
			}
		})
	}
}

// testXRDs converts every apis/*/definition.yaml with `crossplane xrd convert`, applies the
// CRD and waits until it is Established.
func testXRDs(t *testing.T, c *cluster.Cluster, crossplane, root string, plurals map[string]string) {
	defs, err := filepath.Glob(filepath.Join(root, "apis", "*", "definition.yaml"))
	if err != nil || len(defs) == 0 {
		t.Fatalf("no apis/*/definition.yaml found under %s: %v", root, err)
	}
	out := filepath.Join(c.Dir, "crds")
	for _, def := range defs {
		name := filepath.Base(filepath.Dir(def))
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			crds, err := convertXRD(ctx, crossplane, def, filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range crds {
				if _, err := c.Kubectl(ctx, got.JSON, "apply", "--server-side", "--field-manager=e2e-schema", "-f", "-"); err != nil {
					t.Fatalf("the API server rejected the CRD converted from %s:\n%v", def, err)
				}
				if err := waitEstablished(ctx, c, got.Metadata.Name, time.Minute); err != nil {
					t.Fatal(err)
				}
				plurals[got.Spec.Names.Kind] = got.Spec.Names.Plural
			}
		})
	}
}

// convertedCRD is a CRD `crossplane xrd convert` wrote, as the API server is sent it.
type convertedCRD struct {
	crd
	// File is the CRD's YAML as converted.
	File string
	// JSON is the CRD without its owner reference, as applied.
	JSON []byte
}

// convertXRD converts an XRD to its CRDs with `crossplane xrd convert` into dir: the XR's
// and, when the XRD offers a claim, the claim's. Each CRD is also written to dir as
// <name>.applied.json, the JSON sent to the API server.
func convertXRD(ctx context.Context, crossplane, def, dir string) ([]convertedCRD, error) {
	if b, err := exec.CommandContext(ctx, crossplane, "xrd", "convert", def, "--output-dir", dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("crossplane xrd convert %s: %w\n%s", def, err, b)
	}
	// A v1 XRD that offers a claim converts to the XR's CRD and the claim's.
	want := 1
	if src, err := os.ReadFile(def); err == nil && bytes.Contains(src, []byte("\n  claimNames:")) {
		want = 2
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != want {
		return nil, fmt.Errorf("crossplane xrd convert %s wrote %d CRDs, want %d: %v", def, len(files), want, files)
	}
	out := make([]convertedCRD, 0, len(files))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		got := convertedCRD{File: file}
		if err := yaml.Unmarshal(b, &got.crd); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if got.Spec.Group != group {
			return nil, fmt.Errorf("%s: group %q, want %q", file, got.Spec.Group, group)
		}
		// The converted CRD is owned by its XRD, whose uid is empty outside a cluster
		// running Crossplane; the server rejects an empty uid, so drop the owner.
		if got.JSON, err = withoutOwnerReferences(b); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if err := os.WriteFile(strings.TrimSuffix(file, ".yaml")+".applied.json", got.JSON, 0o644); err != nil {
			return nil, err
		}
		out = append(out, got)
	}
	return out, nil
}

// waitEstablished polls a CRD until its Established condition is True. (kubectl wait fails
// instead of waiting when it reads the CRD before the server has set any condition.)
func waitEstablished(ctx context.Context, c *cluster.Cluster, name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		out, err := c.Kubectl(ctx, nil, "get", "crd", name, "-o", "jsonpath={.status.conditions}")
		if err != nil {
			return err
		}
		var conds []struct {
			Type, Status, Reason, Message string
		}
		if len(bytes.TrimSpace(out)) > 0 {
			if err := json.Unmarshal(out, &conds); err != nil {
				return fmt.Errorf("CRD %s conditions %s: %w", name, out, err)
			}
		}
		for _, c := range conds {
			if c.Type == "Established" && c.Status == "True" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("CRD %s not Established after %s; conditions: %s", name, timeout, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// withoutOwnerReferences returns a YAML object as JSON, without metadata.ownerReferences.
func withoutOwnerReferences(y []byte) ([]byte, error) {
	var obj map[string]any
	if err := yaml.Unmarshal(y, &obj); err != nil {
		return nil, err
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "ownerReferences")
	}
	return json.Marshal(obj)
}

// testExamples admits every XR (group kcp.crossplane.io) of examples/*/*.yaml, and the claim
// of docs/self-service.md, with a
// server-side dry-run apply, and checks that every kind has at least one example.
func testExamples(t *testing.T, c *cluster.Cluster, root string, plurals map[string]string) {
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples/*/*.yaml found under %s: %v", root, err)
	}
	// A claim is not an XR, so no example renders it: the self-service guide shows it.
	files = append(files, filepath.Join(root, "docs", "self-service.md"))
	seen := map[string]bool{
		// Crossplane creates ClaimedKcpInstallations for claims; nobody writes one.
		"ClaimedKcpInstallation": true,
	}
	for _, f := range files {
		var docs [][]byte
		if strings.HasSuffix(f, ".md") {
			docs, err = markdownDocs(f)
		} else {
			docs, err = readDocs(f)
		}
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join(root, "examples"), f)
		for _, doc := range docs {
			var obj struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(doc, &obj); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			if !strings.HasPrefix(obj.APIVersion, group+"/") {
				continue
			}
			seen[obj.Kind] = true
			t.Run(rel+"/"+obj.Kind+"/"+obj.Metadata.Name, func(t *testing.T) {
				if _, ok := plurals[obj.Kind]; !ok {
					t.Fatalf("kind %s has no XRD in apis/", obj.Kind)
				}
				if obj.Metadata.Namespace != "" && obj.Metadata.Namespace != namespace {
					if _, err := c.Kubectl(t.Context(), nil, "create", "namespace", obj.Metadata.Namespace); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
						t.Fatal(err)
					}
				}
				if _, err := c.Kubectl(t.Context(), doc, "apply", "--server-side", "--dry-run=server", "--field-manager=e2e-schema", "-f", "-"); err != nil {
					t.Errorf("the API server rejected %s %s from examples/%s:\n%v", obj.Kind, obj.Metadata.Name, rel, err)
				}
			})
		}
	}
	var missing []string
	for kind := range plurals {
		// CertificateSet and TenantRequest are internal: RootShards and Shards compose the
		// one, a shared installation's team Kubeconfigs and Workspaces the other; users never
		// write one, and the e2e admits every one they compose.
		if !seen[kind] && kind != "CertificateSet" && kind != "TenantRequest" {
			missing = append(missing, kind)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("kinds without an example in examples/*/*.yaml: %v", missing)
	}
}

// cause is the part of a rejection these tests compare: the field and the server's message.
type cause struct {
	Field   string
	Message string
}

// testValidation creates XRs with a server-side dry run (nothing is stored) and compares the
// causes of the rejection with the CEL or OpenAPI rule the XR breaks; want nil means the XR
// must be admitted.
func testValidation(t *testing.T, c *cluster.Cluster, plurals map[string]string) {
	cases := map[string]struct {
		reason   string
		manifest string
		want     []cause
	}{
		"RootShardIssuerRefAndCASecretRef": {
			reason: "The root CA comes either from a cert-manager issuer or from an existing Secret, not both.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata: {name: both-cas}
spec:
  external: {hostname: api.example.com, port: 6443}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
    caSecretRef: {name: kcp-root-ca}
  cache: {}
  etcd: {endpoints: ["http://etcd:2379"]}
`,
			want: []cause{{Field: "spec.certificates", Message: `Invalid value: set either issuerRef or caSecretRef, not both`}},
		},
		"KcpInstallationManagedAndExternalEtcd": {
			reason: "An installation's etcd is managed, external or kcp's embedded one.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: two-etcds}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  etcd:
    managed: {}
    external: {endpoints: ["http://etcd:2379"]}
`,
			want: []cause{{Field: "spec.etcd", Message: `Invalid value: set one of etcd.managed, etcd.external and etcd.embedded.`}},
		},
		"KcpInstallationRestoreOutsideTheBackups": {
			reason: "A restore names a snapshot file of the backups' volume, <cluster>/<file>.db: no path out of it.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: restore-escape}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  etcd:
    managed:
      backup: {volume: {claimName: backups}}
      restore: {snapshot: ../../etc/passwd.db}
`,
			want: []cause{{Field: "spec.etcd.managed.restore.snapshot", Message: `Invalid value: "../../etc/passwd.db": spec.etcd.managed.restore.snapshot in body should match '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?/[A-Za-z0-9][A-Za-z0-9._-]*\.db$'`}},
		},
		"KcpInstallationPodsAsRoot": {
			reason: "A component's pods never run as root's user or group, whatever a tenant writes.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: as-root}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  etcd:
    managed: {}
  rootShard:
    extra:
      securityContext: {runAsUser: 0}
`,
			want: []cause{{Field: "spec.rootShard.extra.securityContext.runAsUser", Message: `Invalid value: 0: spec.rootShard.extra.securityContext.runAsUser in body should be greater than or equal to 1`}},
		},
		"KcpInstallationManagedAndEmbeddedEtcd": {
			reason: "A development installation runs kcp's embedded etcd instead of a managed one, not beside it.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: two-etcds}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  etcd:
    managed: {}
    embedded: true
`,
			want: []cause{{Field: "spec.etcd", Message: `Invalid value: set one of etcd.managed, etcd.external and etcd.embedded.`}},
		},
		"KcpInstallationShardWithTwoEtcds": {
			reason: "A shard's own etcd is either external or managed.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: shard-two-etcds}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  shards:
  - name: alpha
    etcd: {endpoints: ["http://etcd:2379"]}
    managedEtcd: {replicas: 3}
`,
			want: []cause{{Field: "spec.shards[0]", Message: `Invalid value: set either etcd (external) or managedEtcd for a shard, not both.`}},
		},
		"RootShardOIDCAndStructuredAuthentication": {
			reason: "kcp refuses --oidc-* flags beside --authentication-config.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata: {name: two-authns}
spec:
  external: {hostname: api.example.com, port: 6443}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  cache: {}
  etcd: {endpoints: ["http://etcd:2379"]}
  auth:
    serviceAccount: {enabled: true}
    oidc: {issuerURL: "https://sso.example.com", clientID: kcp}
    authenticationConfiguration: {name: kcp-authn, key: config.yaml}
`,
			want: []cause{{Field: "spec.auth", Message: `Invalid value: set either oidc or authenticationConfiguration, not both: kcp refuses --oidc-* flags beside --authentication-config.`}},
		},
		"KubeconfigServerNotHTTPS": {
			reason: "kcp serves only TLS: a kubeconfig's server is an https URL.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: http-server}
spec:
  target: {rootShardRef: {name: root}}
  username: alice
  validity: 24h
  secretRef: {name: alice}
  server: http://kcp.example.com
`,
			want: []cause{{Field: "spec.server", Message: `Invalid value: "http://kcp.example.com": spec.server in body should match '^https://'`}},
		},
		"KcpInstallationMonitoringInterval": {
			reason: "A scrape interval is a Prometheus duration, as prometheus-operator's PodMonitor requires.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: bad-interval}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  monitoring: {enabled: true, interval: 30sec}
`,
			want: []cause{{Field: "spec.monitoring.interval", Message: `Invalid value: "30sec": spec.monitoring.interval in body should match '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'`}},
		},
		"KcpInstallationTwoEtcdMembers": {
			reason: "Two etcd members tolerate no more failures than one: 1 or 3.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: KcpInstallation
metadata: {name: two-members}
spec:
  external: {hostname: kcp.example.com}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  etcd:
    managed: {replicas: 2}
`,
			want: []cause{
				{Field: "spec.etcd.managed.replicas", Message: `Unsupported value: 2: supported values: "1", "3"`},
				// The replicas transition rule is not evaluated on an invalid value.
				{Field: "<nil>", Message: "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"},
			},
		},
		"RootShardImageTagWithColon": {
			reason: "An image tag cannot contain a colon (it would be read as a second tag or a digest).",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata: {name: bad-tag}
spec:
  external: {hostname: api.example.com, port: 6443}
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
  cache: {}
  etcd: {endpoints: ["http://etcd:2379"]}
  image: {tag: "v0.32.3:latest"}
`,
			want: []cause{{Field: "spec.image.tag", Message: `Invalid value: "v0.32.3:latest": spec.image.tag in body should match '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$'`}},
		},
		"CacheServerReplicasWithoutEtcd": {
			reason: "The embedded etcd of a cache server cannot be shared by more than one replica.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: CacheServer
metadata: {name: two-replicas}
spec:
  replicas: 2
  certificates:
    issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: kcp-selfsigned}
`,
			want: []cause{{Field: "spec", Message: `Invalid value: etcd must be specified when replicas > 1`}},
		},
		"CacheServerWithoutIssuerRef": {
			reason: "The cache server's CA must be issued by cert-manager.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: CacheServer
metadata: {name: no-issuer}
spec:
  certificates:
    caSecretRef: {name: cache-ca}
`,
			want: []cause{{Field: "spec", Message: `Invalid value: the cache server's CA must be issued by cert-manager: set certificates.issuerRef`}},
		},
		"CacheServerEmptyCertificates": {
			reason: "An empty certificates block has no issuerRef either.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: CacheServer
metadata: {name: empty-certificates}
spec:
  certificates: {}
`,
			want: []cause{{Field: "spec", Message: `Invalid value: the cache server's CA must be issued by cert-manager: set certificates.issuerRef`}},
		},
		"KubeconfigTwoTargets": {
			reason: "A kubeconfig reaches exactly one RootShard, Shard or FrontProxy.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: two-targets}
spec:
  target:
    rootShardRef: {name: root}
    frontProxyRef: {name: frontproxy}
  username: admin
  validity: 8760h
  secretRef: {name: admin-kubeconfig}
`,
			want: []cause{{Field: "spec.target", Message: `Invalid value: set exactly one of rootShardRef, shardRef, frontProxyRef or referenceSecretRef`}},
		},
		"KubeconfigNoTarget": {
			reason: "A kubeconfig needs a target.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: no-target}
spec:
  target: {}
  username: admin
  validity: 8760h
  secretRef: {name: admin-kubeconfig}
`,
			want: []cause{{Field: "spec.target", Message: `Invalid value: set exactly one of rootShardRef, shardRef, frontProxyRef or referenceSecretRef`}},
		},
		"KubeconfigTargetWorkspaceAndCluster": {
			reason: "targetWorkspace replaces the deprecated authorization.clusterRoleBindings.cluster; both is ambiguous.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: workspace-and-cluster}
spec:
  target:
    frontProxyRef: {name: frontproxy}
  targetWorkspace: root:team
  username: admin
  validity: 8760h
  secretRef: {name: admin-kubeconfig}
  authorization:
    clusterRoleBindings:
      cluster: root:other
      clusterRoles: [cluster-admin]
`,
			want: []cause{{Field: "spec", Message: `Invalid value: Cannot set both targetWorkspace and authorization.clusterRoleBindings.cluster. Use targetWorkspace only.`}},
		},
		"KubeconfigTargetWorkspaceAndClusterRoles": {
			reason: "targetWorkspace with authorization but without the deprecated cluster is fine (the rule must not fail on the absent field).",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: Kubeconfig
metadata: {name: workspace-and-roles}
spec:
  target:
    frontProxyRef: {name: frontproxy}
  targetWorkspace: root:team
  username: admin
  validity: 8760h
  secretRef: {name: admin-kubeconfig}
  authorization:
    clusterRoleBindings:
      clusterRoles: [cluster-admin]
`,
		},
		"FrontProxyExternalHostnameAndExternal": {
			reason: "The deprecated externalHostname and external.hostname say the same thing; both is ambiguous.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: two-hostnames}
spec:
  rootShard: {ref: {name: root}}
  externalHostname: api.example.com
  external: {hostname: api.example.com, port: 6443}
`,
			want: []cause{{Field: "spec", Message: `Invalid value: Cannot set both ExternalHostname (deprecated) and External.hostname. Use External.hostname only.`}},
		},
		"FrontProxyExternalHostnameOnly": {
			reason: "The deprecated externalHostname alone is accepted (the rule must not fail on the absent external).",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: deprecated-hostname}
spec:
  rootShard: {ref: {name: root}}
  externalHostname: api.example.com:6443
`,
		},
		"FrontProxyOIDCWithoutServiceAccount": {
			reason: "OIDC on the front-proxy requires service account authentication.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: oidc-no-sa}
spec:
  rootShard: {ref: {name: root}}
  external: {hostname: api.example.com, port: 6443}
  auth:
    oidc: {issuerURL: "https://login.example.com", clientID: kcp}
`,
			want: []cause{{Field: "spec.auth", Message: `Invalid value: OIDC requires ServiceAccount auth to be enabled.`}},
		},
		"FrontProxyOIDCWithServiceAccountDisabled": {
			reason: "A disabled serviceAccount block does not satisfy the OIDC rule.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: oidc-sa-disabled}
spec:
  rootShard: {ref: {name: root}}
  external: {hostname: api.example.com, port: 6443}
  auth:
    oidc: {issuerURL: "https://login.example.com", clientID: kcp}
    serviceAccount: {enabled: false}
`,
			want: []cause{{Field: "spec.auth", Message: `Invalid value: OIDC requires ServiceAccount auth to be enabled.`}},
		},
		"FrontProxyOIDCWithServiceAccount": {
			reason: "OIDC with service account authentication enabled is accepted.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: FrontProxy
metadata: {name: oidc-sa}
spec:
  rootShard: {ref: {name: root}}
  external: {hostname: api.example.com, port: 6443}
  auth:
    oidc: {issuerURL: "https://login.example.com", clientID: kcp}
    serviceAccount: {enabled: true}
`,
		},
		"VirtualWorkspaceRootShardAndShard": {
			reason: "A virtual workspace server serves exactly one shard.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: VirtualWorkspace
metadata: {name: two-shards}
spec:
  target:
    rootShardRef: {name: root}
    shardRef: {name: shard-1}
  external: {hostname: vw.example.com, port: 6443}
`,
			want: []cause{{Field: "spec.target", Message: `Invalid value: Must specify exactly one of rootShardRef or shardRef`}},
		},
		"VirtualWorkspaceShard": {
			reason: "A shardRef alone is accepted.",
			manifest: `
apiVersion: kcp.crossplane.io/v1alpha1
kind: VirtualWorkspace
metadata: {name: shard-vw}
spec:
  target:
    shardRef: {name: shard-1}
  external: {hostname: vw.example.com, port: 6443}
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := dryRunCreate(t.Context(), c, plurals, tc.manifest)
			if err != nil {
				t.Fatalf("%s\n%v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got.causes); diff != "" {
				t.Errorf("%s\ndry-run create: -want causes, +got causes:\n%s\nserver: HTTP %d %s", tc.reason, diff, got.code, got.message)
			}
		})
	}
}

// result is the server's answer to a create.
type result struct {
	code    int
	message string
	causes  []cause
}

// dryRunCreate POSTs the manifest with dryRun=All to the namespace kcp and returns the
// causes of a rejection (none when the server admits it). An error means neither: the
// request failed, or the server answered with something other than 201 or 422.
func dryRunCreate(ctx context.Context, c *cluster.Cluster, plurals map[string]string, manifest string) (result, error) {
	body, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		return result{}, fmt.Errorf("test manifest: %w", err)
	}
	var obj struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		return result{}, err
	}
	plural, ok := plurals[obj.Kind]
	if !ok {
		return result{}, fmt.Errorf("no CRD for kind %q", obj.Kind)
	}
	url := fmt.Sprintf("%s/apis/%s/%s/namespaces/%s/%s?dryRun=All&fieldManager=e2e-schema", c.URL, group, version, namespace, plural)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return result{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close() //nolint:errcheck // Read-only.
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	r := result{code: resp.StatusCode}
	switch resp.StatusCode {
	case http.StatusCreated, http.StatusOK:
		r.message = "admitted"
		return r, nil
	case http.StatusUnprocessableEntity:
		var s metav1.Status
		if err := json.Unmarshal(b, &s); err != nil {
			return r, fmt.Errorf("HTTP %d with an unreadable Status: %w: %s", resp.StatusCode, err, b)
		}
		r.message = s.Message
		if s.Details != nil {
			for _, sc := range s.Details.Causes {
				r.causes = append(r.causes, cause{Field: sc.Field, Message: sc.Message})
			}
		}
		return r, nil
	default:
		return r, fmt.Errorf("unexpected HTTP %d from %s: %s", resp.StatusCode, url, b)
	}
}

// readDocs returns the YAML documents of a file as JSON, skipping empty ones.
// markdownDocs returns the manifests of a Markdown file's yaml blocks.
func markdownDocs(path string) ([][]byte, error) {
	blocks, err := markdown.Blocks(path, "yaml")
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, block := range blocks {
		d, err := decodeDocs(strings.NewReader(block), path)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

func readDocs(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // Read-only.
	return decodeDocs(f, path)
}

// decodeDocs decodes every non-empty YAML or JSON document of r.
func decodeDocs(r io.Reader, path string) ([][]byte, error) {
	var docs [][]byte
	d := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	for {
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		docs = append(docs, raw)
	}
}
