package shard

import (
	"fmt"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
)

// TypeRegistered says whether kcp has this shard's Shard object in its root workspace: the
// shard writes it when it first starts, and the front-proxy and workspace scheduling use it.
const TypeRegistered = "Registered"

// Reasons of Registered.
const (
	ReasonRegistered    = "Registered"
	ReasonNotRegistered = "NotRegistered"
	ReasonNotObserved   = "NotObserved"
)

// registration is the requirement for the Object through which the RootShard observes this
// shard's kcp Shard object (and deletes it once this XR is gone).
func registration(root names.RootShard, shard string) result.Requirement {
	return result.Requirement{APIVersion: inkcp.APIVersion, Kind: inkcp.KindObject, Name: root.Registration(shard)}
}

// registered reports Registered for the composer's shard. Only a RootShard of the shard's
// own namespace composes the Object that observes the registration; of a RootShard in
// another namespace, named by its reference Secret, it cannot be read here.
func (c *composer) registered() condition.Condition {
	if !c.read.SameNamespace(c.b.Namespace) {
		return condition.Condition{Type: TypeRegistered, Reason: ReasonNotObserved, Message: fmt.Sprintf(
			"RootShard %s/%s is in another namespace (%s); whether kcp registered this shard is observed there, by its Object %s.",
			c.rs.Namespace, c.rs.Name, c.read.Field(), c.root.Registration(c.sh.GetName()))}
	}
	return registered(c.b.St, c.root, c.sh.GetName())
}

// registered reports Registered from that Object. It never gates readiness: a shard is
// registered by kcp once it runs, and what runs is what Available reports.
func registered(st *observed.State, root names.RootShard, shard string) condition.Condition {
	c := condition.Condition{Type: TypeRegistered}
	name := root.Registration(shard)
	l := st.Object(inkcp.KindObject, name)
	if !l.Found {
		c.Reason = ReasonNotObserved
		c.Message = fmt.Sprintf("RootShard %s has not composed Object %s, which observes kcp's Shard %s in workspace root, yet.", root, name, shard)
		return c
	}
	if ok, _, _, _ := observed.ConditionOf(l.Object, "Ready"); ok {
		c.Status, c.Reason = true, ReasonRegistered
		c.Message = fmt.Sprintf("kcp's Shard %s exists in workspace root (observed by Object %s).", shard, name)
		return c
	}
	c.Reason = ReasonNotRegistered
	c.Message = fmt.Sprintf("kcp's Shard %s is not observed in workspace root yet (Object %s)", shard, name)
	if ok, _, msg, found := observed.ConditionOf(l.Object, "Synced"); found && !ok && msg != "" {
		c.Message += ": " + msg
	}
	c.Message += "."
	return c
}

// TypeSchedulable says whether kcp may schedule new workspaces onto this shard, as kcp's
// Shard object says: not while it carries kcp's unschedulable annotation, which the
// RootShard sets while none of this shard's pods is available (and anyone may set by hand).
const TypeSchedulable = "Schedulable"

// Reasons of Schedulable.
const (
	ReasonSchedulable   = "Schedulable"
	ReasonUnschedulable = "Unschedulable"
)

// schedulable reports Schedulable for the composer's shard, observed only where the
// registration is (registered says why).
func (c *composer) schedulable() condition.Condition {
	if !c.read.SameNamespace(c.b.Namespace) {
		return condition.Condition{Type: TypeSchedulable, Reason: ReasonNotObserved, Message: fmt.Sprintf(
			"RootShard %s/%s is in another namespace; whether kcp schedules workspaces onto this shard is observed there, by its Object %s.",
			c.rs.Namespace, c.rs.Name, c.root.Registration(c.sh.GetName()))}
	}
	return schedulable(c.b.St, c.root, c.sh.GetName())
}

// schedulable reports Schedulable from kcp's Shard object as the RootShard's Object last
// observed it; NotObserved until it has.
func schedulable(st *observed.State, root names.RootShard, shard string) condition.Condition {
	c := condition.Condition{Type: TypeSchedulable, Reason: ReasonNotObserved}
	name := root.Registration(shard)
	l := st.Object(inkcp.KindObject, name)
	status, _ := l.Object["status"].(map[string]any)
	atProvider, _ := status["atProvider"].(map[string]any)
	manifest, _ := atProvider["manifest"].(map[string]any)
	meta, _ := manifest["metadata"].(map[string]any)
	if meta == nil {
		c.Message = fmt.Sprintf("kcp's Shard %s is not observed in workspace root yet (Object %s).", shard, name)
		return c
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if why, ok := annotations[inkcp.UnschedulableAnnotation]; ok {
		c.Reason = ReasonUnschedulable
		c.Message = fmt.Sprintf("kcp schedules no new workspace onto this shard: kcp's Shard %s is annotated %s (%v).", shard, inkcp.UnschedulableAnnotation, why)
		return c
	}
	c.Status, c.Reason = true, ReasonSchedulable
	c.Message = fmt.Sprintf("kcp may schedule new workspaces onto this shard (kcp's Shard %s, observed by Object %s).", shard, name)
	return c
}
