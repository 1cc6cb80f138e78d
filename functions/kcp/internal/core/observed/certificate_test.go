package observed

import (
	"testing"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func TestCertificateNotAfter(t *testing.T) {
	u := resource.NewUnstructured()
	u.Object = map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "status": map[string]any{"notAfter": "2027-01-01T00:00:00Z"}}
	st := New(map[resource.Name]*resource.Unstructured{"cert": u})
	if got := st.CertificateNotAfter("cert"); got != "2027-01-01T00:00:00Z" {
		t.Errorf("CertificateNotAfter = %q", got)
	}
	if got := st.CertificateNotAfter("missing"); got != "" {
		t.Errorf("an unknown Certificate has no notAfter, got %q", got)
	}
}

func TestController(t *testing.T) {
	st := New(nil).
		WithObject(map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "owned", "ownerReferences": []any{
			map[string]any{"uid": "other"},
			map[string]any{"uid": "xr", "controller": true},
		}}}).
		WithObject(map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "free"}})
	if got := st.Secret("owned").Controller; got != "xr" {
		t.Errorf("Controller = %q, want the UID of the controller owner reference", got)
	}
	if got := st.Secret("free").Controller; got != "" {
		t.Errorf("an object without owner references has no controller, got %q", got)
	}
}
