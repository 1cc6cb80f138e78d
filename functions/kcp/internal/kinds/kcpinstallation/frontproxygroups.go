package kcpinstallation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// externalLogicalClusterAdminGroup is the group of the root shard's external logical cluster
// admin, with which kcp reaches logical clusters on other shards through the front-proxy.
const externalLogicalClusterAdminGroup = "system:kcp:external-logical-cluster-admin"

// validateFrontProxyGroups refuses filters on the first front-proxy that would keep from the
// shards a group the installation's own clients send through it: the admin kubeconfig's
// (spec.admin.groups) and kcp's external logical cluster admin's. kcp's front-proxy applies
// passOnGroups and dropGroups to client certificates too; without those groups the admin is
// refused everything, and kcp's requests across shards fail.
func validateFrontProxyGroups(s v1alpha1.KcpInstallationSpec) field.ErrorList {
	if len(s.FrontProxies) == 0 || s.FrontProxies[0].Auth == nil {
		return nil
	}
	auth := s.FrontProxies[0].Auth
	p := field.NewPath("spec", "frontProxies").Index(0).Child("auth")
	needed := []struct{ group, who string }{{externalLogicalClusterAdminGroup, "kcp's external logical cluster admin, with which the root shard reaches other shards' logical clusters"}}
	admin := []string{DefaultAdminGroup}
	if s.Admin != nil && len(s.Admin.Groups) > 0 {
		admin = s.Admin.Groups
	}
	for _, g := range admin {
		needed = append(needed, struct{ group, who string }{g, "the admin kubeconfig (spec.admin.groups)"})
	}
	var errs field.ErrorList
	for _, n := range needed {
		switch {
		case len(auth.PassOnGroups) > 0 && !matchesGroup(auth.PassOnGroups, n.group):
			errs = append(errs, field.Invalid(p.Child("passOnGroups"), auth.PassOnGroups, fmt.Sprintf(
				"group %s of %s goes through this front-proxy, and would not reach the shards: add %q", n.group, n.who, n.group)))
		case matchesGroup(auth.DropGroups, n.group):
			errs = append(errs, field.Invalid(p.Child("dropGroups"), auth.DropGroups, fmt.Sprintf(
				"group %s of %s goes through this front-proxy, and would not reach the shards: remove what matches it", n.group, n.who)))
		}
	}
	return errs
}

// matchesGroup reports whether one of kcp's front-proxy group filters names group: exactly,
// or as a prefix with a trailing *.
func matchesGroup(filters []string, group string) bool {
	for _, f := range filters {
		if prefix, ok := strings.CutSuffix(f, "*"); ok && strings.HasPrefix(group, prefix) || f == group {
			return true
		}
	}
	return false
}
