package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// tenantRoleFiles are the roles a platform grants tenants: every kind they let a tenant
// write must have a row in policy.TenantKinds.
var tenantRoleFiles = []string{"tenant-role.yaml", "tenant-clusterrole.yaml"}

// writeVerbs are the verbs that let a tenant make an XR say something.
var writeVerbs = []string{"create", "update", "patch", "*"}

// writableResources lists the kcp.crossplane.io resources the ClusterRoles of an install/
// file let their holder write. A wildcard is reported as "*": no row can hold it.
func writableResources(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "install", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var r rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, rule := range r.Rules {
			if !slices.Contains(rule.APIGroups, v1alpha1.Group) && !slices.Contains(rule.APIGroups, "*") {
				continue
			}
			if !slices.ContainsFunc(rule.Verbs, func(v string) bool { return slices.Contains(writeVerbs, v) }) {
				continue
			}
			out = append(out, rule.Resources...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// testNames lists every Test function of the function's packages.
func testNames(t *testing.T) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			out[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTenantKinds holds policy.TenantKinds, the table of every kind a tenant can write and
// how the certificates it causes are held, to the roles the platform grants tenants: a kind
// the roles let a tenant write without a row, or a row for a kind they do not, fails; so
// does a row whose kind the function does not compose, or whose tests are gone.
func TestTenantKinds(t *testing.T) {
	rows := map[string]policy.TenantKind{}
	for _, k := range policy.TenantKinds {
		rows[k.Resource] = k
	}
	tests := testNames(t)
	for _, file := range tenantRoleFiles {
		t.Run(file, func(t *testing.T) {
			if diff := cmp.Diff(slices.Sorted(maps.Keys(rows)), writableResources(t, file)); diff != "" {
				t.Errorf("install/%s lets tenants write kinds that policy.TenantKinds does not hold (+), or no longer does (-): add or remove the row, saying how every certificate the kind can cause is held:\n%s", file, diff)
			}
		})
	}
	table := newTable()
	for _, k := range policy.TenantKinds {
		if _, ok := table[k.Kind]; !ok {
			t.Errorf("policy.TenantKinds row %s: the function composes no kind %s", k.Resource, k.Kind)
		}
		if k.Certificates == "" || len(k.Tests) == 0 {
			t.Errorf("policy.TenantKinds row %s: say how its certificates are held and which tests prove it", k.Resource)
		}
		for _, name := range k.Tests {
			if !tests[name] {
				t.Errorf("policy.TenantKinds row %s names test %s, which does not exist", k.Resource, name)
			}
		}
	}
}

// hostileKubeconfig is benchKubeconfigXR with a certificate template spec.
func hostileKubeconfig(templateSpec string) string {
	return strings.Replace(benchKubeconfigXR, `"secretRef":{"name":"admin-kubeconfig"}`, `"secretRef":{"name":"admin-kubeconfig"},"certificateTemplate":{"spec":`+templateSpec+`}`, 1)
}

// policyWith is the platform's policy with data.
func policyWith(data map[string]any) map[string]any {
	return map[string]any{"apiVersion": policy.APIVersion, "kind": policy.Kind, "metadata": map[string]any{"name": policy.Name}, "data": data}
}

// TestHostileTemplatesThroughTheRequirementLoop drives Kubeconfigs with certificate
// templates through Crossplane's requirement loop: the refusal is on the response Crossplane
// acts on, and a Kubeconfig without such a template never asks for the policy.
func TestHostileTemplatesThroughTheRequirementLoop(t *testing.T) {
	systemMasters := `{"issuerRef":{"name":"corp-root-ca","kind":"ClusterIssuer","group":"cert-manager.io"},"subject":{"organizations":["system:masters"]}}`
	cases := map[string]struct {
		reason string
		xr     string
		world  []map[string]any
		fatal  []string // substrings of the Fatal result; none for none
		// cert checks the composed Certificate's spec when nothing is refused.
		cert func(spec map[string]any) string
		// policy is whether the response requires the policy.
		policy bool
	}{
		"Plain": {
			reason: "A Kubeconfig without a template composes as it always did, without reading the policy.",
			xr:     benchKubeconfigXR,
			world:  kubeconfigWorld(t),
		},
		"SystemMastersFromTheCorporateCA": {
			reason: "A tenant's Kubeconfig asking the corporate CA for system:masters: refused, naming both fields, the policy and the fixes.",
			xr:     hostileKubeconfig(systemMasters),
			world:  append(kubeconfigWorld(t), selfServicePolicy),
			fatal: []string{
				"invalid Kubeconfig kcp/admin, nothing was changed: ",
				"spec.certificateTemplate.spec.subject: Forbidden: Kubeconfigs in namespace kcp, a tenant's namespace, may not choose its subject (the organizations are kcp groups) of the certificate: set the groups in spec.groups",
				"spec.certificateTemplate.spec.issuerRef: Forbidden: ClusterIssuer corp-root-ca (group cert-manager.io) is not allowed for Kubeconfigs in namespace kcp by the platform's policy (EnvironmentConfig kcp-self-service, data.issuers)",
			},
		},
		"NoPolicyObject": {
			reason: "Without a policy object the namespace is a tenant's.",
			xr:     hostileKubeconfig(`{"dnsNames":["kcp.example.com"]}`),
			world:  kubeconfigWorld(t),
			fatal:  []string{"spec.certificateTemplate.spec.dnsNames: Forbidden: Kubeconfigs in namespace kcp, a tenant's namespace, may not choose DNS names"},
		},
		"PlatformNamespace": {
			reason: "The platform lists the namespace as its own: the template passes as kcp-operator passes it.",
			xr:     hostileKubeconfig(systemMasters),
			world:  append(kubeconfigWorld(t), policyWith(map[string]any{"platformNamespaces": []any{"kcp"}})),
			policy: true,
			cert: func(spec map[string]any) string {
				orgs := spec["subject"].(map[string]any)["organizations"].([]any)
				if !slices.Contains(orgs, any("system:masters")) || spec["issuerRef"].(map[string]any)["name"] != "corp-root-ca" {
					return "the platform's template must reach the Certificate"
				}
				return ""
			},
		},
		"FieldsTheAPIDoesNotHave": {
			reason: "isCA, usages and commonName are no fields of the template: the XRD prunes them, and the function's typed decoding drops them, so they never reach the Certificate.",
			xr:     hostileKubeconfig(`{"isCA":true,"usages":["server auth","cert sign"],"commonName":"system:admin","uris":["spiffe://x"]}`),
			world:  kubeconfigWorld(t),
			cert: func(spec map[string]any) string {
				if spec["isCA"] != nil || spec["commonName"] != "kcp-admin" || spec["uris"] != nil || !cmp.Equal(spec["usages"], []any{"client auth"}) {
					return "the Certificate must be the plain client certificate"
				}
				return ""
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := reconcile(t, fnrequest.New(tc.xr), tc.world)
			var fatal string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatal = r.GetMessage()
				}
			}
			for _, want := range tc.fatal {
				if !strings.Contains(fatal, want) {
					t.Errorf("%s\nfatal result:\n got: %q\nwant: ...%q...", tc.reason, fatal, want)
				}
			}
			if len(tc.fatal) > 0 {
				return
			}
			if fatal != "" {
				t.Fatalf("%s\nfatal result: %s", tc.reason, fatal)
			}
			if _, got := rsp.GetRequirements().GetResources()["environmentconfig/kcp-self-service"]; got != tc.policy {
				t.Errorf("%s\nthe policy is required: %v, want %v", tc.reason, got, tc.policy)
			}
			c := rsp.GetDesired().GetResources()["certificate-kubeconfig-cert-admin"]
			if c == nil {
				t.Fatalf("%s\nno Certificate composed: %v", tc.reason, slices.Sorted(maps.Keys(rsp.GetDesired().GetResources())))
			}
			if tc.cert != nil {
				spec := c.GetResource().AsMap()["spec"].(map[string]any)
				if msg := tc.cert(spec); msg != "" {
					t.Errorf("%s\n%s: %v", tc.reason, msg, spec)
				}
			}
		})
	}
}

// TestHostileTemplateKeepsWhatRuns: a converged Kubeconfig turned hostile. Before Crossplane
// has answered the policy every object it composed is still desired, unchanged; once the
// policy is read it is refused (Fatal), on which Crossplane applies and deletes nothing.
func TestHostileTemplateKeepsWhatRuns(t *testing.T) {
	world := kubeconfigWorld(t)
	before := convergedRequest(t, benchKubeconfigXR, world...)
	want := run(t, proto.Clone(before).(*fnv1.RunFunctionRequest)).GetDesired().GetResources()

	hostile := proto.Clone(before).(*fnv1.RunFunctionRequest)
	hostile.Observed.Composite = fnrequest.New(hostileKubeconfig(`{"subject":{"organizations":["system:masters"]},"dnsNames":["kcp.example.com"]}`)).GetObserved().GetComposite()
	rsp := run(t, hostile)
	if isFatal(rsp) {
		t.Fatalf("before the policy is read nothing is refused: %v", rsp.GetResults())
	}
	for key, r := range want {
		got, ok := rsp.GetDesired().GetResources()[key]
		if !ok {
			t.Errorf("%s is no longer desired: Crossplane would delete it", key)
			continue
		}
		if key == "secret-kubeconfig-cert-admin" {
			continue // adopted metadata-only, never as observed
		}
		// Kept as observed: the converged request observes exactly what was desired, so
		// only what the API server adds (the observed status) may differ.
		w, g := r.GetResource().AsMap(), got.GetResource().AsMap()
		delete(g, "status")
		delete(w, "status")
		if diff := cmp.Diff(w["spec"], g["spec"]); diff != "" {
			t.Errorf("%s changed before the policy was read: -before, +after:\n%s", key, diff)
		}
	}
	if _, ok := rsp.GetRequirements().GetResources()["environmentconfig/kcp-self-service"]; !ok {
		t.Errorf("the policy must be required")
	}

	rsp = reconcile(t, hostile, world)
	if !isFatal(rsp) || !strings.Contains(rsp.GetResults()[0].GetMessage(), "spec.certificateTemplate.spec.subject: Forbidden") {
		t.Errorf("once the policy is read the hostile Kubeconfig is refused, got %v", rsp.GetResults())
	}
}

// TestTenantIdentitiesArePrintable: every identity a tenant can put in a certificate, a
// Kubeconfig's user and groups and an installation's admin user and groups, holds only
// printable characters; a refusal names the field.
func TestTenantIdentitiesArePrintable(t *testing.T) {
	installation := func(admin string) string {
		return strings.Replace(tenantXR("kcp-selfsigned"), `"certificates":`, `"admin": `+admin+`, "certificates":`, 1)
	}
	cases := map[string]struct {
		reason string
		xr     string
		world  []map[string]any
		fatal  []string
	}{
		"KubeconfigUser": {
			reason: "A line break in the user forges a second line wherever it is logged.",
			xr:     strings.Replace(benchKubeconfigXR, `"username":"kcp-admin"`, `"username":"kcp-admin\nsystem:masters"`, 1),
			world:  kubeconfigWorld(t),
			fatal:  []string{`invalid Kubeconfig kcp/admin, nothing was changed: spec.username: Invalid value: "kcp-admin\nsystem:masters": must hold only printable characters, and U+000A at byte 9 is not`},
		},
		"KubeconfigGroup": {
			reason: "A bidirectional override makes a group read as another.",
			xr:     strings.Replace(benchKubeconfigXR, `"groups":["system:kcp:admin"]`, `"groups":["ops\u202e"]`, 1),
			world:  kubeconfigWorld(t),
			fatal:  []string{`spec.groups[0]: Invalid value: "ops\u202e": must hold only printable characters, and U+202E at byte 3 is not`},
		},
		"InstallationAdmin": {
			reason: "An installation's admin user reaches its admin Kubeconfig's certificate: refused on spec.admin.",
			xr:     installation(`{"username": "kcp\u001b[2Jadmin", "groups": ["admins"]}`),
			world:  []map[string]any{selfServicePolicy},
			fatal:  []string{"invalid KcpInstallation team-a/dev, nothing was changed: spec.admin: Invalid value:", "spec.username: Invalid value:", "U+001B at byte 3 is not"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := reconcile(t, fnrequest.New(tc.xr), tc.world)
			var fatal string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatal = r.GetMessage()
				}
			}
			for _, want := range tc.fatal {
				if !strings.Contains(fatal, want) {
					t.Errorf("%s\nfatal result:\n got: %q\nwant: ...%q...", tc.reason, fatal, want)
				}
			}
		})
	}
}
