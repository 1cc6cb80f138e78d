package builder

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// certificateSet names the CertificateSet Certificates and Issuers currently go to.
type certificateSet struct {
	name   string
	labels map[string]string
}

// InCertificateSet sends the Certificates and Issuers composed after it to the
// CertificateSet <XR>-<name> (composition resource certificateset-<name>), until the next
// call; "" composes them directly again. A RootShard's and a Shard's certificates go through
// sets so that cert-manager's status updates of them do not open the XR's circuit breaker
// in Crossplane (apis/v1alpha1/certificateset_types.go). Nothing else changes for the
// composer: the observed state answers for certificates in a set from the set's status.
//
// A Certificate or Issuer the XR already composes itself (an installation made before sets
// existed) stays with the XR: moving it would delete it and create it again under the set,
// and with cert-manager's --enable-certificate-owner-ref its Secret, a CA's key among them,
// would go with it.
func (b *Builder) InCertificateSet(name string, labels map[string]string) {
	b.set = certificateSet{name: name, labels: labels}
}

// addToSet adds an object to the current set and composes the set with every member so
// far: the last call composes it whole, and no call is needed after the last member. Each
// member is converted once and appended to the set's spec as JSON would decode it: the set
// grows in place instead of being built again with every member. Its labels are those of
// the first InCertificateSet that named it.
func (b *Builder) addToSet(key resource.Name, obj runtime.Object) {
	setKey := resource.Name("certificateset-" + b.set.name)
	member, err := desired.ToComposed(obj)
	if err != nil {
		// Cannot happen with the typed objects the composers build; if it did, the set as it
		// is stays, and nothing it composed is deleted.
		b.KeepOrWait(setKey, true, fmt.Sprintf("CertificateSet %s%s (%v)", b.Prefix, b.set.name, err))
		return
	}
	set := b.sets[b.set.name]
	if set == nil {
		if b.sets == nil {
			b.sets = map[string]*resource.Unstructured{}
		}
		set = b.newXR(v1alpha1.KindCertificateSet, b.Prefix+b.set.name, b.set.labels, map[string]any{})
		b.sets[b.set.name] = set
	}
	spec := set.Object["spec"].(map[string]any)
	list := "certificates" // the JSON names of v1alpha1.CertificateSetSpec's lists
	if member.GetKind() == "Issuer" {
		list = "issuers"
	}
	members, _ := spec[list].([]any)
	spec[list] = append(members, map[string]any{"key": string(key), "resource": jsonNumbers(member.Object)})
	b.Set.Add(setKey, set, Readiness(b.St.ConditionTrue(setKey, "Ready")))
}

// jsonNumbers turns the converter's integers into float64, as encoding/json decodes every
// number, in place: the set's spec is then what a JSON round trip of it would give.
func jsonNumbers(v map[string]any) map[string]any {
	for k, e := range v {
		v[k] = jsonNumber(e)
	}
	return v
}

func jsonNumber(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return jsonNumbers(x)
	case []any:
		for i, e := range x {
			x[i] = jsonNumber(e)
		}
	case int64:
		return float64(x)
	}
	return v
}
