package shard

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
)

// GeneratedFlags are the names of the flags the shard's kcp container gets from its spec,
// with every option on too, without its extra arguments.
func GeneratedFlags(sh *v1alpha1.Shard) []string {
	return kcpserver.Server{Name: sh.Name, Spec: &sh.Spec.CommonShardSpec}.GeneratedFlags()
}

// Warnings are accepted but probably not what the user meant: extra arguments that replace
// generated flags, and extra volumes a namespace enforcing Pod Security "restricted" refuses
// (the platform's choice, which a KcpInstallation's tenant does not have).
func Warnings(sh *v1alpha1.Shard) []string {
	spec := field.NewPath("spec")
	out := check.UnknownTemplateKeys("spec.certificateTemplates", sh.Spec.CertificateTemplates, templateKeys)
	out = append(out, check.GeneratedFlagWarnings(spec.Child("extraArgs"), func() []string { return GeneratedFlags(sh) }, sh.Spec.ExtraArgs)...)
	return append(out, check.RestrictedVolumeWarnings(spec.Child("extraVolumes"), sh.Spec.ExtraVolumes)...)
}
