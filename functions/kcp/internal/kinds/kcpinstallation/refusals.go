package kcpinstallation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
)

// A refusal checks a planned installation against what the cluster holds: the platform's
// policy, the objects and neighbours already there, what the installation runs now. It
// returns what it refuses, each error naming the field and the fix, and warnings of what it
// accepts but would not accept from a new installation.
type refusal func(p *plan, st *seen) (field.ErrorList, []string)

// seen is what the refusals, and then the upgrade, read of the cluster: the observed state,
// and what each child that runs kcp runs, read from it once.
type seen struct {
	*observed.State
	members []member
}

// refusals are every check of an installation against observed state, in the order they run.
// The checks of one stage are reported together; the first stage that refuses ends the
// reconcile, before anything is composed, so nothing already running is changed.
var refusals = [][]refusal{
	// A development installation's limits, named on its own fields before the children's
	// checks name theirs; and never over a managed etcd it runs.
	{development},
	// The root shard's embedded cache would share its keys with the shard or another kcp.
	// First: the root shard's own check below would refuse it too, naming its own field.
	{embeddedCache},
	// What newPlan found: a child its own kind refuses, or extras a tenant may not add.
	{planned},
	// A tenant, who may write only KcpInstallations, must not use what the platform did not
	// allow, nor compose over objects this installation does not control. A taken or reserved
	// name also shares derived names: these come first, so that it is said once.
	{reservedPartNames, platformPolicy, takeover},
	// Two parts of this installation would compose objects of one name.
	{ownNames},
	// A part would compose an object of a name a neighbour composes.
	{neighbours},
	// A public name another installation, or the platform, serves.
	{hostnames},
	// A durable cache server whose keys kcp would store beside another's.
	{cacheKeyspace},
	// spec.image older than a kcp a child runs or ran.
	{downgrade},
}

// refuse runs the refusals, and returns the warnings and, at the first stage that refuses,
// its errors.
func refuse(p *plan, st *seen) ([]string, field.ErrorList) {
	var warnings []string
	for _, stage := range refusals {
		var errs field.ErrorList
		for _, check := range stage {
			e, w := check(p, st)
			errs = append(errs, e...)
			warnings = append(warnings, w...)
		}
		if len(errs) > 0 {
			return warnings, errs
		}
	}
	return warnings, nil
}

func development(p *plan, st *seen) (field.ErrorList, []string) {
	return checkDevelopment(p.inst, st.State), nil
}

func embeddedCache(p *plan, st *seen) (field.ErrorList, []string) {
	return checkEmbeddedCache(p.inst, st.State)
}

func planned(p *plan, _ *seen) (field.ErrorList, []string) {
	return p.errs, nil
}

func reservedPartNames(p *plan, _ *seen) (field.ErrorList, []string) {
	return checkNames(p.inst.Spec), nil
}

// platformPolicy holds the installation to the platform's policy: its issuers, Gateways,
// features, host aliases and limits. A policy that cannot be read refuses; none at all allows everything.
func platformPolicy(p *plan, st *seen) (field.ErrorList, []string) {
	pol, known, err := policy.Read(st.State)
	switch {
	case err != nil:
		return field.ErrorList{field.Forbidden(field.NewPath("spec", "certificates", "issuerRef"), err.Error())}, nil
	case !known:
		return nil, nil
	}
	errs := checkIssuers(p.inst, pol)
	errs = append(errs, checkGateways(p.inst, pol)...)
	errs = append(errs, checkFeatures(p.inst, pol)...)
	errs = append(errs, checkHostAliases(p, pol)...)
	return append(errs, checkLimits(p.inst, pol)...), nil
}

func takeover(p *plan, st *seen) (field.ErrorList, []string) {
	return checkTakeover(p.inst, p.children, p.etcds, st.State), nil
}

func ownNames(p *plan, _ *seen) (field.ErrorList, []string) {
	return checkOwnNames(p.namers), nil
}

func neighbours(p *plan, st *seen) (field.ErrorList, []string) {
	return checkNeighbours(p.inst, p.namers, st.State), nil
}

func hostnames(p *plan, st *seen) (field.ErrorList, []string) {
	return checkHostnames(p.inst, p.hosts, st.State), nil
}

func cacheKeyspace(p *plan, st *seen) (field.ErrorList, []string) {
	return checkCacheKeyspace(p.inst, p.children, st.State)
}

func downgrade(p *plan, st *seen) (field.ErrorList, []string) {
	if err := checkDowngrade(p.inst, st.members); err != nil {
		return field.ErrorList{err}, nil
	}
	return nil, nil
}
