// Package fnrequest builds RunFunction requests the way Crossplane sends them, for the
// benchmarks and the load test: fresh (only the XR) and converged, where the function's own
// responses are fed back as observed state after the controllers acted on them (cert-manager
// issued every Certificate (those of CertificateSets too) and readied every Issuer, Deployments and StatefulSets rolled out,
// composed XRs became Ready).
package fnrequest

import (
	"encoding/base64"
	"fmt"
	"strings"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// StructJSON is the JSON object j as a protobuf Struct; it panics on invalid JSON, which only a
// test's own constant holds. It does what function-sdk-go's resource.MustStructJSON does
// without that package, which links client-go: the fuzz binary, which instruments every
// package it links, leaves it out (make fuzz).
func StructJSON(j string) *structpb.Struct {
	s := &structpb.Struct{}
	if err := protojson.Unmarshal([]byte(j), s); err != nil {
		panic(err)
	}
	return s
}

// RunFunc runs the function once.
type RunFunc func(*fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error)

// New is the request of an XR nothing was composed for yet.
func New(xr string) *fnv1.RunFunctionRequest {
	return &fnv1.RunFunctionRequest{
		Meta:     &fnv1.RequestMeta{Tag: "t"},
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: StructJSON(xr)}},
	}
}

// rounds is how often responses are fed back: kcp's compositions settle in fewer.
const rounds = 6

// Converged is the request once everything the XR composes is issued, up and Ready. world
// holds the objects other XRs provide (a RootShard, its CA Secrets), offered as required
// resources.
func Converged(run RunFunc, xr string, world ...map[string]any) (*fnv1.RunFunctionRequest, error) {
	return converge(run, false, xr, world)
}

// ConvergedAnswered is Converged with every requirement of each response answered, as
// Crossplane does, from world: lists included, found or not. The XRs that read across
// namespaces (a Tenant, a team's XR) check that Crossplane answered before they compose.
func ConvergedAnswered(run RunFunc, xr string, world ...map[string]any) (*fnv1.RunFunctionRequest, error) {
	return converge(run, true, xr, world)
}

