package main

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Crossplane's circuit breaker on an XR's watch events (the same in v2.3 and v2.4): when
// events come faster than it allows, it opens and drops them for --circuit-breaker-cooldown
// (five minutes unless the platform changed it), letting one through every 30 seconds; the
// first event after that closes it. A reconcile that finds it open sets the XR's Responsive
// condition False, and only a reconcile after an event got through sets it True again: at
// rest nothing gets through, so Responsive stays False long after the breaker stopped
// dropping anything. Read alone it would keep a converged XR on the short TTL forever (a
// reconcile every five seconds, seen on Crossplane v2.4.2 in e2e TestCrossplaneNext/QuietAtRest);
// its lastTransitionTime says whether the breaker can still be dropping events.
const (
	// defaultBreakerCooldown is Crossplane's default --circuit-breaker-cooldown.
	defaultBreakerCooldown = 5 * time.Minute
	// breakerHalfOpenInterval is how often an open breaker lets an event through (fixed in
	// Crossplane). An event just after the cooldown is still dropped if one was let through
	// less than this long before.
	breakerHalfOpenInterval = 30 * time.Second
)

// breaker is what the function knows of Crossplane's circuit breaker.
type breaker struct {
	// cooldown is Crossplane's --circuit-breaker-cooldown (defaultBreakerCooldown when 0).
	cooldown time.Duration
}

// dropping reports whether Crossplane may be dropping the XR's watch events at now: its
// Responsive condition turned False less than the cooldown and one half-open interval ago.
// A False condition without a readable time counts as dropping: a wrong guess costs calls,
// never a change seen late.
func (b breaker) dropping(xr *unstructured.Unstructured, now time.Time) bool {
	conds, _, _ := unstructured.NestedSlice(xr.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Responsive" {
			continue
		}
		if m["status"] != "False" {
			return false
		}
		s, _ := m["lastTransitionTime"].(string)
		since, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return true
		}
		cooldown := b.cooldown
		if cooldown <= 0 {
			cooldown = defaultBreakerCooldown
		}
		return now.Sub(since) < cooldown+breakerHalfOpenInterval
	}
	return false
}
