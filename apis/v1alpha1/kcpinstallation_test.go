package v1alpha1

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// TestInstallationVolumeSourceIsCore holds InstallationVolumeSource to a part of
// corev1.VolumeSource: every field is one of corev1.VolumeSource's, with its JSON name and
// type, so an installation's volume means what the same Kubernetes volume means.
func TestInstallationVolumeSourceIsCore(t *testing.T) {
	core := reflect.TypeFor[corev1.VolumeSource]()
	ours := reflect.TypeFor[InstallationVolumeSource]()
	for i := range ours.NumField() {
		f := ours.Field(i)
		c, ok := core.FieldByName(f.Name)
		if !ok {
			t.Errorf("InstallationVolumeSource.%s is not a field of corev1.VolumeSource", f.Name)
			continue
		}
		if c.Type != f.Type || jsonName(c) != jsonName(f) {
			t.Errorf("InstallationVolumeSource.%s is %s %q, corev1.VolumeSource's is %s %q", f.Name, f.Type, jsonName(f), c.Type, jsonName(c))
		}
	}
}

func jsonName(f reflect.StructField) string { return strings.Split(f.Tag.Get("json"), ",")[0] }

// TestInstallationVolume checks that Volume keeps every field: an installation's volume is the
// Kubernetes volume its JSON decodes to.
func TestInstallationVolume(t *testing.T) {
	mode := int32(0o440)
	cases := map[string]struct {
		reason string
		v      InstallationVolume
	}{
		"NameOnly": {
			reason: "A volume whose type the API server dropped stays without a type, for the function to refuse.",
			v:      InstallationVolume{Name: "node"},
		},
		"EveryType": {
			reason: "Every type is copied (a volume setting several is the API server's to refuse).",
			v: InstallationVolume{Name: "all", InstallationVolumeSource: InstallationVolumeSource{
				ConfigMap:             &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}, DefaultMode: &mode},
				CSI:                   &corev1.CSIVolumeSource{Driver: "csi.example.com"},
				DownwardAPI:           &corev1.DownwardAPIVolumeSource{DefaultMode: &mode},
				EmptyDir:              &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory},
				Ephemeral:             &corev1.EphemeralVolumeSource{},
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
				Projected:             &corev1.ProjectedVolumeSource{DefaultMode: &mode},
				Secret:                &corev1.SecretVolumeSource{SecretName: "tls"},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			var want corev1.Volume
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, tc.v.Volume()); diff != "" {
				t.Errorf("%s\nVolume(): -want (the JSON decoded as a corev1.Volume), +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestComponentExtraPodKeepsTheTemplate: Pod adds to a copy. The template it is given is the
// installation's scheduling, which the next component is built from too, so adding one
// component's pod labels to it would give them to every component.
func TestComponentExtraPodKeepsTheTemplate(t *testing.T) {
	scheduling := &Scheduling{NodeSelector: map[string]string{"zone": "a"}}
	tmpl := scheduling.DeploymentTemplate()
	before := scheduling.DeploymentTemplate()
	x := &ComponentExtra{PodLabels: map[string]string{"team": "a"}, HostAliases: []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"ldap"}}}}
	got := x.Pod(tmpl)
	if diff := cmp.Diff(before, tmpl); diff != "" {
		t.Errorf("Pod changed the template it was given: -before, +after:\n%s", diff)
	}
	if got.Spec.Template.Metadata.Labels["team"] != "a" || len(got.Spec.Template.Spec.HostAliases) != 1 || got.Spec.Template.Spec.NodeSelector["zone"] != "a" {
		t.Errorf("Pod(...) = %+v, want the scheduling with the label and the host alias", got.Spec.Template)
	}
	if (*ComponentExtra)(nil).Pod(tmpl) != tmpl || (&ComponentExtra{}).Pod(nil) != nil {
		t.Error("without labels, annotations or host aliases Pod must return the template it was given")
	}
}
