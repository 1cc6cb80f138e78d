package v1alpha1

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKindsAreTheXRDs holds Kinds and ClaimKinds to the XRDs under apis/: one kind per XRD,
// and the claim kind of each XRD that offers claims.
func TestKindsAreTheXRDs(t *testing.T) {
	var kinds []string
	claims := map[string]string{}
	for _, x := range xrdSchemas(t, filepath.Join("..", "*", "definition.yaml")) {
		kinds = append(kinds, x.kind)
		if x.claimKind != "" {
			claims[x.kind] = x.claimKind
		}
	}
	kinds = slices.Compact(slices.Sorted(slices.Values(kinds))) // one entry per version
	if diff := cmp.Diff(kinds, slices.Sorted(slices.Values(Kinds))); diff != "" {
		t.Errorf("the kinds of apis/*/definition.yaml (-) and v1alpha1.Kinds (+) differ: add the new kind's constant to kinds.go, or remove the old one:\n%s", diff)
	}
	if diff := cmp.Diff(claims, ClaimKinds); diff != "" {
		t.Errorf("the claim kinds of apis/*/definition.yaml (-) and v1alpha1.ClaimKinds (+) differ:\n%s", diff)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(Kinds)))); n != len(Kinds) {
		t.Errorf("v1alpha1.Kinds names a kind twice: %v", Kinds)
	}
}
