package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/cacheserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/certificateset"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/claimedkcpinstallation"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/frontproxy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kubeconfig"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/shard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/tenant"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/virtualworkspace"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/workspace"

	"github.com/crossplane/function-sdk-go/errors"
	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/types/known/durationpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
)

// Function composes kcp XRs. It is stateless: every response depends only on the request.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log logging.Logger
	// breaker is what the function knows of Crossplane's circuit breaker.
	breaker breaker
	// now is the clock the TTL reads (time.Now when nil).
	now func() time.Time
}

// kinds is the table of every XR kind the function composes, by kind. RunFunction
// dispatches on the observed XR's kind here and nowhere else. Each row names, once, the
// kind's checks of what the XRD's schema cannot check (nil when composing finds every
// mistake), its warnings of what is accepted but probably not meant (nil for none), and its
// composer; the XR is decoded into the type these take. Adding a kind is one row here and
// the kind's own package under internal/kinds.
var kinds map[string]kind

func init() {
	// Filled here rather than where it is declared: the KcpInstallation row checks the XRs
	// it composes with the other rows, so it refers to the table itself.
	kinds = map[string]kind{
		"RootShard":              withFlags(kindOf(rootshard.Validate, rootshard.Warnings, rootshard.Compose), rootshard.GeneratedFlags),
		"Shard":                  withFlags(kindOf(shard.Validate, shard.Warnings, shard.Compose), shard.GeneratedFlags),
		"CacheServer":            withFlags(kindOf(cacheserver.Validate, cacheserver.Warnings, cacheserver.Compose), cacheserver.GeneratedFlags),
		"FrontProxy":             withFlags(kindOf(frontproxy.Validate, frontproxy.Warnings, frontproxy.Compose), frontproxy.GeneratedFlags),
		"VirtualWorkspace":       withFlags(kindOf(virtualworkspace.Validate, virtualworkspace.Warnings, virtualworkspace.Compose), virtualworkspace.GeneratedFlags),
		"Kubeconfig":             kindOf(kubeconfig.Validate, kubeconfig.Warnings, kubeconfig.Compose),
		"Workspace":              kindOf(workspace.Validate, workspace.Warnings, workspace.Compose),
		"KcpInstallation":        kindOf(kcpinstallation.Validate, nil, kcpinstallation.Composer(validateXR, generatedFlags)),
		"ClaimedKcpInstallation": kindOf(claimedkcpinstallation.Validate, nil, claimedkcpinstallation.Compose),
		"CertificateSet":         kindOf(certificateset.Validate, nil, certificateset.Compose),
		"Tenant":                 kindOf(tenant.Validate, nil, tenant.Composer(validateXR)),
	}
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
		out result.Result[any]
		err error
	)
	k, ok := kinds[gvk.Kind]
	if !ok || gvk.Group != v1alpha1.Group {
		err = fmt.Errorf("unsupported composite resource kind %s: this function composes %s kinds (%s)", gvk.GroupKind(), v1alpha1.Group, strings.Join(slices.Sorted(maps.Keys(kinds)), ", "))
	} else {
		out, err = k.compose(gvk.Kind, xr.Object, st)
	}
	if err != nil {
		log.Info("Cannot compose", "error", err)
		fatal(rsp, err.Error())
		return rsp, nil
	}

	// A new XR composes one object of each kind per reconcile (desired.WithholdNewKinds says
	// why); it is not ready while any is withheld.
	if withheld := out.Desired.WithholdNewKinds(st.ComposedKinds(), st.Exists); len(withheld) > 0 {
		out.NotReady = true
		log.Debug("Withheld new objects until the next reconcile", "resources", withheld)
	}
	// The TTL is decided before respond writes into the desired state, which the response
	// shares with the request inputsWatched hashes.
	d := ttl(out, f.breaker.dropping(xr, f.clock()), func() bool { return inputsWatched(req) })
	if err := f.respond(rsp, xr, out, d); err != nil {
		fatal(rsp, err.Error())
		return rsp, nil
	}
	log.Debug("Composed", "resources", len(out.Desired.Objects()), "requirements", len(out.Requirements))
	return rsp, nil
}

// clock is the time now.
func (f *Function) clock() time.Time {
	if f.now == nil {
		return time.Now()
	}
	return f.now()
}

// observe reads the observed composed resources and the required resources of a request.
func observe(req *fnv1.RunFunctionRequest) *observed.State {
	st := observed.FromRequest(req.GetObserved().GetResources()).InNamespace(observedNamespace(req))
	for key, list := range req.GetRequiredResources() {
		st.Answer(key)
		for _, r := range list.GetItems() {
			st.WithObject(r.GetResource().AsMap())
		}
	}
	return st
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
