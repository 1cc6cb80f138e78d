package main

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/crossplane/function-sdk-go/errors"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// The function reads requests and writes responses with the protobuf types alone, not with
// function-sdk-go's request and response packages: see internal/resource for why.

// The response's TTL is also when Crossplane calls the function next: with realtime
// compositions (the default) it requeues the XR after the TTL, and that requeue is not
// subject to the XR's circuit breaker. An XR that is still settling is therefore called
// again soon, whether or not the watch event it waits for gets through.
const (
	// responseTTL is the TTL of a settled XR when Crossplane does not watch what it reads
	// (the SDK's default): a RootShard's status a Kubeconfig reads, a Secret of another XR,
	// the platform's policy. Crossplane v2.3 watches only what an XR composes, so a change
	// of anything else is seen within this long.
	responseTTL = time.Minute
	// watchedTTL is the TTL of a settled XR when Crossplane watches everything it read for
	// this request (v2.4 and later, see inputsWatched): every change then reconciles the XR
	// at once, and the TTL only bounds how late a change Crossplane missed is seen. A
	// converged installation is then quiet: no reconcile, no apply, for an hour.
	watchedTTL = time.Hour
	// settlingTTL is the TTL while the XR is not ready or a condition is False: a
	// certificate issued, a Deployment available or another XR's output written reaches
	// the XR within this long even when Crossplane drops its watch event.
	settlingTTL = 5 * time.Second
	// blindSettlingTTL is the TTL while the XR settles and Crossplane drops its watch events
	// (its circuit breaker is open): the Deployment that becomes available, the certificate
	// issued, would otherwise be seen only up to settlingTTL later. It lasts only until the
	// XR settles, a few calls.
	blindSettlingTTL = time.Second
)

// newResponse starts the response to req: its tag, the TTL of a settled XR, and the
// desired state and context of earlier pipeline steps, carried forward.
func newResponse(req *fnv1.RunFunctionRequest) *fnv1.RunFunctionResponse {
	return &fnv1.RunFunctionResponse{
		Meta:    &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag(), Ttl: durationpb.New(responseTTL)},
		Desired: req.GetDesired(),
		Context: req.GetContext(),
	}
}

// ttl is the response TTL for a composition: short while it settles or while Crossplane
// may drop the XR's watch events (dropping: its circuit breaker is open, and a renewed
// certificate would otherwise wait for the next minute), shorter still while both; settled,
// watchedTTL when Crossplane watches everything the XR read (watched reports it), else
// responseTTL.
func ttl(out result.Result[any], dropping bool, watched func() bool) time.Duration {
	open := dropping
	switch {
	case settling(out) && open:
		return blindSettlingTTL
	case settling(out) || open:
		return settlingTTL
	case watched():
		return watchedTTL
	}
	return responseTTL
}

// inputsWatched reports whether Crossplane watches every resource the request carries, so
// that a change of any of them reconciles the XR without the TTL. Crossplane v2.4 watches
// the resources an XR required and sends them with the first call of its next reconcile,
// tagging the request after adding them: a request whose tag is the hash of all of it
// (Crossplane's Tag: SHA-256 of its deterministic protobuf, without meta) was answered in
// one call, with nothing fetched unwatched. Crossplane v2.3 fetches what a function requires
// after tagging the first call, so the call that carries the resources never matches; any
// difference in encoding fails the match too. Both err on the side of responseTTL.
func inputsWatched(req *fnv1.RunFunctionRequest) bool {
	tag := req.GetMeta().GetTag()
	if tag == "" {
		return false
	}
	sum, ok := requestHash(req)
	if !ok {
		return false
	}
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:]) == tag
}

// settling reports whether the XR is still on its way: forced not ready, a condition False
// or a composed resource not ready.
func settling(out result.Result[any]) bool {
	if out.NotReady {
		return true
	}
	for _, c := range out.Conditions {
		if !c.Status {
			return true
		}
	}
	for _, o := range out.Desired.Objects() {
		if o.Ready != resource.ReadyTrue {
			return true
		}
	}
	return false
}

// observedXR is the observed composite resource.
func observedXR(req *fnv1.RunFunctionRequest) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: req.GetObserved().GetComposite().GetResource().AsMap()}
}

