// Package kcpimage is kcp's container image as the function composes it: the default
// release, an ImageSpec resolved against it, and an image reference read back from a running
// Deployment. kcpversion decides from its tag which of kcp's features to use.
package kcpimage

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// Image defaults: the kcp release this package is tested with.
const (
	DefaultRepository = "ghcr.io/kcp-dev/kcp"
	DefaultTag        = "v0.32.3"
)

// Image is a resolved container image.
type Image struct {
	Repository  string
	Tag         string
	PullSecrets []corev1.LocalObjectReference
}

// String is repository:tag.
func (i Image) String() string { return i.Repository + ":" + i.Tag }

// Parse reads repository:tag, as String writes it. ok is false for a reference by
// digest or without a tag: an ImageSpec cannot name those.
func Parse(ref string) (img Image, ok bool) {
	i := strings.LastIndex(ref, ":")
	if i <= 0 || strings.Contains(ref, "@") || strings.Contains(ref[i+1:], "/") || i == len(ref)-1 {
		return Image{}, false
	}
	return Image{Repository: ref[:i], Tag: ref[i+1:]}, true
}

// Resolve applies the defaults to an image spec.
func Resolve(s *v1alpha1.ImageSpec) Image {
	img := Image{Repository: DefaultRepository, Tag: DefaultTag}
	if s == nil {
		return img
	}
	if s.Repository != "" {
		img.Repository = s.Repository
	}
	if s.Tag != "" {
		img.Tag = s.Tag
	}
	img.PullSecrets = s.ImagePullSecrets
	return img
}
