package main

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// namesSpec is team a's running installation dev: its own names under team-a.example.com,
// with a certificate from the ACME ClusterIssuer the platform allows the namespace, a wildcard
// included, and a public root shard.
func namesSpec() map[string]any {
	return map[string]any{
		"external":     map[string]any{"hostname": "kcp.team-a.example.com"},
		"certificates": map[string]any{"issuerRef": map[string]any{"name": "team-ca", "kind": "Issuer"}},
		"frontProxies": []any{map[string]any{"name": "public", "serverCertificate": map[string]any{
			"issuerRef": map[string]any{"name": "letsencrypt", "kind": "ClusterIssuer"},
			"dnsNames":  []any{"kcp.team-a.example.com", "*.team-a.example.com"},
		}}},
		"rootShard": map[string]any{"public": map[string]any{"hostname": "root.team-a.example.com"}},
	}
}

// namesXR is the installation dev of namespace team-a with spec.
func namesXR(t *testing.T, spec map[string]any) string {
	t.Helper()
	xr := map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation",
		"metadata": map[string]any{"name": "dev", "namespace": "team-a", "uid": "dev-uid", "creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec":     spec}
	b, err := json.Marshal(xr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// namesWorld is what the cluster holds besides team a's installation: the platform's policy,
// which allows the namespace an ACME ClusterIssuer and reserves the platform's names, and
// team b's installation prod, whose XRs carry the labels installations write.
func namesWorld() []map[string]any {
	zone := kcpinstallation.LabelZonePrefix + "team-b.example.com"
	xr := func(kind, name string, spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": "team-b", "creationTimestamp": "2025-06-01T00:00:00Z",
				"labels":          map[string]any{zone: "true", kcpinstallation.LabelInstallation: "prod"},
				"ownerReferences": []any{map[string]any{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "name": "prod", "uid": "prod-uid", "controller": true}}},
			"spec": spec}
	}
	return []map[string]any{
		{"apiVersion": policy.APIVersion, "kind": policy.Kind, "metadata": map[string]any{"name": policy.Name}, "data": map[string]any{
			"issuers":   []any{map[string]any{"kind": "ClusterIssuer", "name": "letsencrypt", "namespaces": []any{"team-a", "team-b"}}},
			"hostnames": map[string]any{"reserved": []any{"kcp.example.com", "*.platform.example.com"}},
		}},
		xr("RootShard", "prod", map[string]any{"external": map[string]any{"hostname": "kcp.team-b.example.com", "port": 443},
			"public": map[string]any{"hostname": "root.team-b.example.com"}}),
		xr("VirtualWorkspace", "prod-vw", map[string]any{"external": map[string]any{"hostname": "vw.team-b.example.com", "port": 443}}),
		xr("FrontProxy", "prod-public", map[string]any{"external": map[string]any{"hostname": "kcp.team-b.example.com", "port": 443},
			"publicServerCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt"}, "dnsNames": []any{"kcp.team-b.example.com", "api.team-b.example.com"}}}),
	}
}

