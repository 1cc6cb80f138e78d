package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestBreakerDropping(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	xr := func(conditions ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conditions}}}
	}
	responsive := func(status string, ago time.Duration) any {
		return map[string]any{"type": "Responsive", "status": status, "lastTransitionTime": now.Add(-ago).Format(time.RFC3339)}
	}
	cases := map[string]struct {
		reason  string
		breaker breaker
		xr      *unstructured.Unstructured
		want    bool
	}{
		"JustOpened": {
			reason: "The breaker opened a minute ago: it drops events for four more.",
			xr:     xr(map[string]any{"type": "Ready", "status": "True"}, responsive("False", time.Minute)),
			want:   true,
		},
		"HalfOpenAfterCooldown": {
			reason: "Five minutes and ten seconds after it opened an event can still be dropped, if one was let through less than 30 seconds before the cooldown ended.",
			xr:     xr(responsive("False", defaultBreakerCooldown+10*time.Second)),
			want:   true,
		},
		"StaleAtRest": {
			reason: "Responsive stays False at rest, where no event comes to close the breaker; six minutes after it opened the next event gets through, so a settled XR is not kept on the short TTL (it was, every five seconds, forever).",
			xr:     xr(responsive("False", 6*time.Minute)),
			want:   false,
		},
		"LongerCooldown": {
			reason:  "A platform that runs Crossplane with --circuit-breaker-cooldown=30m tells the function: six minutes after opening, the breaker still drops events.",
			breaker: breaker{cooldown: 30 * time.Minute},
			xr:      xr(responsive("False", 6*time.Minute)),
			want:    true,
		},
		"Closed": {
			reason: "Responsive True: every watch event gets through.",
			xr:     xr(responsive("True", time.Second)),
			want:   false,
		},
		"NoCondition": {
			reason: "Crossplane without a circuit breaker sets no Responsive condition.",
			xr:     xr(),
			want:   false,
		},
		"NoTime": {
			reason: "A False condition without a readable time counts as dropping: a wrong guess costs calls, never a change seen late.",
			xr:     xr(map[string]any{"type": "Responsive", "status": "False", "lastTransitionTime": "yesterday"}),
			want:   true,
		},
		"MalformedConditions": {
			reason: "Conditions that are not objects say nothing about the circuit breaker.",
			xr:     xr("Responsive"),
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.breaker.dropping(tc.xr, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ndropping(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
