package main

import (
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
)

// The function reads requests and writes responses with the protobuf types alone, not with
// function-sdk-go's request and response packages: see internal/resource for why.

// responseTTL is how long Crossplane may cache a response (the SDK's default).
const responseTTL = time.Minute

// newResponse starts the response to req: its tag, the TTL, and the desired state and
// context of earlier pipeline steps, carried forward.
func newResponse(req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta:    &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag(), Ttl: durationpb.New(responseTTL)},
		Desired: req.GetDesired(),
		Context: req.GetContext(),
	}
}

// observedXR is the observed composite resource.
func observedXR(req *fnv1.RunFunctionRequest) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: req.GetObserved().GetComposite().GetResource().AsMap()}
}

// fatal adds a fatal result: Crossplane then applies nothing and deletes nothing.
func fatal(rsp *fnv1.RunFunctionResponse, message string) {
	addResult(rsp, fnv1.Severity_SEVERITY_FATAL, message)
}

// warning adds a warning result, which becomes an event on the XR.
func warning(rsp *fnv1.RunFunctionResponse, message string) {
	addResult(rsp, fnv1.Severity_SEVERITY_WARNING, message)
}

func addResult(rsp *fnv1.RunFunctionResponse, s fnv1.Severity, message string) {
	rsp.Results = append(rsp.Results, &fnv1.Result{Severity: s, Message: message, Target: fnv1.Target_TARGET_COMPOSITE.Enum()})
}

// setCondition sets a condition of the XR.
func setCondition(rsp *fnv1.RunFunctionResponse, c condition.Condition) {
	s := fnv1.Status_STATUS_CONDITION_FALSE
	if c.Status {
		s = fnv1.Status_STATUS_CONDITION_TRUE
	}
	rsp.Conditions = append(rsp.Conditions, &fnv1.Condition{
		Type: c.Type, Status: s, Reason: c.Reason, Message: &c.Message, Target: fnv1.Target_TARGET_COMPOSITE.Enum(),
	})
}

// setDesiredXR sets what the function wants of the XR itself: its status, and not ready
// while notReady.
func setDesiredXR(rsp *fnv1.RunFunctionResponse, xr *unstructured.Unstructured, status map[string]any, notReady bool) error {
	s, err := structpb.NewStruct(map[string]any{"apiVersion": xr.GetAPIVersion(), "kind": xr.GetKind(), "status": status})
	if err != nil {
		return err
	}
	r := &fnv1.Resource{Resource: s}
	if notReady {
		r.Ready = fnv1.Ready_READY_FALSE
	}
	if rsp.Desired == nil {
		rsp.Desired = &fnv1.State{}
	}
	rsp.Desired.Composite = r
	return nil
}
