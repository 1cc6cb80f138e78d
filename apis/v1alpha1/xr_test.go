package v1alpha1

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryKindIsAnXR holds XR and Spec to Kinds: every kind's type is an XR, and the type
// of its spec field a Spec, so that a new kind can be handed between the function's packages
// as soon as it is added.
func TestEveryKindIsAnXR(t *testing.T) {
	xrs := map[string]XR{
		KindRootShard:              &RootShard{},
		KindShard:                  &Shard{},
		KindCacheServer:            &CacheServer{},
		KindFrontProxy:             &FrontProxy{},
		KindVirtualWorkspace:       &VirtualWorkspace{},
		KindKubeconfig:             &Kubeconfig{},
		KindWorkspace:              &Workspace{},
		KindKcpInstallation:        &KcpInstallation{},
		KindClaimedKcpInstallation: &ClaimedKcpInstallation{},
		KindCertificateSet:         &CertificateSet{},
		KindTenant:                 &Tenant{},
		KindTenantRequest:          &TenantRequest{},
		KindPublishedAPI:           &PublishedAPI{},
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(Kinds)), slices.Sorted(maps.Keys(xrs))); diff != "" {
		t.Errorf("every kind of Kinds needs its type in this test and an isXR method in xr.go: -kinds, +XR types:\n%s", diff)
	}
	specType := reflect.TypeFor[Spec]()
	for kind, xr := range xrs {
		if got := reflect.TypeOf(xr).Elem().Name(); got != kind {
			t.Errorf("the XR type of kind %s is %s", kind, got)
		}
		f, ok := reflect.TypeOf(xr).Elem().FieldByName("Spec")
		if !ok {
			t.Errorf("%s has no Spec field", kind)
			continue
		}
		if !f.Type.Implements(specType) {
			t.Errorf("%s's spec, a %s, is no Spec: give it an isSpec method in xr.go", kind, f.Type)
		}
	}
}
