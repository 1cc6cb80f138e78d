package check

import (
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// VolumeOwners refuses, in vols and mounts (at pv and pm, the lists), the values Kubernetes
// v1.37's volume fields would have the API server refuse on the component's Deployment, where
// the message names no field of the XR: a file owner (`defaultUser`, `user`, at any depth of a
// volume source) below 0, an emptyDir `mode` outside 0 to 0777, a `bindMountOptions` entry
// other than noexec, nodev and nosuid. What they reach is the component's own files only: an
// owner gives no identity (the pod's user is Pod Security's), and a bind mount option can only
// narrow a mount.
func VolumeOwners(pv *field.Path, vols []corev1.Volume, pm *field.Path, mounts []corev1.VolumeMount) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vols {
		errs = append(errs, owners(pv.Index(i), reflect.ValueOf(v.VolumeSource))...)
		if d := v.EmptyDir; d != nil && d.Mode != nil && (*d.Mode < 0 || *d.Mode > 0o777) {
			errs = append(errs, field.Invalid(pv.Index(i).Child("emptyDir", "mode"), *d.Mode, "must be a file mode between 0 and 0777 (511)"))
		}
	}
	allowed := []string{string(corev1.BindMountOptionNoExec), string(corev1.BindMountOptionNoDev), string(corev1.BindMountOptionNoSUID)}
	for i, m := range mounts {
		for j, o := range m.BindMountOptions {
			if !slices.Contains(allowed, o) {
				errs = append(errs, field.NotSupported(pm.Index(i).Child("bindMountOptions").Index(j), o, allowed))
			}
		}
	}
	return errs
}

// owners walks a volume source and refuses each negative defaultUser or user in it.
func owners(p *field.Path, v reflect.Value) field.ErrorList {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if n, ok := v.Interface().(*int64); ok {
			if *n < 0 {
				return field.ErrorList{field.Invalid(p, *n, "a file owner is a user ID, 0 or more")}
			}
			return nil
		}
		return owners(p, v.Elem())
	case reflect.Slice:
		var errs field.ErrorList
		for i := range v.Len() {
			errs = append(errs, owners(p.Index(i), v.Index(i))...)
		}
		return errs
	case reflect.Struct:
		var errs field.ErrorList
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Int64 && name != "defaultUser" && name != "user" {
				continue // another number (expirationSeconds, ...): not an owner
			}
			errs = append(errs, owners(p.Child(name), fv)...)
		}
		return errs
	}
	return nil
}
