package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestEncryptionRewriteImages(t *testing.T) {
	p := field.NewPath("spec", "encryption")
	invalid := func(child, v string) []string {
		return []string{field.Invalid(p.Child("rewriteImages", child), v, "must be an image reference such as quay.io/coreos/etcd:v3.5.28 (no spaces or line breaks)").Error()}
	}
	key := []v1alpha1.EncryptionKey{{Name: "key-1", SecretRef: v1alpha1.LocalDataKeyReference{Name: "kcp-keys", Key: "key-1"}}}
	cases := map[string]struct {
		reason string
		images *v1alpha1.EncryptionRewriteImages
		want   []string
	}{
		"Defaults":    {reason: "Unset images keep the package's."},
		"Mirror":      {reason: "A mirror's registry with a port, a path and a tag.", images: &v1alpha1.EncryptionRewriteImages{Kubectl: "mirror.example.com:5000/k8s/kubectl:v1.35.3", Shell: "mirror.example.com/library/busybox:1.37.0"}},
		"Digest":      {reason: "A digest pins the image.", images: &v1alpha1.EncryptionRewriteImages{Shell: "mirror.example.com/busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}},
		"LineBreak":   {reason: "A line break would be carried into the Job's pod spec and the logs.", images: &v1alpha1.EncryptionRewriteImages{Kubectl: "kubectl:v1\nimage: evil"}, want: invalid("kubectl", "kubectl:v1\nimage: evil")},
		"Space":       {reason: "An image reference has no space; the kubelet would fail the pull much later.", images: &v1alpha1.EncryptionRewriteImages{Shell: "busybox latest"}, want: invalid("shell", "busybox latest")},
		"LeadingDash": {reason: "A reference starts with a letter or digit.", images: &v1alpha1.EncryptionRewriteImages{Shell: "-busybox"}, want: invalid("shell", "-busybox")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &v1alpha1.Encryption{Keys: key, RewriteImages: tc.images}
			if diff := cmp.Diff(tc.want, messages(Encryption(p, e, field.NewPath("spec", "extraArgs"), nil))); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
