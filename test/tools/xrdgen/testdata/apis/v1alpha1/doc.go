// Package v1alpha1 is a sample API used to test xrdgen.
// +kubebuilder:object:generate=false
// +groupName=sample.example.org
package v1alpha1
