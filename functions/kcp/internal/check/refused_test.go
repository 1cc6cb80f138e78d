package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// messages flattens an error list for comparison.
func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestRefused(t *testing.T) {
	p := field.NewPath("spec", "x")
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	cases := map[string]struct {
		reason string
		errs   field.ErrorList
		want   []string
	}{
		"CommonNameOf64Bytes": {
			reason: "cert-manager accepts a common name of 64 bytes.",
			errs:   CommonName(p, strings.Repeat("a", 64)),
		},
		"CommonNameOf65Bytes": {
			reason: "cert-manager refuses a common name over 64 bytes; say so on the field the name comes from.",
			errs:   CommonName(p, strings.Repeat("a", 65)),
			want:   []string{"spec.x: Too long: may not be more than 64 bytes"},
		},
		"ImageReference": {
			reason: "A reference with a tag or a digest is fine.",
			errs:   append(ImageReference(p, "quay.io/coreos/etcd:v3.5.28"), ImageReference(p, "registry.example.com:5000/etcd@sha256:"+strings.Repeat("a", 64))...),
		},
		"ImageWithNewline": {
			reason: "A line break would reach the StatefulSet, which the API server refuses.",
			errs:   ImageReference(p, "quay.io/coreos/etcd:v3.5.28\nevil"),
			want:   []string{`spec.x: Invalid value: "quay.io/coreos/etcd:v3.5.28\nevil": must be an image reference such as quay.io/coreos/etcd:v3.5.28 (no spaces or line breaks)`},
		},
		"ImageTooLong": {
			reason: "A megabyte of reference is refused before it is copied anywhere, without repeating it.",
			errs:   ImageReference(p, strings.Repeat("a", 1<<20)),
			want:   []string{"spec.x: Too long: may not be more than 512 bytes"},
		},
		"NegativeRequest": {
			reason: "The API server refuses a negative CPU request.",
			errs:   Resources(p, &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: *q("-1")}}),
			want:   []string{`spec.x.requests[cpu]: Invalid value: "-1": must not be negative`},
		},
		"RequestAboveLimit": {
			reason: "The API server refuses a request above its limit.",
			errs:   Resources(p, &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: *q("2Gi")}, Limits: corev1.ResourceList{corev1.ResourceMemory: *q("1Gi")}}),
			want:   []string{`spec.x.requests[memory]: Invalid value: "2Gi": must not exceed its limit 1Gi`},
		},
		"ResourcesFine": {
			reason: "Requests at their limits are fine.",
			errs:   Resources(p, &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: *q("1Gi")}, Limits: corev1.ResourceList{corev1.ResourceMemory: *q("1Gi")}}),
		},
		"NegativeSize": {
			reason: "A volume of -1Gi is refused naming the field.",
			errs:   PositiveQuantity(p, q("-1Gi")),
			want:   []string{`spec.x: Invalid value: "-1Gi": must be greater than zero, for example 8Gi`},
		},
		"DNSNames": {
			reason: "DNS names and wildcards are fine; a name with a space or an underscore is not.",
			errs:   DNSNames(p, []string{"kcp.example.com", "*.corp.example.com", "bad name", "under_score.example.com"}),
			want: []string{
				`spec.x[2]: Invalid value: "bad name": must be a DNS name such as kcp.example.com or *.example.com`,
				`spec.x[3]: Invalid value: "under_score.example.com": must be a DNS name such as kcp.example.com or *.example.com`,
			},
		},
		"UserInfo": {
			reason: "Credentials in a URL would be copied where view reads them; the error does not repeat them.",
			errs:   NoUserInfo(p, "https://root:s3cret@etcd.example.com:2379"),
			want:   []string{`spec.x: Invalid value: "https://REDACTED@etcd.example.com:2379": must not carry credentials (user:password@): the URL is copied into arguments and ConfigMaps that view can read; remove them (for etcd, authenticate with client certificates, tlsConfig)`},
		},
		"EtcdEndpointWithUserInfo": {
			reason: "Etcd refuses an endpoint with credentials.",
			errs:   Etcd(p, v1alpha1.EtcdConfig{Endpoints: []string{"https://u:p@etcd:2379"}}),
			want:   []string{`spec.x.endpoints[0]: Invalid value: "https://REDACTED@etcd:2379": must not carry credentials`},
		},
		"BaseURLWithUserInfo": {
			reason: "A shard base URL with credentials is refused.",
			errs:   BaseURL(p, "https://u:p@shard.example.com:6443"),
			want:   []string{`spec.x: Invalid value: "https://REDACTED@shard.example.com:6443": must not carry credentials`},
		},
		"RepositoryTooLong": {
			reason: "A repository over 255 characters is refused without repeating it.",
			errs:   Image(p, &v1alpha1.ImageSpec{Repository: strings.Repeat("a", 256)}),
			want:   []string{"spec.x.repository: Too long: may not be more than 255 bytes"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := messages(tc.errs)
			if len(got) != len(tc.want) {
				t.Fatalf("%s\n-want, +got:\n%s", tc.reason, cmp.Diff(tc.want, got))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("%s\nerror %d:\n got: %s\nwant: %s...", tc.reason, i, got[i], tc.want[i])
				}
			}
		})
	}
}