// observedNamespace is the observed XR's namespace, read without converting the XR (which
// RunFunction does once, observedXR).
func observedNamespace(req *fnv1.RunFunctionRequest) string {
	meta := req.GetObserved().GetComposite().GetResource().GetFields()["metadata"]
	return meta.GetStructValue().GetFields()["namespace"].GetStringValue()
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

// setDesiredXR sets what the function wants of the XR itself: its status and readiness.
func setDesiredXR(rsp *fnv1.RunFunctionResponse, xr *unstructured.Unstructured, status map[string]any, ready fnv1.Ready) error {
	s, err := structpb.NewStruct(map[string]any{"apiVersion": xr.GetAPIVersion(), "kind": xr.GetKind(), "status": status})
	if err != nil {
		return err
	}
	if rsp.Desired == nil {
		rsp.Desired = &fnv1.State{}
	}
	rsp.Desired.Composite = &fnv1.Resource{Resource: s, Ready: ready}
	return nil
}

// compositeReady is the XR's readiness: false while the composition forces it, else what
// every desired resource's readiness adds up to. Saying it explicitly keeps Crossplane's
// Ready condition at a plain Creating while the XR settles; left to Crossplane it names the
// unready resources, and every change of that list is one more status write and watch
// event for the XR. Unspecified only when an earlier pipeline step left a resource's
// readiness to Crossplane.
func compositeReady(rsp *fnv1.RunFunctionResponse, notReady bool) fnv1.Ready {
	if notReady {
		return fnv1.Ready_READY_FALSE
	}
	ready := fnv1.Ready_READY_TRUE
	for _, r := range rsp.GetDesired().GetResources() {
		switch r.GetReady() {
		case fnv1.Ready_READY_FALSE:
			return fnv1.Ready_READY_FALSE
		case fnv1.Ready_READY_UNSPECIFIED:
			ready = fnv1.Ready_READY_UNSPECIFIED
		}
	}
	return ready
}

// respond writes a composition into the response.
func (f *Function) respond(rsp *fnv1.RunFunctionResponse, xr *unstructured.Unstructured, out result.Result[any], ttl time.Duration) error {
	resources, err := out.Desired.Resources()
	if err != nil {
		return err
	}
	// Earlier pipeline steps' desired resources are carried forward; ours replace same names.
	if rsp.Desired == nil {
		rsp.Desired = &fnv1.State{}
	}
	if rsp.Desired.Resources == nil {
		rsp.Desired.Resources = make(map[string]*fnv1.Resource, len(resources))
	}
	for name, r := range resources {
		rsp.Desired.Resources[name] = r
	}

	// Of the XR itself only the status is desired.
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out.Status)
	if err != nil {
		return errors.Wrap(err, "cannot convert composite status")
	}
	if err := setDesiredXR(rsp, xr, status, compositeReady(rsp, out.NotReady)); err != nil {
		return errors.Wrap(err, "cannot set desired composite resource")
	}

	if len(out.Requirements) > 0 {
		rsp.Requirements = &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{}}
		ns := xr.GetNamespace()
		for _, r := range out.Requirements {
			sel := &fnv1.ResourceSelector{ApiVersion: r.APIVersion, Kind: r.Kind, Namespace: &ns}
			if r.Namespace != "" {
				sel.Namespace = &r.Namespace
			}
			if r.ClusterScoped {
				sel.Namespace = nil
			}
			if sel.ApiVersion == "" {
				sel.ApiVersion = "v1"
			}
			if r.Name != "" {
				sel.Match = &fnv1.ResourceSelector_MatchName{MatchName: r.Name}
			} else {
				// No labels: every object of the kind in the namespace.
				labels := &fnv1.MatchLabels{}
				if r.Label != "" {
					labels.Labels = map[string]string{r.Label: r.LabelValue}
				}
				sel.Match = &fnv1.ResourceSelector_MatchLabels{MatchLabels: labels}
			}
			rsp.Requirements.Resources[r.Key()] = sel
		}
	}

	for _, c := range out.Conditions {
		setCondition(rsp, c)
	}
	rsp.Meta.Ttl = durationpb.New(ttl)
	for _, w := range out.Warnings {
		warning(rsp, w)
	}
	return nil
}
