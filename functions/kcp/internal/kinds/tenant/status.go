package tenant

import (
	"fmt"
	"slices"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
)

// A team chooses how many XRs it writes and what their names and refusals say; every Tenant
// and every team Kubeconfig of the installation reads this Tenant. So its status lists a
// bounded number of members, each with a bounded message, and counts the rest.
const (
	// MaxListedMembers is how many members status.members lists.
	MaxListedMembers = 32
	// maxMessage bounds a member's message, in bytes.
	maxMessage = 1024
	// maxNamed is how many refused or waiting XRs the MembersReady condition names.
	maxNamed = 10
)

// boundMembers lists granted members first (the platform's view of what runs), then refused
// ones, each in the order the Tenant considered them, at most MaxListedMembers, and returns
// how many were left out.
func boundMembers(ms []v1alpha1.TenantMember) ([]v1alpha1.TenantMember, int32) {
	if len(ms) == 0 {
		return nil, 0
	}
	out := make([]v1alpha1.TenantMember, 0, len(ms))
	for _, granted := range []bool{true, false} {
		for _, m := range ms {
			if m.Granted == granted {
				m.Message = condition.Truncate(m.Message, maxMessage)
				out = append(out, m)
			}
		}
	}
	if len(out) <= MaxListedMembers {
		return out, 0
	}
	return slices.Clip(out[:MaxListedMembers]), int32(len(out) - MaxListedMembers)
}

// named joins at most maxNamed of names, sorted, and says how many more there are.
func named(names []string, what string) string {
	slices.Sort(names)
	if len(names) <= maxNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more %s", strings.Join(names[:maxNamed], ", "), len(names)-maxNamed, what)
}
