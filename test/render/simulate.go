package render

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
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
	// Required are the objects offered as required resources: the function may ask for any
	// of them by name or by label.
	Required []*Object
}

// Simulator stands in for the controllers that act on composed resources: cert-manager
// issues Certificates and readies Issuers, the Deployment and StatefulSet controllers roll
// their workloads out, and Crossplane reconciles the XRs an XR composes.
type Simulator struct {
	PKI PKI
	// Environment holds an example's non-XR documents.
	Environment []*Object
}

// Fresh returns the world of each XR before anything was composed: the user's Secrets and
// ConfigMaps, and the example's other XRs as written.
func (s Simulator) Fresh(xrs []*Object) ([]World, error) {
	p := s.pool()
	for i, xr := range xrs {
		if err := p.add(withRenderUID(xr), i, describe(xr)); err != nil {
			return nil, err
		}
	}
	return p.worlds(make([]World, len(xrs))), nil
}

// Observe returns the world of each XR after the controllers acted on the renders outs, one
// per XR of the example in order. The world is shared: every XR sees the user's Secrets and
// ConfigMaps, the other XRs as rendered (with their status), the Secrets cert-manager wrote
// for any XR's Certificates, and the Secrets and ConfigMaps any XR composed. Each XR observes
// only its own composed resources; an XR it composed that is among outs, it observes as
// rendered there (Crossplane reconciled it).
//
// A composed metadata-only Secret named like a Secret cert-manager wrote adopts it: in a
// cluster they are one object, so both the adopting XR (under its composition resource name)
// and every requirer see cert-manager's Secret with the composed metadata merged in.
func (s Simulator) Observe(outs []*Output) ([]World, error) {
	p := s.pool()
	worlds := make([]World, len(outs))
	issued := make([][]*Object, len(outs))
	xrs := map[objectKey]*Object{}
	for _, out := range outs {
		xrs[keyOf(out.XR)] = out.XR
	}
	for i, out := range outs {
		observed, secrets, err := s.observe(out.Composed, xrs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", describe(out.XR), err)
		}
		worlds[i].Observed, issued[i] = observed, secrets
	}
	if err := adoptIssued(outs, worlds, issued); err != nil {
		return nil, err
	}
	for i, out := range outs {
		owner := describe(out.XR)
		if err := p.add(withRenderUID(out.XR), i, owner); err != nil {
			return nil, err
		}
		for _, secret := range issued[i] {
			from := fmt.Sprintf("cert-manager (Certificate %s of %s)", secret.GetAnnotations()["cert-manager.io/certificate-name"], owner)
			if err := p.add(secret, -1, from); err != nil {
				return nil, err
			}
		}
		for _, o := range worlds[i].Observed {
			if isKind(o, "", "Secret") || isKind(o, "", "ConfigMap") {
				if err := p.add(o, -1, "composed by "+owner); err != nil {
					return nil, err
				}
			}
		}
	}
	return p.worlds(worlds), nil
}

// adoptIssued merges every composed metadata-only Secret into the Secret cert-manager wrote
// under the same name, in place: the adopting XR observes the merged Secret, and the issued
// Secret offered to every XR is that same object. Two XRs adopting one Secret is an error:
// they would fight over its controller.
func adoptIssued(outs []*Output, worlds []World, issued [][]*Object) error {
	type ref struct{ xr, i int }
	byKey := map[objectKey]ref{}
	for x, secrets := range issued {
		for i, secret := range secrets {
			if _, ok := byKey[keyOf(secret)]; !ok {
				byKey[keyOf(secret)] = ref{x, i}
			}
		}
	}
	adopters := map[objectKey]int{}
	for x := range worlds {
		for i, o := range worlds[x].Observed {
			r, ok := byKey[keyOf(o)]
			if !ok || !isKind(o, "", "Secret") || !metadataOnly(o) {
				continue
			}
			if prev, ok := adopters[keyOf(o)]; ok {
				return fmt.Errorf("%s %s is adopted by two XRs: %s; %s", o.GetKind(), namespacedName(o), describe(outs[prev].XR), describe(outs[x].XR))
			}
			adopters[keyOf(o)] = x
			merged, err := adopt(issued[r.xr][r.i], o)
			if err != nil {
				return fmt.Errorf("%s: %w", describe(outs[x].XR), err)
			}
			worlds[x].Observed[i] = merged
			issued[r.xr][r.i] = merged
		}
	}
	return nil
}

// metadataOnly reports whether a composed object sets nothing but its metadata, as an XR
// adopting an object another controller writes does.
func metadataOnly(o *Object) bool {
	for k := range o.Object {
		switch k {
		case "apiVersion", "kind", "metadata":
		default:
			return false
		}
	}
	return true
}

