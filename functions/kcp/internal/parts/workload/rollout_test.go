package workload

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestRolloutAnnotations(t *testing.T) {
	cases := map[string]struct {
		reason string
		build  func(r *Rollout)
		want   map[string]string
	}{
		"Nothing": {
			reason: "Nothing recorded, no annotations.",
			build:  func(*Rollout) {},
			want:   map[string]string{},
		},
		"CertificatesSorted": {
			reason: "Certificate revisions are listed as name=revision, sorted by name, whatever the recording order; a later record for the same Secret wins.",
			build: func(r *Rollout) {
				r.Certificate("root-server", 3)
				r.Certificate("root-ca", 1)
				r.Certificate("root-client", 7)
				r.Certificate("root-server", 4)
			},
			want: map[string]string{
				"kcp.crossplane.io/certificate-revisions": "root-ca=1,root-client=7,root-server=4",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var r Rollout
			tc.build(&r)
			if diff := cmp.Diff(tc.want, r.Annotations()); diff != "" {
				t.Errorf("%s\nAnnotations(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRolloutConfigHash(t *testing.T) {
	hash := func(build func(r *Rollout)) string {
		var r Rollout
		build(&r)
		return r.Annotations()["kcp.crossplane.io/config-hash"]
	}
	reference := hash(func(r *Rollout) {
		r.Config("root-proxy-config", "aaaa")
		r.Config("Secret/etcd-client", "17")
	})
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(reference) {
		t.Fatalf("The config hash is 16 lower-case hex characters, got %q", reference)
	}
	cases := map[string]struct {
		reason string
		build  func(r *Rollout)
		same   bool
	}{
		"SameInputsOtherOrder": {
			reason: "The hash does not depend on the order inputs are recorded in.",
			build: func(r *Rollout) {
				r.Config("Secret/etcd-client", "17")
				r.Config("root-proxy-config", "aaaa")
			},
			same: true,
		},
		"FingerprintChanged": {
			reason: "A changed fingerprint (content or resourceVersion) changes the hash.",
			build: func(r *Rollout) {
				r.Config("root-proxy-config", "aaaa")
				r.Config("Secret/etcd-client", "18")
			},
		},
		"InputAdded": {
			reason: "An additional input changes the hash.",
			build: func(r *Rollout) {
				r.Config("root-proxy-config", "aaaa")
				r.Config("Secret/etcd-client", "17")
				r.Config("Secret/audit", "1")
			},
		},
		"KeyValueBoundary": {
			reason: "Moving characters between name and fingerprint changes the hash.",
			build: func(r *Rollout) {
				r.Config("root-proxy-configa", "aaa")
				r.Config("Secret/etcd-client", "17")
			},
		},
		"CertificatesDoNotAffectConfigHash": {
			reason: "Certificate revisions have their own annotation and leave the config hash alone.",
			build: func(r *Rollout) {
				r.Config("root-proxy-config", "aaaa")
				r.Config("Secret/etcd-client", "17")
				r.Certificate("root-server", 9)
			},
			same: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := hash(tc.build)
			if (got == reference) != tc.same {
				t.Errorf("%s\nAnnotations(): config hash %q vs reference %q, want same=%v", tc.reason, got, reference, tc.same)
			}
		})
	}
}

func TestRolloutRevisionChangesAnnotations(t *testing.T) {
	a, b := Rollout{}, Rollout{}
	a.Certificate("root-server", 1)
	b.Certificate("root-server", 2)
	if cmp.Equal(a.Annotations(), b.Annotations()) {
		t.Errorf("A renewed certificate (new revision) must change the pod annotations, got %v for both", a.Annotations())
	}
	c := Rollout{}
	c.Certificate("root-server", 1)
	if diff := cmp.Diff(a.Annotations(), c.Annotations()); diff != "" {
		t.Errorf("The same revisions give the same annotations.\nAnnotations(): -want, +got:\n%s", diff)
	}
}

func TestMountsHelpers(t *testing.T) {
	var m Mounts
	m.Secret("a", "secret-a", "/a")
	m.WritableSecret("b", "secret-b", "/b")
	m.ConfigMap("c", "cm-c", "/c")
	m.Secret("d", "secret-d", "/d")

	wantVolumes := []corev1.Volume{
		{Name: "a", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-a"}}},
		{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-b"}}},
		{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-c"}}}},
		{Name: "d", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-d"}}},
	}
	wantMounts := []corev1.VolumeMount{
		{Name: "a", MountPath: "/a", ReadOnly: true},
		{Name: "b", MountPath: "/b"},
		{Name: "c", MountPath: "/c", ReadOnly: true},
		{Name: "d", MountPath: "/d", ReadOnly: true},
	}
	if diff := cmp.Diff(wantVolumes, m.Volumes()); diff != "" {
		t.Errorf("Volumes keep the order they were added in.\nVolumes(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(wantMounts, m.VolumeMounts()); diff != "" {
		t.Errorf("Mounts are read-only except writable Secrets, in order.\nVolumeMounts(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"secret-a", "secret-b", "secret-d"}, m.SecretNames()); diff != "" {
		t.Errorf("SecretNames lists Secrets only, in mount order.\nSecretNames(): -want, +got:\n%s", diff)
	}

	s := Spec{Args: []string{"--x"}, Mounts: Mounts{m[0]}}
	s.Add(Spec{Args: []string{"--y", "--z"}, Mounts: Mounts{m[2]}})
	want := Spec{Args: []string{"--x", "--y", "--z"}, Mounts: Mounts{m[0], m[2]}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Add appends flags and mounts.\nSpec.Add(...): -want, +got:\n%s", diff)
	}
}