// runAnswered runs req as Crossplane does: while the response asks for what the request did
// not answer, it answers from world (by kind, name, labels and namespace) and runs again.
func runAnswered(t *testing.T, req *fnv1.RunFunctionRequest, world []map[string]any) *fnv1.RunFunctionResponse {
	t.Helper()
	for range 5 {
		rsp := run(t, req)
		asked := rsp.GetRequirements().GetResources()
		var missing []string
		for k := range asked {
			if _, ok := req.GetRequiredResources()[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			return rsp
		}
		if req.RequiredResources == nil {
			req.RequiredResources = map[string]*fnv1.Resources{}
		}
		for _, k := range missing {
			req.RequiredResources[k] = &fnv1.Resources{Items: matching(t, asked[k], world)}
		}
	}
	t.Fatal("the requirements did not settle in 5 calls")
	return nil
}

// matching are the objects of world a selector selects.
func matching(t *testing.T, sel *fnv1.ResourceSelector, world []map[string]any) []*fnv1.Resource {
	t.Helper()
	var out []*fnv1.Resource
	for _, o := range world {
		md := o["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		if o["kind"] != sel.GetKind() || (sel.Namespace != nil && md["namespace"] != sel.GetNamespace()) {
			continue
		}
		if n := sel.GetMatchName(); n != "" && md["name"] != n {
			continue
		}
		ok := true
		for k, v := range sel.GetMatchLabels().GetLabels() {
			ok = ok && labels[k] == v
		}
		if !ok {
			continue
		}
		s, err := fnrequest.Struct(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &fnv1.Resource{Resource: s})
	}
	return out
}

// TestHostileNamesKeepWhatRuns drives, through RunFunction with the real table of kinds and
// Crossplane's answers to every requirement, the edits of a team that has an ACME issuer the
// policy allows and wants a publicly trusted certificate, or a route, for a name that is not
// its own: the platform's, or team b's, through each field that puts a name in a certificate
// or a route. Each is refused with a Fatal result naming the field and the holder and
// desires nothing, so the running installation keeps everything; its own names, converged,
// are refused nowhere and it desires nothing new.
func TestHostileNamesKeepWhatRuns(t *testing.T) {
	world := namesWorld()
	running, err := fnrequest.ConvergedAnswered(func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }, namesXR(t, namesSpec()), world...)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(running.GetObserved().GetResources()); n == 0 {
		t.Fatal("the installation composed nothing before the edit")
	}
	fp := func(s map[string]any) map[string]any { return s["frontProxies"].([]any)[0].(map[string]any) }
	cases := map[string]struct {
		reason string
		edit   func(spec map[string]any)
		want   []string // substrings of the Fatal result; none when it must compose
	}{
		"ItsOwnNames": {
			reason: "Converged, its own names (a wildcard of its own zone included) are served by its own XRs: nothing is refused and nothing new desired.",
			edit:   func(map[string]any) {},
		},
		"PlatformNameInThePublicCertificate": {
			reason: "A publicly trusted certificate for the platform's front-proxy.",
			edit: func(s map[string]any) {
				fp(s)["serverCertificate"].(map[string]any)["dnsNames"] = []any{"kcp.team-a.example.com", "kcp.example.com"}
			},
			want: []string{`spec.frontProxies[0].serverCertificate.dnsNames[1]: Forbidden: kcp.example.com is the platform's: its policy reserves kcp.example.com (EnvironmentConfig kcp-self-service, data.hostnames.reserved); choose a name outside it`},
		},
		"WildcardOverThePlatformsName": {
			reason: "*.example.com answers for kcp.example.com.",
			edit: func(s map[string]any) {
				fp(s)["serverCertificate"].(map[string]any)["dnsNames"] = []any{"*.example.com"}
			},
			want: []string{`spec.frontProxies[0].serverCertificate.dnsNames[0]: Forbidden: *.example.com is the platform's: its policy reserves kcp.example.com`},
		},
		"PlatformZoneAsTheRootShardsPublicName": {
			reason: "The root shard's public name in the platform's zone.",
			edit: func(s map[string]any) {
				s["rootShard"] = map[string]any{"public": map[string]any{"hostname": "root.platform.example.com"}}
			},
			want: []string{`spec.rootShard.public.hostname: Forbidden: root.platform.example.com is the platform's: its policy reserves *.platform.example.com`},
		},
		"PlatformNameAsThePrivateHostname": {
			reason: "The private hostname goes into every front-proxy's serving certificate.",
			edit: func(s map[string]any) {
				s["external"].(map[string]any)["privateHostname"] = "KCP.example.com."
			},
			want: []string{`spec.external.privateHostname: Forbidden: KCP.example.com. is the platform's`},
		},
		"TeamBsNameOnAShard": {
			reason: "A shard's public certificate for team b's root shard's name.",
			edit: func(s map[string]any) {
				s["shards"] = []any{map[string]any{"name": "alpha", "public": map[string]any{"hostname": "alpha.team-a.example.com",
					"serverCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt", "kind": "ClusterIssuer"}, "dnsNames": []any{"alpha.team-a.example.com", "root.team-b.example.com"}}}}}
			},
			want: []string{`spec.shards[0].public.serverCertificate.dnsNames[1]: Forbidden: root.team-b.example.com is served already by RootShard team-b/prod (the KcpInstallation team-b/prod), which keeps it; choose another hostname`},
		},
		"TeamBsNameThroughAGatewayRoute": {
			reason: "A second front-proxy's TLSRoute for team b's name, on the team's own Gateway.",
			edit: func(s map[string]any) {
				s["frontProxies"] = append(s["frontProxies"].([]any), map[string]any{"name": "edge", "external": map[string]any{"hostname": "api.team-b.example.com", "port": 443},
					"exposure": map[string]any{"gateway": map[string]any{"name": "edge"}}})
			},
			want: []string{`spec.frontProxies[1].external.hostname: Forbidden: api.team-b.example.com is served already by FrontProxy team-b/prod-public (the KcpInstallation team-b/prod), which keeps it`},
		},
		"TeamBsVirtualWorkspacesInCapitals": {
			reason: "Team b's virtual workspace server's name, in capitals, through a shard's shardBaseURL.",
			edit: func(s map[string]any) {
				s["shards"] = []any{map[string]any{"name": "alpha", "shardBaseURL": "https://VW.team-b.example.com.:6443"}}
			},
			want: []string{`spec.shards[0].shardBaseURL: Forbidden: VW.team-b.example.com. is served already by VirtualWorkspace team-b/prod-vw (the KcpInstallation team-b/prod)`},
		},
		"WildcardOverTeamBsNames": {
			reason: "A wildcard covering team b's names, through the root shard's public certificate.",
			edit: func(s map[string]any) {
				s["rootShard"] = map[string]any{"public": map[string]any{"hostname": "root.team-a.example.com",
					"serverCertificate": map[string]any{"issuerRef": map[string]any{"name": "letsencrypt", "kind": "ClusterIssuer"}, "dnsNames": []any{"*.team-b.example.com"}}}}
			},
			want: []string{`spec.rootShard.public.serverCertificate.dnsNames[0]: Forbidden: *.team-b.example.com covers kcp.team-b.example.com, which RootShard team-b/prod (the KcpInstallation team-b/prod) serves already and keeps`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := namesSpec()
			tc.edit(spec)
			req := proto.Clone(running).(*fnv1.RunFunctionRequest)
			req.Observed.Composite = &fnv1.Resource{Resource: fnrequest.StructJSON(namesXR(t, spec))}
			observedBefore := proto.Clone(req.GetObserved()).(*fnv1.State)
			rsp := runAnswered(t, req, world)
			var fatal string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatal = r.GetMessage()
				}
			}
			if !proto.Equal(observedBefore, req.GetObserved()) {
				t.Errorf("%s\nthe observed state changed", tc.reason)
			}
			if len(tc.want) == 0 {
				if fatal != "" {
					t.Fatalf("%s\nrefused: %s", tc.reason, fatal)
				}
				var desired, observed []string
				for k := range rsp.GetDesired().GetResources() {
					desired = append(desired, k)
				}
				for k := range req.GetObserved().GetResources() {
					observed = append(observed, k)
				}
				sort.Strings(desired)
				sort.Strings(observed)
				if diff := cmp.Diff(observed, desired); diff != "" {
					t.Errorf("%s\ndesired resources: -observed, +desired:\n%s", tc.reason, diff)
				}
				return
			}
			checkRefused(t, tc.reason, req, nil, rsp, tc.want)
		})
	}
}

