package virtualworkspace

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/vwserver"
)

// MaxNameLength keeps <name>-virtual-workspace within the 63 characters of a Service name.
const MaxNameLength = 45

// Validate checks what the XRD schema cannot: every error names the field and how to fix it.
// A VirtualWorkspace that fails validation composes nothing new and deletes nothing.
func Validate(vw *v1alpha1.VirtualWorkspace) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.Budget(vw.Spec, check.Everywhere(check.PerKindCopies))...)
	errs = append(errs, check.Templates(vw.Spec)...)
	spec := field.NewPath("spec")
	s := vw.Spec
	errs = append(errs, check.NameLength(vw.GetName(), MaxNameLength)...)
	errs = append(errs, check.DisruptionBudget(spec.Child("podDisruptionBudget"), s.Replicas, builder.DefaultReplicas, s.PodDisruptionBudget)...)
	errs = append(errs, validateTarget(spec.Child("target"), s.Target)...)
	errs = append(errs, check.External(spec.Child("external"), s.External)...)
	errs = append(errs, check.ClusterDomain(spec.Child("clusterDomain"), s.ClusterDomain)...)
	errs = append(errs, check.Image(spec.Child("image"), s.Image)...)
	errs = append(errs, check.Replicas(spec.Child("replicas"), s.Replicas)...)
	errs = append(errs, check.Profiling(spec.Child("profiling"), s.Profiling)...)
	if s.Profiling.On() && len(s.Command) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("profiling"), "a custom spec.command's server may not take --profiler-address; remove profiling, or pass the flag your server takes in spec.extraArgs"))
	}
	errs = append(errs, check.Resources(spec.Child("resources"), s.Resources)...)
	if r := s.KubeconfigSecretRef; r != nil && r.Name == "" {
		errs = append(errs, field.Required(spec.Child("kubeconfigSecretRef", "name"), "name the Secret whose kubeconfig key the server uses, or remove kubeconfigSecretRef to use the target's logical-cluster-admin kubeconfig"))
	}
	if r := s.ClientCABundleRef; r != nil && r.Name == "" {
		errs = append(errs, field.Required(spec.Child("clientCABundleRef", "name"), "name the Secret whose tls.crt holds the additional client CAs"))
	}
	errs = append(errs, validateInitContainers(spec.Child("initContainers"), s.InitContainers)...)
	errs = append(errs, validateVolumes(spec, vw)...)
	return errs
}

// validateTarget requires exactly one of rootShardRef and shardRef, with a name. The XRD's
// CEL rule enforces the first part too.
func validateTarget(p *field.Path, t v1alpha1.VirtualWorkspaceTarget) field.ErrorList {
	switch {
	case t.RootShardRef != nil && t.ShardRef != nil:
		return field.ErrorList{field.Forbidden(p, "set exactly one of rootShardRef and shardRef, not both")}
	case t.RootShardRef == nil && t.ShardRef == nil:
		return field.ErrorList{field.Required(p, "set exactly one of rootShardRef (a RootShard) or shardRef (a Shard) in the same namespace, whose virtual workspaces this server serves")}
	case t.RootShardRef != nil && t.RootShardRef.Name == "":
		return field.ErrorList{field.Required(p.Child("rootShardRef", "name"), "name the RootShard whose virtual workspaces this server serves")}
	case t.ShardRef != nil && t.ShardRef.Name == "":
		return field.ErrorList{field.Required(p.Child("shardRef", "name"), "name the Shard whose virtual workspaces this server serves")}
	}
	return nil
}

