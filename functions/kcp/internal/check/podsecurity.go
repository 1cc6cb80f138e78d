package check

import (
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// restrictedVolumeTypes classifies every field of corev1.VolumeSource by its JSON name: true
// for the types Pod Security "restricted" admits, false for the rest (node paths, network
// file systems, in-tree cloud disks, and the deprecated gitRepo, which runs git on the node).
// TestVolumeTypesClassified fails when Kubernetes adds a type that is not listed here, so a
// new type is never allowed by omission.
var restrictedVolumeTypes = map[string]bool{
	"configMap":             true,
	"csi":                   true,
	"downwardAPI":           true,
	"emptyDir":              true,
	"ephemeral":             true,
	"persistentVolumeClaim": true,
	"projected":             true,
	"secret":                true,

	"awsElasticBlockStore": false,
	"azureDisk":            false,
	"azureFile":            false,
	"cephfs":               false,
	"cinder":               false,
	"fc":                   false,
	"flexVolume":           false,
	"flocker":              false,
	"gcePersistentDisk":    false,
	"gitRepo":              false,
	"glusterfs":            false,
	"hostPath":             false,
	"image":                false,
	"iscsi":                false,
	"nfs":                  false,
	"photonPersistentDisk": false,
	"portworxVolume":       false,
	"quobyte":              false,
	"rbd":                  false,
	"scaleIO":              false,
	"storageos":            false,
	"vsphereVolume":        false,
}

// AllowedVolumeTypes are the volume types Pod Security "restricted" admits, for messages.
func AllowedVolumeTypes() []string {
	var out []string
	for _, t := range volumeSourceFields() {
		if restrictedVolumeTypes[t] {
			out = append(out, t)
		}
	}
	return out
}

// volumeSourceFields lists corev1.VolumeSource's JSON field names in declaration order.
func volumeSourceFields() []string {
	t := reflect.TypeOf(corev1.VolumeSource{})
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
	}
	return out
}

// volumeTypes lists the types a volume sets, by JSON name: one for a valid volume, none or
// several for one the API server would refuse anyway.
func volumeTypes(v corev1.Volume) []string {
	val := reflect.ValueOf(v.VolumeSource)
	var out []string
	for i, name := range volumeSourceFields() {
		if !val.Field(i).IsNil() {
			out = append(out, name)
		}
	}
	return out
}

// RestrictedVolumes refuses every volume of vols (at p, the list) whose type Pod Security
// "restricted" does not admit. A pod with one is refused at its creation in a namespace that
// enforces restricted, with a message naming no field of the XR; and what these types reach
// (the node's files, a network share, a cloud disk) is the platform's, not a tenant's.
func RestrictedVolumes(p *field.Path, vols []corev1.Volume) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vols {
		for _, t := range volumeTypes(v) {
			if !restrictedVolumeTypes[t] {
				errs = append(errs, field.Forbidden(p.Index(i).Child(t), fmt.Sprintf(
					"volume %q is of type %s, which Pod Security \"restricted\" does not admit and an installation may not mount; use one of %s (a persistentVolumeClaim or csi volume for storage)",
					v.Name, t, strings.Join(AllowedVolumeTypes(), ", "))))
			}
		}
	}
	return errs
}

// UntypedVolumes refuses every volume of vols (at p, the list) that sets no type. An
// installation's schema offers only the types an installation may mount; the API server drops
// any other from a client that does not ask for strict field validation (kubectl asks, and is
// refused), and decoding drops it from an XR that never met the API server (crossplane
// render): either way the volume is left without a type, which Kubernetes would quietly turn
// into an emptyDir. The tenant asked for something else: refused, naming the volume.
func UntypedVolumes(p *field.Path, vols []corev1.Volume) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vols {
		if len(volumeTypes(v)) == 0 {
			errs = append(errs, field.Required(p.Index(i), fmt.Sprintf(
				"volume %q sets no type an installation may mount: set one of %s (a persistentVolumeClaim or csi volume for storage); any other type (hostPath, nfs, an in-tree cloud disk, ...) is not part of an installation's schema and the API server drops it",
				v.Name, strings.Join(AllowedVolumeTypes(), ", "))))
		}
	}
	return errs
}

// RestrictedVolumeWarnings says, for a platform's per-kind XR, which volumes a namespace
// enforcing Pod Security "restricted" would refuse: the platform may mount them, as
// kcp-operator lets it, where the namespace admits them.
func RestrictedVolumeWarnings(p *field.Path, vols []corev1.Volume) []string {
	var out []string
	for _, e := range RestrictedVolumes(p, vols) {
		out = append(out, fmt.Sprintf("%s is a volume type Pod Security \"restricted\" does not admit: the pods are refused in a namespace that enforces it", e.Field))
	}
	return out
}