// everyNameSpec is an installation with every option that can put a name in a certificate or
// a route: each component public, with certificates of its own or not, base URLs, virtual
// workspace servers, a private hostname, a cluster domain, front-proxies behind a Gateway and
// an Ingress, a cache server and a shard's own managed etcd.
const everyNameSpec = `{
	"external": {"hostname": "kcp.team-a.example.com", "privateHostname": "kcp.team-a.internal", "privatePort": 6443},
	"certificates": {"issuerRef": {"name": "team-ca", "kind": "Issuer"}},
	"clusterDomain": "corp.internal",
	"cacheServer": {},
	"rootShard": {
		"shardBaseURL": "https://root.team-a.internal:6443",
		"public": {"hostname": "root.team-a.example.com", "serverCertificate": {"issuerRef": {"name": "acme", "kind": "Issuer"}, "dnsNames": ["root.team-a.example.com", "root2.team-a.example.com"]}},
		"virtualWorkspace": {"external": {"hostname": "vw.team-a.example.com"}}
	},
	"shards": [
		{"name": "alpha", "shardBaseURL": "https://alpha.team-a.internal:6443", "managedEtcd": {},
		 "public": {"hostname": "alpha.team-a.example.com"},
		 "virtualWorkspace": {"external": {"hostname": "vw-alpha.team-a.example.com"}}},
		{"name": "beta", "public": {"hostname": "beta.team-a.example.com", "serverCertificate": {"issuerRef": {"name": "acme", "kind": "Issuer"}, "dnsNames": ["*.beta.team-a.example.com"]}}}
	],
	"frontProxies": [
		{"name": "public", "serverCertificate": {"issuerRef": {"name": "acme", "kind": "Issuer"}, "dnsNames": ["kcp.team-a.example.com", "*.kcp.team-a.example.com"]},
		 "exposure": {"gateway": {"name": "edge", "sectionName": "tls"}}},
		{"name": "corp", "external": {"hostname": "kcp.corp.example.com", "port": 443}, "exposure": {"ingress": {"controller": "IngressNginx"}}},
		{"name": "lb", "external": {"hostname": "lb.team-a.example.com"}, "serverCertificate": {"issuerRef": {"name": "acme", "kind": "Issuer"}}}
	]
}`

