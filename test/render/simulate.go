package render

import (
	"encoding/base64"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AnnotationResourceName is how render matches observed resources to desired ones.
const AnnotationResourceName = "crossplane.io/composition-resource-name"

// transitionTime is the fixed time of every simulated condition; render normalises the
// XR's own condition times to the same value.
const transitionTime = "2024-01-01T00:00:00Z"

// World is the cluster state one render sees.
type World struct {
	// Observed are the observed composed resources.
	Observed []*Object
	// Required are the Secrets and ConfigMaps offered as required resources.
	Required []*Object
}

// Simulator stands in for the controllers that act on composed resources: cert-manager
// issues Certificates and readies Issuers, the Deployment controller rolls Deployments out.
type Simulator struct {
	PKI PKI
	// Environment holds an example's non-XR documents.
	Environment []*Object
}

// Fresh is the world before anything was composed: only the user's Secrets and ConfigMaps.
func (s Simulator) Fresh() World {
	return World{Required: s.environment()}
}

// Observe returns the world after the controllers acted on the composed resources of a
// render. Certificates' Secrets are required resources, not observed ones: cert-manager
// creates them, the XR does not compose them.
func (s Simulator) Observe(composed []*Object) (World, error) {
	w := World{Required: s.environment()}
	issuers := map[string]bool{}
	for _, c := range composed {
		if isKind(c, "cert-manager.io", "Issuer") {
			issuers[c.GetNamespace()+"/"+c.GetName()] = true
		}
	}
	for _, c := range composed {
		if c.GetAnnotations()[AnnotationResourceName] == "" {
			return World{}, fmt.Errorf("composed %s %s has no %s annotation", c.GetKind(), c.GetName(), AnnotationResourceName)
		}
		o := c.DeepCopy()
		switch {
		case isKind(o, "cert-manager.io", "Certificate"):
			secret, err := s.issue(o, issuers)
			if err != nil {
				return World{}, err
			}
			w.Required = append(w.Required, secret)
		case isKind(o, "cert-manager.io", "Issuer"):
			o.Object["status"] = map[string]any{
				"conditions": []any{condition("Ready", "KeyPairVerified", "Signing CA verified")},
			}
		case isKind(o, "apps", "Deployment"):
			rollOut(o)
		}
		w.Observed = append(w.Observed, o)
	}
	return w, nil
}

// environment returns the user's Secrets and ConfigMaps as the API server would return them.
func (s Simulator) environment() []*Object {
	var out []*Object
	for _, e := range s.Environment {
		if e.GetAPIVersion() != "v1" || (e.GetKind() != "Secret" && e.GetKind() != "ConfigMap") {
			continue
		}
		o := e.DeepCopy()
		// The function keys rollouts of user inputs on resourceVersion, which a real object
		// always has.
		if o.GetResourceVersion() == "" {
			o.SetResourceVersion("1")
		}
		if o.GetKind() == "Secret" {
			foldStringData(o)
		}
		out = append(out, o)
	}
	return out
}

// foldStringData moves a Secret's stringData into data, as the API server does on write:
// the function reads data only.
func foldStringData(secret *Object) {
	sd, ok := secret.Object["stringData"].(map[string]any)
	delete(secret.Object, "stringData")
	if !ok {
		return
	}
	data, _ := secret.Object["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		s, _ := v.(string)
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	secret.Object["data"] = data
}

// issue marks a Certificate issued at revision 1 and returns the Secret cert-manager writes.
// CAs issued by an Issuer this XR composes get the intermediate fixture, other CAs (the
// root, from a user's issuer) the root fixture, and every other certificate the leaf.
func (s Simulator) issue(cert *Object, composedIssuers map[string]bool) (*Object, error) {
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	if secretName == "" {
		return nil, fmt.Errorf("Certificate %s has no spec.secretName", cert.GetName())
	}
	isCA, _, _ := unstructured.NestedBool(cert.Object, "spec", "isCA")
	issuer, _, _ := unstructured.NestedStringMap(cert.Object, "spec", "issuerRef")
	byComposedIssuer := (issuer["kind"] == "" || issuer["kind"] == "Issuer") &&
		(issuer["group"] == "" || issuer["group"] == "cert-manager.io") &&
		composedIssuers[cert.GetNamespace()+"/"+issuer["name"]]

	kp, ca := s.PKI.Leaf, s.PKI.IntermediateCA
	switch {
	case isCA && byComposedIssuer:
		kp, ca = s.PKI.IntermediateCA, s.PKI.RootCA
	case isCA:
		kp, ca = s.PKI.RootCA, s.PKI.RootCA
	}

	// The simulated controllers own status entirely: whatever render emitted is replaced.
	cert.Object["status"] = map[string]any{
		"conditions": []any{condition("Ready", "Ready", "Certificate is up to date and has not expired")},
		"revision":   int64(1),
		"notBefore":  kp.NotBefore.Format(time.RFC3339),
		"notAfter":   kp.NotAfter.Format(time.RFC3339),
	}

	secret := &Object{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"type":       "kubernetes.io/tls",
		"data": map[string]any{
			"tls.crt": base64.StdEncoding.EncodeToString(kp.Cert),
			"tls.key": base64.StdEncoding.EncodeToString(kp.Key),
			"ca.crt":  base64.StdEncoding.EncodeToString(ca.Cert),
		},
	}}
	secret.SetName(secretName)
	secret.SetNamespace(cert.GetNamespace())
	secret.SetResourceVersion("1")
	// cert-manager copies the secretTemplate and names the Certificate and issuer.
	labels, _, _ := unstructured.NestedStringMap(cert.Object, "spec", "secretTemplate", "labels")
	if len(labels) > 0 {
		secret.SetLabels(labels)
	}
	annotations, _, _ := unstructured.NestedStringMap(cert.Object, "spec", "secretTemplate", "annotations")
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations["cert-manager.io/certificate-name"] = cert.GetName()
	annotations["cert-manager.io/issuer-name"] = issuer["name"]
	annotations["cert-manager.io/issuer-kind"] = issuer["kind"]
	annotations["cert-manager.io/issuer-group"] = issuer["group"]
	secret.SetAnnotations(annotations)
	return secret, nil
}

// rollOut makes a Deployment fully available at generation 1.
func rollOut(d *Object) {
	replicas, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	if !found {
		replicas = 1 // the API server's default
	}
	d.SetGeneration(1)
	d.Object["status"] = map[string]any{
		"observedGeneration": int64(1),
		"replicas":           replicas,
		"readyReplicas":      replicas,
		"availableReplicas":  replicas,
		"updatedReplicas":    replicas,
		"conditions": []any{
			condition("Available", "MinimumReplicasAvailable", "Deployment has minimum availability."),
			condition("Progressing", "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", d.GetName())),
		},
	}
}

func condition(typ, reason, message string) any {
	return map[string]any{
		"type":               typ,
		"status":             "True",
		"reason":             reason,
		"message":            message,
		"lastTransitionTime": transitionTime,
	}
}

func isKind(o *Object, group, kind string) bool {
	gvk := o.GroupVersionKind()
	return gvk.Group == group && gvk.Kind == kind
}
