package kcpserver

import (
	"strconv"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// EncryptionConfigFile is the key of the EncryptionConfiguration in its Secret.
const EncryptionConfigFile = "config.yaml"

// batteriesArg is --batteries-included with the spec's batteries, kcp-operator's
// workspace-types when unset. An empty value creates none: kcp reads the list as given, and
// only a value starting with + or - as a change of its own default.
func (s Server) batteriesArg() string {
	batteries := v1alpha1.DefaultBatteries
	if b := s.Spec.Batteries; b != nil {
		batteries = *b
	}
	names := make([]string, len(batteries))
	for i, b := range batteries {
		names[i] = string(b)
	}
	return "--batteries-included=" + strings.Join(names, ",")
}

// featureArgs are the flags of the features kcp-operator does not have, after all of
// kcp-operator's: home workspaces, profiling and the audit log.
func (s Server) featureArgs() []string {
	var args []string
	if h := s.Spec.HomeWorkspaces; h != nil {
		args = append(args, "--enable-home-workspaces="+strconv.FormatBool(h.Enabled))
		if h.Enabled && len(h.CreatorGroups) > 0 {
			args = append(args, "--home-workspaces-home-creator-groups="+strings.Join(h.CreatorGroups, ","))
		}
	}
	if p := s.Spec.Profiling; p.On() {
		args = append(args, "--profiler-address="+p.Address())
	}
	if s.EncryptionConfig != "" {
		args = append(args, "--encryption-provider-config="+DirEncryptionConfig+"/"+EncryptionConfigFile)
	}
	return append(args, s.auditLog().Args...)
}

// auditLog is the audit log's flags, volume and the environment its path names.
func (s Server) auditLog() workload.AuditLogSpec {
	if a := s.Spec.Audit; a != nil {
		return workload.AuditLog(a.Log)
	}
	return workload.AuditLogSpec{}
}
