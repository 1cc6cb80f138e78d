package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/function-sdk-go/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/cacheserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/certificateset"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/claimedkcpinstallation"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/frontproxy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kcpinstallation"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kubeconfig"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/publishedapi"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/shard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/tenant"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/tenantrequest"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/virtualworkspace"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/workspace"
)

// Function composes kcp XRs. It is stateless: every response depends only on the request.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log logging.Logger
	// kinds is the table of kinds RunFunction dispatches on.
	kinds table
	// breaker is what the function knows of Crossplane's circuit breaker.
	breaker breaker
	// now is the clock the TTL reads (time.Now when nil).
	now func() time.Time
}

// newFunction returns the function with its table of kinds.
func newFunction(log logging.Logger, b breaker) *Function {
	return &Function{log: log, kinds: newTable(), breaker: b}
}

// newTable returns the table of every XR kind the function composes, by kind. RunFunction
// dispatches on the observed XR's kind here and nowhere else. Each row names, once, the
// kind's checks of what the XRD's schema cannot check (nil when composing finds every
// mistake), its warnings of what is accepted but probably not meant (nil for none), and its
// composer; the XR is decoded into the type these take. Adding a kind is one row here and
// the kind's own package under internal/kinds.
func newTable() table {
	t := table{
		v1alpha1.KindRootShard:              withRouteGuard(withFlags(kindOf(rootshard.Validate, rootshard.Warnings, rootshard.Compose), rootshard.GeneratedFlags)),
		v1alpha1.KindShard:                  withRouteGuard(withFlags(kindOf(shard.Validate, shard.Warnings, shard.Compose), shard.GeneratedFlags)),
		v1alpha1.KindCacheServer:            withFlags(kindOf(cacheserver.Validate, cacheserver.Warnings, cacheserver.Compose), cacheserver.GeneratedFlags),
		v1alpha1.KindFrontProxy:             withRouteGuard(withFlags(kindOf(frontproxy.Validate, frontproxy.Warnings, frontproxy.Compose), frontproxy.GeneratedFlags)),
		v1alpha1.KindVirtualWorkspace:       withRouteGuard(withFlags(kindOf(virtualworkspace.Validate, virtualworkspace.Warnings, virtualworkspace.Compose), virtualworkspace.GeneratedFlags)),
		v1alpha1.KindKubeconfig:             kindOf(kubeconfig.Validate, kubeconfig.Warnings, kubeconfig.Compose),
		v1alpha1.KindWorkspace:              kindOf(workspace.Validate, workspace.Warnings, workspace.Compose),
		v1alpha1.KindClaimedKcpInstallation: kindOf(claimedkcpinstallation.Validate, nil, claimedkcpinstallation.Compose),
		v1alpha1.KindCertificateSet:         kindOf(certificateset.Validate, nil, certificateset.Compose),
		v1alpha1.KindTenantRequest:          kindOf(nil, nil, tenantrequest.Compose),
		v1alpha1.KindPublishedAPI:           kindOf(publishedapi.Validate, nil, publishedapi.Compose),
	}
	// The installation and the Tenant check the XRs they compose with those kinds' own rows,
	// so they read the table they are added to.
	t[v1alpha1.KindKcpInstallation] = kindOf(kcpinstallation.Validate, nil, kcpinstallation.Composer(t.validateAny, t.flags))
	t[v1alpha1.KindTenant] = kindOf(tenant.Validate, nil, tenant.Composer(t.validate))
	return t
}

// RunFunction composes the observed XR. Bad input yields a Fatal result: Crossplane then
// applies nothing and deletes nothing, so a running kcp is never harmed by a bad edit.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := newResponse(req)
	xr := observedXR(req)
	gvk := xr.GroupVersionKind()
	log := f.log.WithValues("xr-kind", gvk.Kind, "xr-name", xr.GetName(), "xr-namespace", xr.GetNamespace())
	st := observe(req, xr.Object)

	var (
		out result.Result[any]
		err error
	)
	k, ok := f.kinds[gvk.Kind]
	if !ok || gvk.Group != v1alpha1.Group {
		err = fmt.Errorf("unsupported composite resource kind %s: this function composes %s kinds (%s)", gvk.GroupKind(), v1alpha1.Group, strings.Join(slices.Sorted(maps.Keys(f.kinds)), ", "))
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

// observe reads the observed composed resources and the required resources of a request,
// with its observed XR (xr) as stored.
func observe(req *fnv1.RunFunctionRequest, xr map[string]any) *observed.State {
	st := observed.FromRequest(req.GetObserved().GetResources()).InNamespace(observedNamespace(req)).WithComposite(xr)
	for key, list := range req.GetRequiredResources() {
		st.Answer(key)
		for _, r := range list.GetItems() {
			st.WithObject(r.GetResource().AsMap())
		}
	}
	return st
}
