package kcpimage

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestResolve(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   *v1alpha1.ImageSpec
		want   Image
		str    string
	}{
		"Nil": {
			reason: "No image spec: kcp-operator's default repository and tag.",
			want:   Image{Repository: "ghcr.io/kcp-dev/kcp", Tag: "v0.32.3"},
			str:    "ghcr.io/kcp-dev/kcp:v0.32.3",
		},
		"Empty": {
			reason: "Empty fields default too.",
			spec:   &v1alpha1.ImageSpec{},
			want:   Image{Repository: "ghcr.io/kcp-dev/kcp", Tag: "v0.32.3"},
			str:    "ghcr.io/kcp-dev/kcp:v0.32.3",
		},
		"TagOnly": {
			reason: "A tag alone keeps the default repository.",
			spec:   &v1alpha1.ImageSpec{Tag: "v0.31.6"},
			want:   Image{Repository: "ghcr.io/kcp-dev/kcp", Tag: "v0.31.6"},
			str:    "ghcr.io/kcp-dev/kcp:v0.31.6",
		},
		"Everything": {
			reason: "Repository, tag and pull secrets are taken as given.",
			spec: &v1alpha1.ImageSpec{
				Repository: "registry.example.com/kcp", Tag: "main",
				ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
			},
			want: Image{Repository: "registry.example.com/kcp", Tag: "main", PullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}},
			str:  "registry.example.com/kcp:main",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Resolve(tc.spec)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nResolve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.str, got.String()); diff != "" {
				t.Errorf("%s\nResolve(...).String(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParse(t *testing.T) {
	cases := map[string]struct {
		reason string
		ref    string
		want   Image
		ok     bool
	}{
		"Tagged":       {reason: "repository:tag, as String writes it.", ref: "ghcr.io/kcp-dev/kcp:v0.32.3", want: Image{Repository: "ghcr.io/kcp-dev/kcp", Tag: "v0.32.3"}, ok: true},
		"RegistryPort": {reason: "A registry's port is not a tag.", ref: "registry:5000/kcp:v1", want: Image{Repository: "registry:5000/kcp", Tag: "v1"}, ok: true},
		"NoTag":        {reason: "Without a tag an ImageSpec cannot name it.", ref: "registry:5000/kcp"},
		"Digest":       {reason: "By digest an ImageSpec cannot name it.", ref: "kcp@sha256:abc"},
		"Empty":        {reason: "Nothing to parse.", ref: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := Parse(tc.ref)
			if ok != tc.ok || got.String() != tc.want.String() {
				t.Errorf("%s\nParse(%q) = %+v, %v, want %+v, %v", tc.reason, tc.ref, got, ok, tc.want, tc.ok)
			}
		})
	}
}