// adopt returns the object server-side apply makes of an existing object and a composed
// metadata-only one: the existing object with the composed labels, annotations and owner
// references added. A label or annotation both set differently, or two controllers, is an
// error: the API server would reject it or the two writers would fight over it.
func adopt(existing, composed *Object) (*Object, error) {
	what := fmt.Sprintf("composed %s %s adopting the one cert-manager wrote", composed.GetKind(), namespacedName(composed))
	merged := existing.DeepCopy()
	meta, _ := composed.Object["metadata"].(map[string]any)
	for k := range meta {
		switch k {
		case "name", "namespace", "resourceVersion", "labels", "annotations", "ownerReferences":
		default:
			return nil, fmt.Errorf("%s sets metadata.%s, which the harness cannot merge", what, k)
		}
	}
	labels, err := union(existing.GetLabels(), composed.GetLabels())
	if err != nil {
		return nil, fmt.Errorf("%s: label %w", what, err)
	}
	annotations, err := union(existing.GetAnnotations(), composed.GetAnnotations())
	if err != nil {
		return nil, fmt.Errorf("%s: annotation %w", what, err)
	}
	merged.SetLabels(labels)
	merged.SetAnnotations(annotations)
	refs := existing.GetOwnerReferences()
	controllers := 0
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			controllers++
		}
	}
	for _, r := range composed.GetOwnerReferences() {
		if slices.ContainsFunc(refs, func(x metav1.OwnerReference) bool { return x.UID == r.UID }) {
			continue
		}
		if r.Controller != nil && *r.Controller {
			controllers++
		}
		refs = append(refs, r)
	}
	if controllers > 1 {
		return nil, fmt.Errorf("%s: it would have two controllers", what)
	}
	merged.SetOwnerReferences(refs)
	return merged, nil
}

// union merges two string maps; a key both set to different values is an error. It returns
// nil for two empty maps, so merging adds no empty field.
func union(a, b map[string]string) (map[string]string, error) {
	if len(a)+len(b) == 0 {
		return nil, nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if v, ok := out[k]; ok && v != b[k] {
			return nil, fmt.Errorf("%s is %q on one side and %q on the other", k, v, b[k])
		}
		out[k] = b[k]
	}
	return out, nil
}

// observe simulates the controllers acting on one XR's composed resources: it returns them
// as observed, and the Secrets cert-manager writes for its Certificates. Those Secrets are
// required resources, not observed ones: cert-manager creates them, the XR does not compose
// them.
func (s Simulator) observe(composed []*Object, xrs map[objectKey]*Object) (observed, issued []*Object, err error) {
	issuers := map[string]bool{}
	for _, c := range composed {
		if isKind(c, "cert-manager.io", "Issuer") {
			issuers[c.GetNamespace()+"/"+c.GetName()] = true
		}
	}
	for _, c := range composed {
		if c.GetAnnotations()[AnnotationResourceName] == "" {
			return nil, nil, fmt.Errorf("composed %s %s has no %s annotation", c.GetKind(), c.GetName(), AnnotationResourceName)
		}
		o := c.DeepCopy()
		switch {
		case isKind(o, "cert-manager.io", "Certificate"):
			secret, err := s.issue(o, issuers)
			if err != nil {
				return nil, nil, err
			}
			issued = append(issued, secret)
		case isKind(o, "cert-manager.io", "Issuer"):
			o.Object["status"] = map[string]any{
				"conditions": []any{condition("Ready", "KeyPairVerified", "Signing CA verified")},
			}
		case isKind(o, "apps", "Deployment"):
			rollOut(o)
		case isKind(o, "apps", "StatefulSet"):
			rollOutStatefulSet(o)
		case isKind(o, "", "Secret"):
			foldStringData(o)
		case isKind(o, "kubernetes.m.crossplane.io", "Object") && placed(o):
			applyInOtherCluster(o)
		case o.GroupVersionKind().Group == XRGroup && xrs[keyOf(o)] != nil:
			o = xrs[keyOf(o)].DeepCopy()
		}
		// As the API server returns every object; other XRs may key rollouts on it.
		if o.GetResourceVersion() == "" {
			o.SetResourceVersion("1")
		}
		observed = append(observed, o)
	}
	return observed, issued, nil
}

// pool returns a required-resource pool holding the user's Secrets and ConfigMaps and the
// platform's policy.
func (s Simulator) pool() *pool {
	p := &pool{index: map[objectKey]int{}}
	for _, e := range s.environment() {
		// Two documents of the same object in one example: the later one wins, as with
		// kubectl apply. That is the example's business, not the harness's.
		p.put(e, -1, "the example")
	}
	return p
}

// objectKey identifies an object the way the API server (and render's in-memory client) does.
type objectKey struct {
	group, kind, namespace, name string
}

func keyOf(o *Object) objectKey {
	gvk := o.GroupVersionKind()
	return objectKey{gvk.Group, gvk.Kind, o.GetNamespace(), o.GetName()}
}

// pool collects the objects of an example's simulated cluster that renders may require.
type pool struct {
	entries []poolEntry
	index   map[objectKey]int
}

type poolEntry struct {
	obj *Object
	// xr is the index of the XR this entry is, or -1 for any other object.
	xr   int
	from string
}

// add adds an object. The same object from two sources must be identical: in a cluster it
// is one object, so two producers disagreeing on it is a conflict the example must not have.
func (p *pool) add(o *Object, xr int, from string) error {
	if i, ok := p.index[keyOf(o)]; ok {
		prev := p.entries[i]
		a, err := MarshalObjects(prev.obj)
		if err != nil {
			return err
		}
		b, err := MarshalObjects(o)
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("%s %s has two different sources: %s; %s", o.GetKind(), namespacedName(o), prev.from, from)
		}
		return nil
	}
	p.put(o, xr, from)
	return nil
}

