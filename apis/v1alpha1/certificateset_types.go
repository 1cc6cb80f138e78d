package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// CertificateSet composes a group of cert-manager Issuers and Certificates for the RootShard
// or Shard that composes it. It is not for users: it exists because Crossplane counts every
// watch event of what an XR composes against that XR's circuit breaker, and cert-manager
// updates a Certificate about seven times while issuing it. A RootShard composing its 15
// Certificates itself spends Crossplane's default burst of 100 events before anything is
// issued; spread over CertificateSets, each XR stays under it. The composing XR sees a
// set's status change once, when every certificate in it is issued.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Issued",type="boolean",JSONPath=".status.issued"
type CertificateSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CertificateSetSpec   `json:"spec"`
	Status CertificateSetStatus `json:"status,omitempty"`
}

// CertificateSetSpec lists the objects of the set.
type CertificateSetSpec struct {
	// Issuers are cert-manager.io/v1 Issuers in the set's namespace.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Issuers []CertificateSetMember `json:"issuers,omitempty"`

	// Certificates are cert-manager.io/v1 Certificates in the set's namespace.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Certificates []CertificateSetMember `json:"certificates,omitempty"`
}

// CertificateSetMember is one object of a set, under the composition resource name the
// composing XR gave it.
type CertificateSetMember struct {
	// Key is the object's composition resource name, unique in the set.
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`
	Key string `json:"key"`

	// Resource is the object as the set composes it.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	Resource runtime.RawExtension `json:"resource"`
}

// CertificateSetStatus reports the set's certificates once every one is issued and every
// Issuer is ready; until then it is empty, so that the composing XR is not woken by each
// certificate on its way. The set has no condition of its own and is Ready once its members
// are applied: a condition that changes is an XR write that Crossplane may repeat several
// times a second, while a status field changes once.
type CertificateSetStatus struct {
	// Issued is true once every certificate of the set is issued and every Issuer is ready.
	// +optional
	Issued bool `json:"issued,omitempty"`

	// Certificates are the issued certificates by key, in the order of spec.certificates.
	// +optional
	Certificates []IssuedCertificate `json:"certificates,omitempty"`
}

// IssuedCertificate is what the composing XR needs of an issued certificate.
type IssuedCertificate struct {
	// Key is the certificate's composition resource name.
	Key string `json:"key"`
	// Revision is cert-manager's status.revision: a renewal raises it, which rolls the pods
	// that mount the certificate's Secret. 0 for a Certificate that adopted a valid Secret.
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// NotAfter is when the certificate expires (RFC 3339).
	// +optional
	NotAfter string `json:"notAfter,omitempty"`
}
