package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Mode selects how the widget runs.
// +kubebuilder:validation:Enum=Single;HighAvailability
type Mode string

// WidgetSpec is the desired state of a Widget.
// +kubebuilder:validation:XValidation:rule="self.mode != 'HighAvailability' || self.replicas >= 3",message="HighAvailability needs at least 3 replicas"
type WidgetSpec struct {
	// Mode of operation.
	// +kubebuilder:default=Single
	Mode Mode `json:"mode,omitempty"`

	// Replicas to run.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=9
	// +kubebuilder:default=1
	Replicas int32 `json:"replicas,omitempty"`

	// Hostname clients use.
	// +kubebuilder:validation:MinLength=1
	Hostname string `json:"hostname"`

	// Volumes mounted into the widget.
	// +optional
	// +listType=map
	// +listMapKey=name
	Volumes []corev1.Volume `json:"volumes,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// URL the widget is reachable at.
	URL string `json:"url,omitempty"`

	// Conditions are owned by Crossplane and must be dropped.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// A Widget is a sample composite resource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories=sample,shortName=wdg
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Hostname",type=string,JSONPath=`.spec.hostname`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,priority=1
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 40",message="name must be at most 40 characters"
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList contains a list of Widget.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// GadgetSpec is the desired state of a Gadget.
type GadgetSpec struct {
	// Size of the gadget.
	// +kubebuilder:validation:Enum=S;M;L
	Size string `json:"size"`
}

// A Gadget is a cluster-scoped sample composite resource.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec"`
}
