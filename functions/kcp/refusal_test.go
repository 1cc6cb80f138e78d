package main

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
)

func TestInvalidMessage(t *testing.T) {
	groups := func(n, size int) field.ErrorList {
		var errs field.ErrorList
		for i := range n {
			errs = append(errs, field.Invalid(field.NewPath("spec", "groups").Index(i), strings.Repeat("g", size), "must start with tenant:team-a:"))
		}
		return errs
	}
	cases := map[string]struct {
		reason string
		errs   field.ErrorList
		// want are parts of the message, in order.
		want []string
	}{
		"Few": {
			reason: "A few errors are all named, in order.",
			errs:   groups(2, 10),
			want:   []string{"invalid Kubeconfig team-a/dev, nothing was changed: spec.groups[0]: Invalid value", "; spec.groups[1]: Invalid value"},
		},
		"Many": {
			reason: "32 long errors, one per group a team may list, are named until the message is full, then counted: the message lands in the XR's status, which its Tenant reads.",
			errs:   groups(32, 253),
			want:   []string{"spec.groups[0]: Invalid value", "spec.groups[3]: Invalid value", "; and 28 more"},
		},
		"OneHuge": {
			reason: "One error longer than the bound is named, shortened.",
			errs:   field.ErrorList{field.Invalid(field.NewPath("spec", "username"), strings.Repeat("u", 4096), "must start with tenant:team-a:")},
			want:   []string{"spec.username: Invalid value: \"uuu", " ..."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := invalid("Kubeconfig", "team-a", "dev", tc.errs).Error()
			if len(got) > sharing.MaxRefusalBytes {
				t.Errorf("%s\ninvalid(...) is %d bytes, want at most %d", tc.reason, len(got), sharing.MaxRefusalBytes)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%s\ninvalid(...) = %q\nwant it to contain, in order, %q", tc.reason, got, fmt.Sprint(tc.want))
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
