package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
)

// running are the kinds whose loss takes a kcp down or exposes it: its pods and their
// disruption budgets, its certificates and their issuers, and the Secrets it mounts.
var running = map[string]bool{"Deployment": true, "StatefulSet": true, "PodDisruptionBudget": true, "Certificate": true, "Issuer": true, "Secret": true}

// TestDoubtKeepsWhatRuns: Crossplane deletes every composed resource a response stops
// desiring. For every converged benchmark input, of every kind, whatever goes wrong around a
// running installation (the XRs it references vanish, the Secrets it reads vanish, its spec
// becomes invalid) the response either is Fatal, on which Crossplane applies and deletes
// nothing, or still desires every Deployment, StatefulSet, Certificate, Issuer and Secret it
// desired, with its pods' template unchanged, so nothing restarts either.
func TestDoubtKeepsWhatRuns(t *testing.T) {
	doubts := map[string]struct {
		reason string
		doubt  func(req *fnv1.RunFunctionRequest)
	}{
		"ReferencedXRsVanish": {
			reason: "A RootShard, Shard, CacheServer or VirtualWorkspace it references is deleted or renamed.",
			doubt: func(req *fnv1.RunFunctionRequest) {
				dropRequired(req, func(o map[string]any) bool { return strings.HasPrefix(o["apiVersion"].(string), "kcp.crossplane.io/") })
			},
		},
		"SecretsVanish": {
			reason: "The Secrets it reads (CAs, kubeconfigs, the user's) cannot be read.",
			doubt: func(req *fnv1.RunFunctionRequest) {
				dropRequired(req, func(o map[string]any) bool { return o["kind"] == "Secret" })
			},
		},
		"EverythingRequiredVanishes": {
			reason: "Crossplane sends no required resources at all.",
			doubt:  func(req *fnv1.RunFunctionRequest) { req.RequiredResources = nil },
		},
		"SpecInvalid": {
			reason: "The spec holds a value of the wrong type (an API server without the schema, or a bug upstream).",
			doubt: func(req *fnv1.RunFunctionRequest) {
				xr := req.GetObserved().GetComposite().GetResource()
				spec := xr.GetFields()["spec"].GetStructValue()
				spec.Fields["etcd"] = structpb.NewStringValue("not an object")
				spec.Fields["certificates"] = structpb.NewNumberValue(42)
			},
		},
		"SpecEmpty": {
			reason: "The spec is emptied.",
			doubt: func(req *fnv1.RunFunctionRequest) {
				req.GetObserved().GetComposite().GetResource().Fields["spec"] = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{}})
			},
		},
	}
	for _, c := range benchCases(t) {
		if c.xr == "" {
			continue // Nothing runs before convergence.
		}
		before := run(t, proto.Clone(c.req).(*fnv1.RunFunctionRequest))
		for name, d := range doubts {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
				d.doubt(req)
				after := run(t, req)
				if isFatal(after) {
					return
				}
				for key, r := range before.GetDesired().GetResources() {
					kind := r.GetResource().GetFields()["kind"].GetStringValue()
					if !running[kind] {
						continue
					}
					got, ok := after.GetDesired().GetResources()[key]
					if !ok {
						t.Errorf("\n%s\n%s %s is no longer desired: Crossplane would delete it", d.reason, kind, key)
						continue
					}
					if kind == "Deployment" || kind == "StatefulSet" {
						if diff := cmp.Diff(template(r), template(got), protocmp.Transform()); diff != "" {
							t.Errorf("\n%s\n%s %s: its pods' template changed, so its pods would restart: -before, +after:\n%s", d.reason, kind, key, diff)
						}
					}
				}
			})
		}
	}
}

// dropRequired removes the required objects drop selects.
func dropRequired(req *fnv1.RunFunctionRequest, drop func(map[string]any) bool) {
	for key, rs := range req.GetRequiredResources() {
		var keep []*fnv1.Resource
		for _, r := range rs.GetItems() {
			if !drop(r.GetResource().AsMap()) {
				keep = append(keep, r)
			}
		}
		req.RequiredResources[key] = &fnv1.Resources{Items: keep}
	}
}

func isFatal(rsp *fnv1.RunFunctionResponse) bool {
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			return true
		}
	}
	return false
}

// template is a workload's spec.template.
func template(r *fnv1.Resource) *structpb.Value {
	return r.GetResource().GetFields()["spec"].GetStructValue().GetFields()["template"]
}
