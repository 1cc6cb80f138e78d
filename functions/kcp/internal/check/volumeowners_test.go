package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestVolumeOwners: Kubernetes v1.37's volume fields, set by whoever writes the XR (a team, in
// its installation's extra). Largest values the schema admits: any int64 owner, any int32
// mode, 16 bind mount options. They reach the component's own files in its own namespace
// only, widen no certificate or identity, cost nothing shared, and the platform's policy does
// not decide them; what the API server would refuse is refused here, naming the field.
func TestVolumeOwners(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	m := func(v int32) *int32 { return &v }
	cases := map[string]struct {
		reason string
		vols   []corev1.Volume
		mounts []corev1.VolumeMount
		want   []string
	}{
		"OwnersAndNarrowingAdmitted": {
			reason: "Root or any user may own the team's own files; noexec only narrows a mount.",
			vols: []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultUser: n(0), Items: []corev1.KeyToPath{{Key: "k", Path: "p", User: n(65532)}}}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Mode: m(0o750)}}},
				{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: n(-1)}}}}}},
			},
			mounts: []corev1.VolumeMount{{Name: "a", MountPath: "/a", BindMountOptions: []string{"noexec", "nosuid"}}},
		},
		"NegativeOwnersAtAnyDepth": {
			reason: "A negative owner, at the source or deep in a projection, is refused where it was written; other numbers (a token's expirationSeconds) are not owners.",
			vols: []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultUser: n(-1)}}},
				{Name: "b", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "x", User: n(-7)}}}}}}}},
			},
			want: []string{
				`spec.extra.volumes[0].configMap.defaultUser: Invalid value: -1`,
				`spec.extra.volumes[1].projected.sources[0].downwardAPI.items[0].user: Invalid value: -7`,
			},
		},
		"ModeAndMountOptionsOutOfRange": {
			reason: "An emptyDir mode past 0777 and a bind mount option that would widen a mount (rw, suid) are refused.",
			vols:   []corev1.Volume{{Name: "a", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Mode: m(0o4777)}}}},
			mounts: []corev1.VolumeMount{{Name: "a", MountPath: "/a", BindMountOptions: []string{"nodev", "suid"}}},
			want: []string{
				`spec.extra.volumes[0].emptyDir.mode: Invalid value: 2559`,
				`spec.extra.volumeMounts[0].bindMountOptions[1]: Unsupported value: "suid"`,
			},
		},
	}
	p := field.NewPath("spec", "extra")
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range VolumeOwners(p.Child("volumes"), tc.vols, p.Child("volumeMounts"), tc.mounts) {
				s := e.Error()
				for _, w := range tc.want {
					if len(s) >= len(w) && s[:len(w)] == w {
						s = w
					}
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nVolumeOwners(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
