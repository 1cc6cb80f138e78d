package main

import (
	"context"
	"encoding/json"
	stderrors "errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/crossplane/function-sdk-go/errors"
	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
)

// Function composes kcp XRs. It is stateless: every response depends only on the request.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log logging.Logger
}

// composition is what a kind's composer produced, in a kind-independent shape.
type composition struct {
	desired      *desired.Set
	requirements []inputs.Requirement
	status       any
	conditions   []condition.Condition
	notReady     bool
	warnings     []string
}

// RunFunction composes the observed XR. Bad input yields a Fatal result: Crossplane then
// applies nothing and deletes nothing, so a running kcp is never harmed by a bad edit.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := newResponse(req)
	xr := observedXR(req)
	gvk := xr.GroupVersionKind()
	log := f.log.WithValues("xr-kind", gvk.Kind, "xr-name", xr.GetName(), "xr-namespace", xr.GetNamespace())
	st := observe(req)

	var (
		out composition
		err error
	)
	compose, ok := composers[gvk.Kind]
	if !ok || gvk.Group != v1alpha1.Group {
		err = fmt.Errorf("unsupported composite resource kind %s: this function composes %s kinds (%s)", gvk.GroupKind(), v1alpha1.Group, strings.Join(kinds(), ", "))
	} else {
		out, err = compose(xr.Object, st)
	}
	if err != nil {
		log.Info("Cannot compose", "error", err)
		fatal(rsp, err.Error())
		return rsp, nil
	}

	if err := f.respond(rsp, xr, out); err != nil {
		fatal(rsp, err.Error())
		return rsp, nil
	}
	log.Debug("Composed", "resources", len(out.desired.Objects()), "requirements", len(out.requirements))
	return rsp, nil
}

// observe reads the observed composed resources and the required resources of a request.
func observe(req *fnv1.RunFunctionRequest) *observed.State {
	st := observed.FromRequest(req.GetObserved().GetResources())
	for _, list := range req.GetRequiredResources() {
		for _, r := range list.GetItems() {
			st.WithObject(r.GetResource().AsMap())
		}
	}
	return st
}

// respond writes a composition into the response.
func (f *Function) respond(rsp *fnv1.RunFunctionResponse, xr *unstructured.Unstructured, out composition) error {
	resources, err := out.desired.Resources()
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
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(out.status)
	if err != nil {
		return errors.Wrap(err, "cannot convert composite status")
	}
	if err := setDesiredXR(rsp, xr, status, out.notReady); err != nil {
		return errors.Wrap(err, "cannot set desired composite resource")
	}

	if len(out.requirements) > 0 {
		rsp.Requirements = &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{}}
		ns := xr.GetNamespace()
		for _, r := range out.requirements {
			sel := &fnv1.ResourceSelector{ApiVersion: r.APIVersion, Kind: r.Kind, Namespace: &ns}
			if sel.ApiVersion == "" {
				sel.ApiVersion = "v1"
			}
			if r.Name != "" {
				sel.Match = &fnv1.ResourceSelector_MatchName{MatchName: r.Name}
			} else {
				// No labels: every object of the kind in the namespace.
				sel.Match = &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{}}
			}
			rsp.Requirements.Resources[r.RequirementKey()] = sel
		}
	}

	for _, c := range out.conditions {
		setCondition(rsp, c)
	}
	for _, w := range out.warnings {
		warning(rsp, w)
	}
	return nil
}

// composeFunc decodes, validates and composes one XR kind.
type composeFunc func(obj map[string]any, st *observed.State) (composition, error)

// composers holds a composeFunc per XR kind; each kind registers itself in kind_<kind>.go.
var composers = map[string]composeFunc{}

// kinds lists the composable kinds, sorted.
func kinds() []string {
	out := make([]string, 0, len(composers))
	for k := range composers {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// decode converts an unstructured XR into its typed form. encoding/json names the field and
// type of a mismatch, which the unstructured converter does not.
func decode(obj map[string]any, into any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, into); err != nil {
		var te *json.UnmarshalTypeError
		if stderrors.As(err, &te) {
			return fmt.Errorf("%s must be of type %s, not a JSON %s", jsonPath(te.Field), te.Type, te.Value)
		}
		return err
	}
	return nil
}

// jsonPath drops the names of embedded Go structs from a decoding error's field path.
func jsonPath(goPath string) string {
	parts := strings.Split(goPath, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && unicode.IsUpper(rune(p[0])) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ".")
}

// invalid formats validation errors as one message naming every bad field.
func invalid(kind, namespace, name string, errs []error) error {
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return fmt.Errorf("invalid %s %s/%s, nothing was changed: %s", kind, namespace, name, strings.Join(msgs, "; "))
}
