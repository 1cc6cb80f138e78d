package check

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Placement checks spec.placement against the rest of a component's spec.
func Placement(fld *field.Path, p *v1alpha1.Placement, monitoring *v1alpha1.Monitoring) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	if p.ProviderConfigRef.Name == "" {
		errs = append(errs, field.Required(fld.Child("providerConfigRef", "name"), "name the provider-kubernetes ProviderConfig that reaches the cluster to run in"))
	}
	if monitoring.On() {
		// The PodMonitor would be composed here, scraping pods that run elsewhere.
		errs = append(errs, field.Forbidden(field.NewPath("spec", "monitoring", "enabled"), "a placed component cannot be monitored by a PodMonitor composed in this cluster yet; turn monitoring off, or scrape it with the other cluster's Prometheus"))
	}
	return errs
}

// PlacedReach checks that a component placed in another cluster reaches its RootShard:
// by spec.shardBaseURL, since the RootShard's Service name resolves in this cluster only.
func PlacedReach(fld *field.Path, p *v1alpha1.Placement, rs *v1alpha1.RootShard) field.ErrorList {
	if p == nil || rs.Spec.ShardBaseURL != "" {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, p.ProviderConfigRef.Name,
		"RootShard "+rs.GetName()+" has no spec.shardBaseURL, and its Service name resolves only in its own cluster; set the RootShard's spec.shardBaseURL to a URL the other cluster reaches")}
}
