package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestExtraVolumes: what the API server would refuse in a component's extra volumes and
// mounts is refused on the XR, naming the field.
func TestExtraVolumes(t *testing.T) {
	prop := func(m corev1.MountPropagationMode) *corev1.MountPropagationMode { return &m }
	cm := corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "corp-ca"}}}
	cases := map[string]struct {
		reason string
		vols   []corev1.Volume
		mounts []corev1.VolumeMount
		want   []string
	}{
		"Admitted": {
			reason: "A volume of a new name, mounted; HostToContainer and None propagation need no privilege.",
			vols:   []corev1.Volume{{Name: "corp-ca", VolumeSource: cm}},
			mounts: []corev1.VolumeMount{
				{Name: "corp-ca", MountPath: "/a", MountPropagation: prop(corev1.MountPropagationHostToContainer)},
				{Name: "corp-ca", MountPath: "/b", MountPropagation: prop(corev1.MountPropagationNone)},
			},
		},
		"NamesClash": {
			reason: "A volume named like a generated one, and a mount of a volume nobody declared.",
			vols:   []corev1.Volume{{Name: "kcp-ca", VolumeSource: cm}},
			mounts: []corev1.VolumeMount{{Name: "nowhere", MountPath: "/n"}},
			want: []string{
				`spec.extraVolumes[0].name: Duplicate value: "kcp-ca"`,
				`spec.extraVolumeMounts[0].name: Not found: "nowhere"`,
			},
		},
		"Bidirectional": {
			reason: "A hostile tenant asks for Bidirectional propagation, which only a privileged container may have: refused naming the field, not left for the API server to refuse the pod.",
			vols:   []corev1.Volume{{Name: "corp-ca", VolumeSource: cm}},
			mounts: []corev1.VolumeMount{{Name: "corp-ca", MountPath: "/a", MountPropagation: prop(corev1.MountPropagationBidirectional)}},
			want: []string{
				`spec.extraVolumeMounts[0].mountPropagation: Forbidden: Bidirectional propagation needs a privileged container, and this package runs none (Pod Security "restricted"): use HostToContainer or None`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := ExtraVolumes(field.NewPath("spec"), func() []string { return []string{"kcp-ca"} }, tc.vols, tc.mounts)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nExtraVolumes(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
