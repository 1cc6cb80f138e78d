// Package certificateset composes a CertificateSet: the cert-manager Issuers and Certificates
// a RootShard or Shard composes through an XR of their own, so that cert-manager's status
// updates of them count against this XR's circuit breaker in Crossplane, not against the
// RootShard's (see apis/v1alpha1/certificateset_types.go).
//
// The set reports its certificates in its status only once every one is issued and every
// Issuer is ready: the composing XR then sees one change of the set, not one per certificate
// on its way. A renewal changes a revision, and so the status, once.
package certificateset

import (
	"encoding/json"
	"fmt"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// decoded is one member of a set in its typed form, under its key.
type decoded struct {
	key resource.Name
	obj runtime.Object
}

// members decodes the set's Issuers, then its Certificates, each into its typed form in the
// set's namespace; a member that is not a cert-manager.io/v1 object of its list's kind, or
// not in the set's namespace, is an error naming its field.
func members(cs *v1alpha1.CertificateSet) ([]decoded, field.ErrorList) {
	var (
		out  []decoded
		errs field.ErrorList
	)
	seen := map[string]bool{}
	add := func(p *field.Path, m v1alpha1.CertificateSetMember, kind string, into interface {
		runtime.Object
		metav1.Object
	}) {
		if seen[m.Key] {
			errs = append(errs, field.Duplicate(p.Child("key"), m.Key))
		}
		seen[m.Key] = true
		var head metav1.PartialObjectMetadata
		if err := json.Unmarshal(m.Resource.Raw, &head); err != nil {
			errs = append(errs, field.Invalid(p.Child("resource"), "", err.Error()))
			return
		}
		if head.APIVersion != cmv1.SchemeGroupVersion.String() || head.Kind != kind {
			errs = append(errs, field.Invalid(p.Child("resource"), head.APIVersion+" "+head.Kind,
				fmt.Sprintf("must be a %s %s", cmv1.SchemeGroupVersion, kind)))
			return
		}
		if head.Name == "" {
			errs = append(errs, field.Required(p.Child("resource", "metadata", "name"), ""))
		}
		if ns := head.Namespace; ns != "" && ns != cs.Namespace {
			errs = append(errs, field.Invalid(p.Child("resource", "metadata", "namespace"), ns,
				"a CertificateSet composes only into its own namespace, "+cs.Namespace))
		}
		if err := json.Unmarshal(m.Resource.Raw, into); err != nil {
			errs = append(errs, field.Invalid(p.Child("resource"), "", err.Error()))
			return
		}
		into.SetNamespace(cs.Namespace)
		out = append(out, decoded{key: resource.Name(m.Key), obj: into})
	}
	for i, m := range cs.Spec.Issuers {
		add(field.NewPath("spec", "issuers").Index(i), m, cmv1.IssuerKind, &cmv1.Issuer{})
	}
	for i, m := range cs.Spec.Certificates {
		add(field.NewPath("spec", "certificates").Index(i), m, cmv1.CertificateKind, &cmv1.Certificate{})
	}
	return out, errs
}

// Validate checks that every member is a cert-manager.io/v1 object of the kind its list
// holds, in the set's namespace, under a key used once.
func Validate(cs *v1alpha1.CertificateSet) field.ErrorList {
	_, errs := members(cs)
	return errs
}

// Compose composes the set's Issuers and Certificates. The XR must have passed Validate.
//
// The set reports progress in its status alone, and counts as ready once its members are
// applied, so none of its conditions ever changes. A condition that changes is a write that
// Crossplane v2.3 and v2.4 may undo and redo from a stale cache several times a second, each
// time a watch event for the set and for the XR composing it (crossplane/crossplane#7062).
// Status fields come from this answer, not from that cache: they change once, when the last
// certificate is issued, and once per renewal.
func Compose(cs *v1alpha1.CertificateSet, st *observed.State) (result.Result[v1alpha1.CertificateSetStatus], field.ErrorList) {
	ms, errs := members(cs)
	if len(errs) > 0 {
		return result.Result[v1alpha1.CertificateSetStatus]{}, errs
	}
	var (
		set    desired.Set
		issued []v1alpha1.IssuedCertificate
	)
	done := true
	for _, m := range ms {
		if _, isCert := m.obj.(*cmv1.Certificate); isCert {
			done = done && st.CertificateIssued(m.key)
			issued = append(issued, v1alpha1.IssuedCertificate{Key: string(m.key), Revision: st.CertificateRevision(m.key), NotAfter: st.CertificateNotAfter(m.key)})
		} else {
			done = done && st.ConditionTrue(m.key, "Ready")
		}
		set.Add(m.key, m.obj, resource.ReadyTrue)
	}
	out := result.Result[v1alpha1.CertificateSetStatus]{Desired: set}
	if done {
		out.Status = v1alpha1.CertificateSetStatus{Issued: true, Certificates: issued}
	}
	return out, nil
}