// composedNames are the DNS names of every Certificate (those a CertificateSet holds too),
// TLSRoute and Ingress under v, by the kind and name of what holds them.
func composedNames(v any, into map[string][]string) {
	switch v := v.(type) {
	case map[string]any:
		md, _ := v["metadata"].(map[string]any)
		where, _ := v["kind"].(string)
		if name, ok := md["name"].(string); ok {
			where += "/" + name
		}
		spec, _ := v["spec"].(map[string]any)
		add := func(list any) {
			l, _ := list.([]any)
			for _, n := range l {
				into[where] = append(into[where], n.(string))
			}
		}
		switch v["kind"] {
		case "Certificate":
			add(spec["dnsNames"])
			if cn, _ := spec["commonName"].(string); strings.Contains(cn, ".") {
				into[where] = append(into[where], cn)
			}
		case "TLSRoute", "HTTPRoute":
			add(spec["hostnames"])
		case "Ingress":
			rules, _ := spec["rules"].([]any)
			for _, r := range rules {
				if h, _ := r.(map[string]any)["host"].(string); h != "" {
					into[where] = append(into[where], h)
				}
			}
			tls, _ := spec["tls"].([]any)
			for _, t := range tls {
				add(t.(map[string]any)["hosts"])
			}
		}
		for _, e := range v {
			composedNames(e, into)
		}
	case []any:
		for _, e := range v {
			composedNames(e, into)
		}
	}
}

// TestEveryComposedNameIsChecked derives the fields of the hostname rule from the composed
// output rather than from a list: it renders an installation with every option on, then each
// XR it composes as its own kind composes it, and holds every name of every Certificate,
// TLSRoute and Ingress to what the rule checks (kinds/kcpinstallation.CheckedNames): a name
// some field writes, checked at that field, or an in-cluster name of the installation's own
// namespace. A field that comes to put a name in a certificate or a route fails here until
// the rule covers it. And every name the rule lists is found in the output.
func TestEveryComposedNameIsChecked(t *testing.T) {
	xr := `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "metadata": {"name": "dev", "namespace": "team-a", "uid": "dev-uid"}, "spec": ` + everyNameSpec + `}`
	runner := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }
	converged, err := fnrequest.ConvergedAnswered(runner, xr)
	if err != nil {
		t.Fatal(err)
	}
	rsp := run(t, converged)
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("the installation is refused: %s", r.GetMessage())
		}
	}
	found := map[string][]string{}
	var children []map[string]any
	for _, r := range rsp.GetDesired().GetResources() {
		obj := r.GetResource().AsMap()
		composedNames(obj, found)
		if strings.HasPrefix(obj["apiVersion"].(string), "kcp.crossplane.io/") {
			children = append(children, obj)
		}
	}
	if len(children) == 0 {
		t.Fatal("the installation composed no XR")
	}
	for _, child := range children {
		b, err := json.Marshal(child)
		if err != nil {
			t.Fatal(err)
		}
		// Each child is composed in a world holding its siblings, as in the namespace.
		var siblings []map[string]any
		for _, o := range children {
			if o["kind"] != child["kind"] || o["metadata"].(map[string]any)["name"] != child["metadata"].(map[string]any)["name"] {
				siblings = append(siblings, o)
			}
		}
		req, err := fnrequest.ConvergedAnswered(runner, string(b), siblings...)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range run(t, req).GetDesired().GetResources() {
			composedNames(r.GetResource().AsMap(), found)
		}
	}

	var inst v1alpha1.KcpInstallation
	if err := json.Unmarshal([]byte(xr), &inst); err != nil {
		t.Fatal(err)
	}
	checked, inCluster := kcpinstallation.CheckedNames(&inst)
	seen := map[string]bool{}
	var unchecked []string
	for where, ns := range found {
		for _, n := range ns {
			seen[n] = true
			if _, ok := checked[n]; !ok && !inCluster(n) {
				unchecked = append(unchecked, where+": "+n)
			}
		}
	}
	slices.Sort(unchecked)
	if len(unchecked) > 0 {
		t.Errorf("names of the composed output that the hostname rule does not check (kinds/kcpinstallation/hostnames.go, xrNames):\n%s", strings.Join(unchecked, "\n"))
	}
	var missing []string
	for n, f := range checked {
		// A public hostname with a certificate of its own naming others (beta's wildcard) is
		// in no certificate, yet clients are sent to it: the rule checks it all the same.
		if !seen[n] && !strings.HasSuffix(f, ".public.hostname") {
			missing = append(missing, f+": "+n)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("names the rule checks that no certificate or route of the output carries:\n%s", strings.Join(missing, "\n"))
	}
	// What the test covers, so that a render that composes less does not pass unnoticed.
	var kinds []string
	for where := range found {
		kinds = append(kinds, strings.Split(where, "/")[0])
	}
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	if diff := cmp.Diff([]string{"Certificate", "Ingress", "TLSRoute"}, kinds); diff != "" {
		t.Errorf("kinds carrying names: -want, +got:\n%s", diff)
	}
	if len(checked) != 14 {
		t.Errorf("the rule checks %d names of the installation, want the 14 everyNameSpec writes: %v", len(checked), checked)
	}
}