// validateInitContainers requires unique container names that Kubernetes accepts.
func validateInitContainers(p *field.Path, ics []v1alpha1.VirtualWorkspaceInitContainer) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, ic := range ics {
		ip := p.Index(i)
		switch {
		case ic.Name == "":
			errs = append(errs, field.Required(ip.Child("name"), "name the init container"))
		case ic.Name == vwserver.ContainerName:
			errs = append(errs, field.Invalid(ip.Child("name"), ic.Name, fmt.Sprintf("%q is the name of the server container; choose another name", vwserver.ContainerName)))
		case seen[ic.Name]:
			errs = append(errs, field.Duplicate(ip.Child("name"), ic.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(ic.Name) {
				errs = append(errs, field.Invalid(ip.Child("name"), ic.Name, msg))
			}
			if ic.KubeconfigSecretRef != nil {
				for _, msg := range validation.IsDNS1123Label(vwserver.InitKubeconfigVolume(ic.Name)) {
					errs = append(errs, field.Invalid(ip.Child("name"), ic.Name, "with a kubeconfigSecretRef, the volume name "+vwserver.InitKubeconfigVolume(ic.Name)+" must be valid: "+msg))
				}
			}
		}
		seen[ic.Name] = true
		errs = append(errs, check.Image(ip.Child("image"), ic.Image)...)
		if r := ic.KubeconfigSecretRef; r != nil && r.Name == "" {
			errs = append(errs, field.Required(ip.Child("kubeconfigSecretRef", "name"), "name the Secret whose kubeconfig key this init container uses, or remove kubeconfigSecretRef to use the target's logical-cluster-admin kubeconfig"))
		}
	}
	return errs
}

// validateVolumes rejects the user's volumes whose names clash with generated ones (the
// pod would silently get only one of them), and mounts of volumes the pod does not have.
func validateVolumes(spec *field.Path, vw *v1alpha1.VirtualWorkspace) field.ErrorList {
	generated := GeneratedVolumeNames(vw)
	known := map[string]bool{}
	for _, n := range generated {
		known[n] = true
	}
	var errs field.ErrorList
	declare := func(p *field.Path, vols []corev1.Volume) {
		for i, v := range vols {
			if slices.Contains(generated, v.Name) {
				errs = append(errs, field.Duplicate(p.Index(i).Child("name"), v.Name))
			}
			known[v.Name] = true
		}
	}
	declare(spec.Child("extraVolumes"), vw.Spec.ExtraVolumes)
	for i, ic := range vw.Spec.InitContainers {
		declare(spec.Child("initContainers").Index(i).Child("volumes"), ic.Volumes)
	}
	check := func(p *field.Path, mounts []corev1.VolumeMount) {
		for i, m := range mounts {
			if !known[m.Name] {
				errs = append(errs, field.NotFound(p.Index(i).Child("name"), m.Name))
			}
		}
	}
	check(spec.Child("extraVolumeMounts"), vw.Spec.ExtraVolumeMounts)
	for i, ic := range vw.Spec.InitContainers {
		check(spec.Child("initContainers").Index(i).Child("volumeMounts"), ic.VolumeMounts)
	}
	return errs
}

// GeneratedVolumeNames lists every volume name the server may generate, with every optional
// volume switched on, so that any possible clash is caught.
func GeneratedVolumeNames(vw *v1alpha1.VirtualWorkspace) []string {
	spec := vw.Spec
	spec.KubeconfigSecretRef = &corev1.LocalObjectReference{Name: "x"}
	spec.ExtraVolumes = nil
	spec.InitContainers = nil
	for _, ic := range vw.Spec.InitContainers {
		spec.InitContainers = append(spec.InitContainers, v1alpha1.VirtualWorkspaceInitContainer{
			Name: ic.Name, KubeconfigSecretRef: &corev1.LocalObjectReference{Name: "x"},
		})
	}
	srv := vwserver.Server{Name: vw.Name, Spec: &spec, Root: names.RootShard("x"), RootCASecret: "x", TargetKubeconfig: "x", CacheServer: "x"}
	var out []string
	for _, v := range srv.Pod().Volumes {
		out = append(out, v.Name)
	}
	return out
}

// Warnings are accepted but probably not what the user meant.
func Warnings(vw *v1alpha1.VirtualWorkspace) []string {
	var out []string
	out = append(out, check.UnknownTemplateKeys("spec.certificateTemplates", vw.Spec.CertificateTemplates, templateKeys)...)
	if vw.Spec.CABundleSecretRef != nil {
		out = append(out, "spec.caBundleSecretRef is accepted for compatibility with kcp-operator and ignored, as kcp-operator ignores it")
	}
	out = append(out, extraWarnings(vw)...)
	return out
}
