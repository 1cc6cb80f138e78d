package check

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

func TestBudget(t *testing.T) {
	pullSecrets := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"name": "pull-secret-with-a-long-name-" + strings.Repeat("x", 20)}
		}
		return out
	}
	cases := map[string]struct {
		reason string
		spec   map[string]any
		copies Copies
		want   string // prefix of the only error; "" for none
	}{
		"Small": {
			reason: "A spec of a few KiB copied into a hundred objects is nowhere near the limit.",
			spec:   map[string]any{"image": map[string]any{"imagePullSecrets": pullSecrets(16)}},
			copies: Everywhere(100),
		},
		"PullSecretsCopiedIntoEveryChild": {
			reason: "5,000 pull secrets copied into 104 children: refused, naming the list, not the image.",
			spec:   map[string]any{"image": map[string]any{"repository": "ghcr.io/kcp-dev/kcp", "imagePullSecrets": pullSecrets(5000)}, "external": map[string]any{"hostname": "kcp.example.com"}},
			copies: Everywhere(104),
			want:   "spec.image.imagePullSecrets: Forbidden: ",
		},
		"OneHugeString": {
			reason: "A megabyte in one string, copied four times, names the string.",
			spec:   map[string]any{"image": map[string]any{"repository": strings.Repeat("a", 1<<20), "tag": "v1"}},
			copies: Everywhere(PerKindCopies),
			want:   "spec.image.repository: Forbidden: 1.0 MiB of it, copied into 4 composed objects, would make a response of about 4.0 MiB",
		},
		"LargeButCopiedOnce": {
			reason: "Per-shard entries are copied into their own child only: 1.5 MiB of shards is under the limit.",
			spec:   map[string]any{"shards": []any{map[string]any{"name": strings.Repeat("s", 1500<<10)}}},
			copies: func(f string) int {
				if f == "shards" {
					return 1
				}
				return 100
			},
		},
		"ManySmallFields": {
			reason: "No single field is large but together they are: the most expensive is named.",
			spec:   map[string]any{"a": strings.Repeat("a", 300<<10), "b": strings.Repeat("b", 400<<10)},
			copies: Everywhere(4),
			want:   "spec.b: Forbidden: ",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			raw, err := json.Marshal(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			errs := budget(raw, tc.copies)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("%s\nBudget(...): %v, want no error", tc.reason, errs)
			case tc.want != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want)):
				t.Errorf("%s\nBudget(...):\n got: %v\nwant: %s...", tc.reason, errs, tc.want)
			}
		})
	}
}

// TestBudgetOfASpec holds Budget of a typed spec to the walk TestBudget tests on JSON.
func TestBudgetOfASpec(t *testing.T) {
	secrets := make([]corev1.LocalObjectReference, 5000)
	for i := range secrets {
		secrets[i].Name = "pull-secret-with-a-long-name-" + strings.Repeat("x", 20)
	}
	spec := v1alpha1.RootShardSpec{CommonShardSpec: v1alpha1.CommonShardSpec{Image: &v1alpha1.ImageSpec{ImagePullSecrets: secrets}}}
	errs := Budget(spec, Everywhere(104))
	if want := "spec.image.imagePullSecrets: Forbidden: "; len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
		t.Errorf("Budget(a RootShardSpec with 5,000 pull secrets):\n got: %v\nwant: %s...", errs, want)
	}
	if errs := Budget(v1alpha1.RootShardSpec{}, Everywhere(104)); len(errs) > 0 {
		t.Errorf("Budget(an empty RootShardSpec): %v, want no error", errs)
	}
}
