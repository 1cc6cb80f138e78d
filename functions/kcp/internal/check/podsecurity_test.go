package check

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// TestVolumeTypesClassified fails when corev1.VolumeSource has a field restrictedVolumeTypes
// does not classify (Kubernetes added a volume type: decide whether a tenant may mount it),
// or when the table names one that no longer exists.
func TestVolumeTypesClassified(t *testing.T) {
	fields := map[string]bool{}
	for _, f := range volumeSourceFields() {
		fields[f] = true
		if _, ok := restrictedVolumeTypes[f]; !ok {
			t.Errorf("corev1.VolumeSource.%s is not classified in restrictedVolumeTypes: say whether Pod Security \"restricted\" admits it", f)
		}
	}
	for f := range restrictedVolumeTypes {
		if !fields[f] {
			t.Errorf("restrictedVolumeTypes classifies %s, which corev1.VolumeSource does not have", f)
		}
	}
	want := []string{"emptyDir", "secret", "persistentVolumeClaim", "downwardAPI", "configMap", "projected", "csi", "ephemeral"}
	if diff := cmp.Diff(want, AllowedVolumeTypes()); diff != "" {
		t.Errorf("AllowedVolumeTypes() is Pod Security restricted's list, in VolumeSource's order: -want, +got:\n%s", diff)
	}
}

func TestRestrictedVolumes(t *testing.T) {
	p := field.NewPath("spec", "rootShard", "extra", "volumes")
	vol := func(name string, src corev1.VolumeSource) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: src}
	}
	cases := map[string]struct {
		reason string
		vols   []corev1.Volume
		want   []string
	}{
		"EveryAdmittedType": {
			reason: "The types restricted admits are accepted.",
			vols: []corev1.Volume{
				vol("a", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}),
				vol("b", corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}),
				vol("c", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}),
				vol("d", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "x"}}),
				vol("e", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}),
				vol("f", corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{}}),
				vol("g", corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "x"}}),
				vol("h", corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}),
			},
		},
		"HostPathToTheNodesRoot": {
			reason: "A hostPath volume reaches the node's files: refused naming the volume's type field.",
			vols:   []corev1.Volume{vol("ok", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}), vol("root", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}})},
			want:   []string{`spec.rootShard.extra.volumes[1].hostPath: Forbidden: volume "root" is of type hostPath, which Pod Security "restricted" does not admit and an installation may not mount; use one of emptyDir, secret, persistentVolumeClaim, downwardAPI, configMap, projected, csi, ephemeral (a persistentVolumeClaim or csi volume for storage)`},
		},
		"NFSShareOfAnotherTeam": {
			reason: "An NFS volume mounts any share the node reaches, another team's included.",
			vols:   []corev1.Volume{vol("share", corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.0.0.1", Path: "/exports/team-b"}})},
			want:   []string{`spec.rootShard.extra.volumes[0].nfs: Forbidden: volume "share" is of type nfs`},
		},
		"GitRepoRunsGitOnTheNode": {
			reason: "gitRepo runs git on the node as root.",
			vols:   []corev1.Volume{vol("repo", corev1.VolumeSource{GitRepo: &corev1.GitRepoVolumeSource{Repository: "https://example.com/x"}})},
			want:   []string{`spec.rootShard.extra.volumes[0].gitRepo: Forbidden`},
		},
		"TwoTypesInOneVolume": {
			reason: "A volume setting an admitted and a refused type is refused for the refused one.",
			vols:   []corev1.Volume{vol("both", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}, HostPath: &corev1.HostPathVolumeSource{Path: "/var/run"}})},
			want:   []string{`spec.rootShard.extra.volumes[0].hostPath: Forbidden`},
		},
		"ImageVolume": {
			reason: "An image volume pulls any image onto the node; restricted does not list it.",
			vols:   []corev1.Volume{vol("img", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "evil.example.com/x"}})},
			want:   []string{`spec.rootShard.extra.volumes[0].image: Forbidden`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := messages(RestrictedVolumes(p, tc.vols))
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nRestrictedVolumes(): got %q, want %q", tc.reason, got, tc.want)
			}
			for i := range got {
				if len(got[i]) < len(tc.want[i]) || got[i][:len(tc.want[i])] != tc.want[i] {
					t.Errorf("%s\nRestrictedVolumes()[%d]:\n got: %s\nwant: %s...", tc.reason, i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestInstallationVolumeTypesAreRestricted holds an installation's schema to the volume types
// an installation may mount: v1alpha1.InstallationVolumeSource offers exactly the types
// Pod Security "restricted" admits, so the API server (with strict field validation) refuses
// the others and what it drops reaches UntypedVolumes.
func TestInstallationVolumeTypesAreRestricted(t *testing.T) {
	var offered []string
	st := reflect.TypeFor[v1alpha1.InstallationVolumeSource]()
	for i := range st.NumField() {
		offered = append(offered, strings.Split(st.Field(i).Tag.Get("json"), ",")[0])
	}
	if diff := cmp.Diff(AllowedVolumeTypes(), offered, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("v1alpha1.InstallationVolumeSource offers the types restricted admits: -AllowedVolumeTypes(), +offered:\n%s", diff)
	}
}

func TestUntypedVolumes(t *testing.T) {
	p := field.NewPath("spec", "rootShard", "extra", "volumes")
	cases := map[string]struct {
		reason string
		vols   []corev1.Volume
		want   []string
	}{
		"Typed": {
			reason: "A volume of a type is not this check's business.",
			vols:   []corev1.Volume{{Name: "ca", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}}},
		},
		"TypeDroppedByTheAPIServer": {
			reason: "A hostPath volume on an installation reaches the function as its name alone: refused naming the volume, not made an emptyDir.",
			vols: []corev1.Volume{
				{Name: "ok", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "node"},
			},
			want: []string{`spec.rootShard.extra.volumes[1]: Required value: volume "node" sets no type an installation may mount: set one of emptyDir, secret, persistentVolumeClaim, downwardAPI, configMap, projected, csi, ephemeral (a persistentVolumeClaim or csi volume for storage); any other type (hostPath, nfs, an in-tree cloud disk, ...) is not part of an installation's schema and the API server drops it`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, messages(UntypedVolumes(p, tc.vols))); diff != "" {
				t.Errorf("%s\nUntypedVolumes(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