func (p *pool) put(o *Object, xr int, from string) {
	if i, ok := p.index[keyOf(o)]; ok {
		p.entries[i] = poolEntry{obj: o, xr: xr, from: from}
		return
	}
	p.index[keyOf(o)] = len(p.entries)
	p.entries = append(p.entries, poolEntry{obj: o, xr: xr, from: from})
}

// worlds sets the required resources of each XR's world: the whole pool except the XR
// itself. Render puts the XR, the observed and the required resources into one in-memory
// store keyed by kind, namespace and name, the required ones last. Offering an XR to its own
// render would replace the XR render reconciles (losing the uid and resourceRefs render gives
// it, so the observed resources look foreign). An XR's own composed Secrets and ConfigMaps
// are offered as the very objects it observes, so replacing them changes nothing.
func (p *pool) worlds(ws []World) []World {
	for i := range ws {
		var required []*Object
		for _, e := range p.entries {
			if e.xr != i {
				required = append(required, e.obj)
			}
		}
		ws[i].Required = required
	}
	return ws
}

// withRenderUID is an XR as another XR reads it from the cluster: with the uid render gives
// it when it reconciles it (derived from its kind, namespace and name), which the owner
// references of what it composes name. Render's output leaves it out.
func withRenderUID(xr *Object) *Object {
	if xr.GetUID() != "" {
		return xr
	}
	o := xr.DeepCopy()
	o.SetUID(types.UID(uuid.NewSHA1(uuid.Nil, []byte(o.GroupVersionKind().String()+"\x00"+o.GetNamespace()+"\x00"+o.GetName())).String()))
	return o
}

func describe(xr *Object) string { return xr.GetKind() + " " + namespacedName(xr) }

func namespacedName(o *Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// environment returns the user's Secrets and ConfigMaps as the API server would return them.
func (s Simulator) environment() []*Object {
	var out []*Object
	for _, e := range s.Environment {
		if !offered(e) {
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

// offered reports whether an example's object is one the function may read: the user's
// Secrets and ConfigMaps, the platform's self-service policy (an EnvironmentConfig),
// CustomResourceDefinitions, whose existence says an optional operator (prometheus-operator)
// is installed, and the ResourceQuotas a Tenant reads before it reads a team's XRs.
func offered(o *Object) bool {
	switch o.GroupVersionKind().GroupKind().String() {
	case "Secret", "ConfigMap", "ResourceQuota", "EnvironmentConfig.apiextensions.crossplane.io", "CustomResourceDefinition.apiextensions.k8s.io":
		return true
	}
	return false
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
		return nil, fmt.Errorf("Certificate %s has no spec.secretName", cert.GetName()) //nolint:staticcheck // Starts with the kind's name, as every message here does.
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

// placed reports whether an Object carries a workload placed in another cluster, or what a
// PublishedAPI's agent needs in its service cluster, rather than an object in kcp (whose
// state a kcp stand-in decides, not the simulator). An Object acts in kcp through a
// RootShard's ProviderConfig <rs>-kcp-operator.<workspace>.
func placed(o *Object) bool {
	kind, _, _ := unstructured.NestedString(o.Object, "spec", "forProvider", "manifest", "kind")
	switch kind {
	case "Deployment", "Service", "PodDisruptionBudget", "Secret", "ConfigMap", "Namespace":
		return true
	case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "PublishedResource":
		config, _, _ := unstructured.NestedString(o.Object, "spec", "providerConfigRef", "name")
		return !strings.Contains(config, "-kcp-operator.")
	}
	return false
}

// applyInOtherCluster plays provider-kubernetes and the other cluster for a placed object:
// the manifest exists there (a Deployment rolled out) and the Object reports what it
// observed, a Secret's data redacted as provider-kubernetes' --sanitize-secrets does.
func applyInOtherCluster(o *Object) {
	m, _, _ := unstructured.NestedMap(o.Object, "spec", "forProvider", "manifest")
	there := &Object{Object: m}
	switch there.GetKind() {
	case "Deployment":
		rollOut(there)
	case "Secret":
		there.Object["data"] = map[string]any{"redacted": nil}
	}
	o.Object["status"] = map[string]any{
		"atProvider": map[string]any{"manifest": there.Object},
		"conditions": []any{
			condition("Ready", "Available", ""),
			condition("Synced", "ReconcileSuccess", ""),
		},
	}
}

// rollOutStatefulSet makes every member of a StatefulSet ready at generation 1.
func rollOutStatefulSet(s *Object) {
	replicas, found, _ := unstructured.NestedInt64(s.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	s.SetGeneration(1)
	s.Object["status"] = map[string]any{
		"observedGeneration": int64(1),
		"replicas":           replicas,
		"readyReplicas":      replicas,
		"availableReplicas":  replicas,
		"currentReplicas":    replicas,
		"updatedReplicas":    replicas,
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