func converge(run RunFunc, answerAll bool, xr string, world []map[string]any) (*fnv1.RunFunctionRequest, error) {
	req := New(xr)
	for range rounds {
		rsp, err := run(req)
		if err != nil {
			return nil, err
		}
		next := Next
		if answerAll {
			next = NextAnswered
		}
		if req, err = next(xr, rsp, world...); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// NextAnswered is Next with every requirement of rsp answered from world, as Crossplane
// does (ConvergedAnswered).
func NextAnswered(xr string, rsp *fnv1.RunFunctionResponse, world ...map[string]any) (*fnv1.RunFunctionRequest, error) {
	req, err := Next(xr, rsp, world...)
	if err != nil {
		return nil, err
	}
	return req, answer(req.RequiredResources, rsp.GetRequirements().GetResources(), req, world)
}

// Next is the request Crossplane sends after rsp once the controllers acted on what it
// composes: every composed resource observed, Certificates issued with their Secrets readable,
// Issuers ready, Deployments and StatefulSets rolled out, composed XRs Ready.
func Next(xr string, rsp *fnv1.RunFunctionResponse, world ...map[string]any) (*fnv1.RunFunctionRequest, error) {
	observed := map[string]*fnv1.Resource{}
	required := map[string]*fnv1.Resources{}
	for name, r := range rsp.GetDesired().GetResources() {
		obj := r.GetResource().AsMap()
		md := obj["metadata"].(map[string]any)
		switch obj["kind"] {
		case "Certificate":
			obj["status"] = map[string]any{"revision": 1, "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
			if err := issuedSecret(required, obj); err != nil {
				return nil, err
			}
		case "CertificateSet":
			// Crossplane reconciled the set, cert-manager issued its certificates: the set
			// reports them all, as its own composition does.
			var issued []any
			members, _ := obj["spec"].(map[string]any)["certificates"].([]any)
			for _, m := range members {
				mm := m.(map[string]any)
				if err := issuedSecret(required, mm["resource"].(map[string]any)); err != nil {
					return nil, err
				}
				issued = append(issued, map[string]any{"key": mm["key"], "revision": 1})
			}
			obj["status"] = map[string]any{"certificates": issued, "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		case "Issuer":
			obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		case "Deployment":
			replicas := obj["spec"].(map[string]any)["replicas"]
			md["generation"] = 1
			obj["status"] = map[string]any{"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas,
				"availableReplicas": replicas, "conditions": []any{map[string]any{"type": "Available", "status": "True"}}}
		case "StatefulSet":
			replicas := obj["spec"].(map[string]any)["replicas"]
			md["generation"] = 1
			obj["status"] = map[string]any{"observedGeneration": 1, "replicas": replicas, "readyReplicas": replicas}
		case "Object":
			placeInOtherCluster(obj)
		default:
			// An XR an installation composes: Crossplane reconciled it to Ready.
			if strings.HasPrefix(obj["apiVersion"].(string), "kcp.crossplane.io/") {
				obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
			}
		}
		s, err := Struct(obj)
		if err != nil {
			return nil, err
		}
		observed[name] = &fnv1.Resource{Resource: s}
	}
	req := New(xr)
	req.Observed.Resources = observed
	if err := offer(required, world); err != nil {
		return nil, err
	}
	req.RequiredResources = required
	return req, nil
}

// answer answers, as Crossplane does, each requirement that offer's keys do not (lists, and
// objects of another namespace): with the objects of world of its kind and namespace, and its
// name or labels, none if nothing matches.
func answer(required map[string]*fnv1.Resources, reqs map[string]*fnv1.ResourceSelector, req *fnv1.RunFunctionRequest, world []map[string]any) error {
	own := req.GetObserved().GetComposite().GetResource().AsMap()["metadata"].(map[string]any)["namespace"]
	for key, sel := range reqs {
		if _, ok := required[key]; ok {
			continue
		}
		ns := own
		if sel.Namespace != nil {
			ns = *sel.Namespace
		}
		items := []*fnv1.Resource{}
		for _, o := range world {
			md := o["metadata"].(map[string]any)
			labels, _ := md["labels"].(map[string]any)
			if o["kind"] != sel.GetKind() || (sel.Namespace != nil && md["namespace"] != ns) {
				continue
			}
			if n := sel.GetMatchName(); n != "" && md["name"] != n {
				continue
			}
			matches := true
			for k, v := range sel.GetMatchLabels().GetLabels() {
				if labels[k] != v {
					matches = false
				}
			}
			if !matches {
				continue
			}
			s, err := Struct(o)
			if err != nil {
				return err
			}
			items = append(items, &fnv1.Resource{Resource: s})
		}
		required[key] = &fnv1.Resources{Items: items}
	}
	return nil
}

// issuedSecret offers the Secret cert-manager writes for Certificate cert.
func issuedSecret(required map[string]*fnv1.Resources, cert map[string]any) error {
	md := cert["metadata"].(map[string]any)
	secret := cert["spec"].(map[string]any)["secretName"].(string)
	s, err := Struct(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": secret, "namespace": md["namespace"]},
		"data": map[string]any{
			"tls.crt": base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\n" + secret + "\n-----END CERTIFICATE-----\n")),
			// A key too, as cert-manager writes: what embeds credentials needs both.
			"tls.key": base64.StdEncoding.EncodeToString([]byte("-----BEGIN PRIVATE KEY-----\n" + secret + "\n-----END PRIVATE KEY-----\n")),
		},
	})
	if err != nil {
		return err
	}
	required["secret/"+secret] = &fnv1.Resources{Items: []*fnv1.Resource{{Resource: s}}}
	return nil
}

// WithWorld offers the objects as required resources.
func WithWorld(req *fnv1.RunFunctionRequest, world []map[string]any) (*fnv1.RunFunctionRequest, error) {
	req.RequiredResources = map[string]*fnv1.Resources{}
	return req, offer(req.RequiredResources, world)
}

func offer(required map[string]*fnv1.Resources, world []map[string]any) error {
	for _, o := range world {
		md := o["metadata"].(map[string]any)
		s, err := Struct(o)
		if err != nil {
			return err
		}
		required[strings.ToLower(o["kind"].(string))+"/"+md["name"].(string)] = &fnv1.Resources{Items: []*fnv1.Resource{{Resource: s}}}
	}
	return nil
}

// Struct converts an object to a structpb.Struct; Go ints become numbers.
func Struct(m map[string]any) (*structpb.Struct, error) {
	s, err := structpb.NewStruct(normalize(m).(map[string]any))
	if err != nil {
		return nil, fmt.Errorf("cannot convert %v: %w", m["kind"], err)
	}
	return s, nil
}

// normalize turns ints into float64, the only number type structpb accepts from Go maps.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// placeInOtherCluster plays provider-kubernetes and the other cluster for an Object that
// places a workload there: it created the manifest, a Deployment rolled out, and reports what
// it observed. Objects that act in kcp are left to the test's world.
func placeInOtherCluster(obj map[string]any) {
	manifest, _ := obj["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any)
	switch manifest["kind"] {
	case "Deployment", "Service", "PodDisruptionBudget", "Secret", "ConfigMap", "Namespace":
	case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "PublishedResource":
		// A PublishedAPI's agent needs these in its service cluster; in kcp (through a
		// RootShard's <rs>-kcp-operator.<workspace> ProviderConfig) no kcp is here to apply them.
		config, _ := obj["spec"].(map[string]any)["providerConfigRef"].(map[string]any)["name"].(string)
		if strings.Contains(config, "-kcp-operator.") {
			return
		}
	default:
		return
	}
	there := map[string]any{}
	for k, v := range manifest {
		there[k] = v
	}
	switch there["kind"] {
	case "Deployment":
		replicas := there["spec"].(map[string]any)["replicas"]
		md := map[string]any{}
		for k, v := range there["metadata"].(map[string]any) {
			md[k] = v
		}
		md["generation"] = 1
		there["metadata"] = md
		there["status"] = map[string]any{"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas,
			"availableReplicas": replicas, "conditions": []any{map[string]any{"type": "Available", "status": "True"}}}
	case "Secret":
		there["data"] = map[string]any{"redacted": nil} // --sanitize-secrets
	}
	obj["status"] = map[string]any{
		"atProvider": map[string]any{"manifest": there},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}, map[string]any{"type": "Synced", "status": "True"}},
	}
}
