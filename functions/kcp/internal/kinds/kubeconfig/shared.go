package kubeconfig

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// ReasonRefused is InputsReady's reason when the Tenant refuses the Kubeconfig.
const ReasonRefused = "Refused"

// Shared reports whether the Kubeconfig reaches an installation of another namespace, one
// shared with its own by a Tenant there.
func Shared(kc *v1alpha1.Kubeconfig) bool {
	r := kc.Spec.Target.FrontProxyRef
	return r != nil && r.Namespace != "" && r.Namespace != kc.GetNamespace()
}

// composeShared composes a team's Kubeconfig of a shared installation: a copy, in
// spec.secretRef.name, of the kubeconfig that the Kubeconfig its Tenant composes for it
// wrote. The team's namespace never holds more than its own credential: the copy is made
// only from the Secret of the Kubeconfig named after this one, composed by the Tenant of
// this namespace. While it cannot be made, what exists is kept unchanged. Identities outside
// the team's prefix, which the Tenant sets, are refused once the Tenant is read.
func composeShared(kc *v1alpha1.Kubeconfig, st *observed.State) (result.Result[v1alpha1.KubeconfigStatus], field.ErrorList) {
	b := builder.New(kc.GetName(), kc.GetNamespace(), st)
	team, ref := kc.GetNamespace(), kc.Spec.Target.FrontProxyRef
	ns, issuer := ref.Namespace, sharing.Name(kc.GetNamespace(), kc.GetName())
	from, out := sharing.KubeconfigSecret(team, kc.GetName()), kc.Spec.SecretRef.Name
	secretKey := resource.Name("secret-" + out)
	reqs := []result.Requirement{
		sharing.TenantsRequirement(ns),
		required.NamedIn(v1alpha1.KindKubeconfig, ns, issuer),
		{Kind: "Secret", Name: from, Namespace: ns},
		{Kind: "Secret", Name: out},
	}
	r := result.Result[v1alpha1.KubeconfigStatus]{
		Requirements: reqs,
		Status: v1alpha1.KubeconfigStatus{
			Phase:      v1alpha1.KubeconfigPhaseProvisioning,
			TargetName: TargetName(kc),
			SecretName: out,
		},
		NotReady: true,
	}
	// What this Kubeconfig asks of its Tenant, which reads that, never this XR.
	request := sharing.Request(v1alpha1.KindKubeconfig, kc, kc.Spec, v1alpha1.TenantRequestTarget{Kind: v1alpha1.KindFrontProxy, Namespace: ns, Name: ref.Name}, st)
	ask := func() {
		_, _ = b.XR(sharing.RequestKey, v1alpha1.KindTenantRequest, sharing.RequestName(v1alpha1.KindKubeconfig, kc.GetName()), nil, request) // a TenantRequestSpec always encodes
	}
	wait := func(reason, why string) (result.Result[v1alpha1.KubeconfigStatus], field.ErrorList) {
		if b.KeepAll() {
			why += "; Secret " + team + "/" + out + " is kept unchanged meanwhile"
		}
		ask()
		r.Desired = b.Set
		r.Conditions = []condition.Condition{{Type: condition.TypeInputsReady, Reason: reason, Message: why + "."}}
		return r, nil
	}
	for _, q := range reqs {
		if !st.Answered(q.Key()) {
			return wait(condition.ReasonMissing, "Reading the Tenant of namespace "+ns)
		}
	}
	t, why := sharing.Grant(st, ns, team)
	if t == nil {
		return wait(condition.ReasonMissing, why)
	}
	if t.Spec.FrontProxy.Ref.Name != ref.Name {
		return wait(ReasonRefused, fmt.Sprintf("Tenant %s/%s shares FrontProxy %s with namespace %s, not %s (spec.target.frontProxyRef.name)", ns, t.GetName(), t.Spec.FrontProxy.Ref.Name, team, ref.Name))
	}
	if errs := sharing.CheckIdentities(sharing.IdentityPrefix(t), kc); len(errs) > 0 {
		return result.Result[v1alpha1.KubeconfigStatus]{}, errs
	}
	if request.Refused != "" {
		// Too heavy for its Tenant to read: the request says so, without the XR.
		return wait(ReasonRefused, request.Refused)
	}
	if i := slices.IndexFunc(t.Status.Members, func(m v1alpha1.TenantMember) bool {
		return m.Kind == v1alpha1.KindKubeconfig && m.Name == kc.GetName()
	}); i >= 0 && !t.Status.Members[i].Granted {
		return wait(ReasonRefused, t.Status.Members[i].Message)
	}
	l := st.ObjectIn(ns, v1alpha1.KindKubeconfig, issuer)
	if !sharing.ComposedFor(l, team, kc.GetName()) {
		return wait(condition.ReasonMissing, fmt.Sprintf("Tenant %s/%s has not composed Kubeconfig %s/%s for this one yet", ns, t.GetName(), ns, issuer))
	}
	issued := &v1alpha1.Kubeconfig{}
	required.GetIn(st, ns, v1alpha1.KindKubeconfig, issuer, issued)
	src := st.ObjectIn(ns, "Secret", from)
	data := src.Data[kubeconfigfile.SecretKey]
	if !src.Found || src.Controller != string(issued.GetUID()) || len(data) == 0 {
		return wait(condition.ReasonMissing, fmt.Sprintf("Kubeconfig %s/%s has not written its kubeconfig (Secret %s) yet", ns, issuer, from))
	}
	if o := st.Secret(out); o.Found && !st.Exists(secretKey) && (kc.GetUID() == "" || o.Controller != string(kc.GetUID())) {
		r.Conditions = []condition.Condition{{Type: TypeKubeconfigReady, Reason: ReasonSecretConflict,
			Message: fmt.Sprintf("Secret %s/%s (spec.secretRef.name) exists and was not created by this Kubeconfig; it is left untouched. Delete it or choose another spec.secretRef.name.", team, out)}}
		return r, nil
	}
	exists := st.Exists(secretKey)
	b.Set.Add(secretKey, kubeconfigfile.Secret(out, team, kc.GetName(), data), builder.Readiness(exists))
	ask()
	r.Desired = b.Set
	r.Status.Expiry = issued.Status.Expiry
	r.Conditions = []condition.Condition{{Type: condition.TypeInputsReady, Status: true, Reason: condition.ReasonAllPresent,
		Message: fmt.Sprintf("Tenant %s/%s grants this Kubeconfig; Kubeconfig %s/%s issued its certificate.", ns, t.GetName(), ns, issuer)}}
	if exists {
		r.Status.Phase, r.NotReady = v1alpha1.KubeconfigPhaseReady, false
		r.Conditions = append(r.Conditions, condition.Condition{Type: TypeKubeconfigReady, Status: true, Reason: ReasonSecretWritten,
			Message: fmt.Sprintf("Secret %s/%s holds the kubeconfig of user %s for FrontProxy %s/%s.", team, out, kc.Spec.Username, ns, ref.Name)})
	} else {
		r.Conditions = append(r.Conditions, condition.Condition{Type: TypeKubeconfigReady, Reason: ReasonSecretPending,
			Message: fmt.Sprintf("Secret %s/%s is composed; waiting for Crossplane to create it.", team, out)})
	}
	return r, nil
}
