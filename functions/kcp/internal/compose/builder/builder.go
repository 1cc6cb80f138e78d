// Package builder is what every kind composes with, and the one place that decides
// readiness: it composes Certificates, Issuers, Secrets, ConfigMaps, workloads and other XRs,
// each with the readiness its kind calls for (builder.go, workload.go, xr.go), and the
// reference Secret that publishes an XR (reference.go); it keeps what exists when an input
// goes missing, so nothing running is deleted on doubt; and it reports the
// CertificatesReady, InputsReady and Available conditions and the phase (report.go).
package builder

import (
	"fmt"
	"strings"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// DefaultReplicas of kcp Deployments when neither the spec nor a live Deployment says.
const DefaultReplicas = 2

// Builder accumulates the composition of one XR.
type Builder struct {
	// Namespace of the XR and everything it composes.
	Namespace string
	// Prefix is stripped from object names to form composition resource names, so that
	// certificate-server-ca is the key of <rs>-server-ca.
	Prefix string
	St     *observed.State
	Inputs inputs.Inputs
	Set    desired.Set

	certificates []certificate
	// set is the CertificateSet the next Certificates and Issuers go to ("" for none), and
	// sets each set so far (certificateset.go).
	set     certificateSet
	sets    map[string]*resource.Unstructured
	waiting []string
	// issuing names an XR whose certificates this one reads and that is still issuing them.
	issuing    string
	notReady   bool
	conditions []condition.Condition
	// upgraded is the Upgraded condition of a component that follows another's image.
	upgraded *condition.Condition
}

// New returns a builder for an XR named name in namespace.
func New(name, namespace string, st *observed.State) *Builder {
	return &Builder{Namespace: namespace, Prefix: name + "-", St: st}
}

// Key is the stable composition resource name of an object: <kind>-<name without prefix>.
func (b *Builder) Key(kind, objectName string) resource.Name {
	return resource.Name(kind + "-" + strings.TrimPrefix(objectName, b.Prefix))
}

// Readiness converts a boolean into a composed resource readiness.
func Readiness(ok bool) resource.Ready {
	if ok {
		return resource.ReadyTrue
	}
	return resource.ReadyFalse
}

// certificate is a Certificate the XR composes, itself or through a CertificateSet.
type certificate struct {
	key  resource.Name
	name string
}

// Certificate applies the user's template, registers the certificate's Secret as a workload
// input and composes it, ready once cert-manager reports it Ready; or adds it to the current
// CertificateSet (InCertificateSet).
func (b *Builder) Certificate(cert *cmv1.Certificate, tpl *v1alpha1.CertificateTemplate) {
	pki.ApplyTemplate(cert, tpl)
	key := b.Key("certificate", cert.Name)
	b.Inputs.Certificate(cert.Spec.SecretName, key)
	b.certificates = append(b.certificates, certificate{key: key, name: cert.Name})
	if b.set.name != "" && !b.St.Exists(key) {
		b.addToSet(key, cert)
		return
	}
	b.Set.Add(key, cert, Readiness(b.St.CertificateIssued(key)))
}

// Issuer composes an Issuer, ready once cert-manager reports it Ready; or adds it to the
// current CertificateSet.
func (b *Builder) Issuer(iss *cmv1.Issuer) {
	key := b.Key("issuer", iss.Name)
	if b.set.name != "" && !b.St.Exists(key) {
		b.addToSet(key, iss)
		return
	}
	b.Set.Add(key, iss, Readiness(b.St.ConditionTrue(key, "Ready")))
}

// Secret composes an Opaque Secret, ready once it exists.
func (b *Builder) Secret(name string, labels map[string]string, data map[string][]byte) {
	key := b.Key("secret", name)
	b.Inputs.Composed(inputs.KindSecret, name, key)
	b.Set.Add(key, &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}, Readiness(b.St.Exists(key)))
}

// ConfigMap composes a ConfigMap, ready once it exists.
func (b *Builder) ConfigMap(name string, labels, data map[string]string) {
	key := b.Key("configmap", name)
	b.Inputs.Composed(inputs.KindConfigMap, name, key)
	b.Set.Add(key, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels},
		Data:       data,
	}, Readiness(b.St.Exists(key)))
}

// MergedBundle composes Secret name whose tls.crt joins, with newlines as kcp-operator does,
// the tls.crt of each source Secret: an issued CA first, then the user's bundles. The sources
// are read as required resources; until all are readable an existing bundle is kept as it is.
func (b *Builder) MergedBundle(name string, labels map[string]string, sources ...string) {
	key := b.Key("secret", name)
	b.Inputs.Composed(inputs.KindSecret, name, key)
	bundle, missing, pending := b.joinCertificates(sources)
	if b.NotBeforeIssued(key) {
		pending = true
	}
	if len(missing) > 0 || pending {
		b.KeepOrWait(key, len(missing) > 0, fmt.Sprintf("tls.crt of Secret %s (to build Secret %s)", strings.Join(missing, ", "), name))
		return
	}
	b.Secret(name, labels, map[string][]byte{"tls.crt": []byte(bundle)})
}

// joinCertificates joins with newlines the tls.crt of each source Secret, read as a required
// resource. It lists the sources that cannot be read, and reports pending when one is the
// Secret of a Certificate of this XR not issued yet: no missing input, CertificatesReady
// says so.
func (b *Builder) joinCertificates(sources []string) (bundle string, missing []string, pending bool) {
	parts := make([]string, 0, len(sources))
	for _, src := range sources {
		b.Inputs.Read(inputs.KindSecret, src)
		l := b.St.Secret(src)
		crt := l.Data["tls.crt"]
		if !l.Found || len(crt) == 0 {
			if b.Inputs.Pending(src, b.St) {
				pending = true
				continue
			}
			missing = append(missing, src)
			continue
		}
		parts = append(parts, string(crt))
	}
	return strings.Join(parts, "\n"), missing, pending
}

// NotBeforeIssued reports whether an object built from issued certificates must wait to be
// created: a new one is composed with the workloads, once every certificate the XR composes
// so far is issued, not as soon as the certificates it embeds are. Each batch of new objects
// changes the XR's resource references, and Crossplane follows each change with several
// writes of the XR, every one a watch event against its circuit breaker
// (docs/performance.md). An object that exists is rebuilt as soon as its sources change.
func (b *Builder) NotBeforeIssued(key resource.Name) bool {
	if b.St.Exists(key) {
		return false
	}
	for _, c := range b.certificates {
		if !b.St.CertificateIssued(c.key) {
			return true
		}
	}
	return false
}

// KeepOrWait carries an observed object forward unchanged when it cannot be rebuilt now:
// never delete what exists because an input is momentarily unavailable. When report is set,
// why is reported as a missing input.
func (b *Builder) KeepOrWait(key resource.Name, report bool, why string) {
	if u, ok := b.St.Get(key); ok {
		b.Set.Keep(key, u, resource.ReadyTrue)
		why += ", kept unchanged meanwhile"
	}
	if report {
		b.Wait(why)
	}
}

// KeepAll carries every observed composed resource forward unchanged. Composers call it when
// the XR a reference names cannot be read: nothing can be rebuilt then, and nothing may be
// deleted. It reports whether anything was kept.
func (b *Builder) KeepAll() bool {
	for _, key := range b.St.ComposedNames() {
		u, _ := b.St.Get(key)
		ready := resource.ReadyTrue
		if u.GetKind() == "Deployment" {
			ready = Readiness(b.St.DeploymentAvailable(key))
		}
		b.Set.Keep(key, u, ready)
	}
	return len(b.Set.Objects()) > 0
}

// Unreadable keeps everything composed so far while the XR a reference names cannot be
// read, and returns the InputsReady condition that says why and that nothing was touched.
// Without that XR nothing can be rebuilt, and nothing may be deleted.
func (b *Builder) Unreadable(why string) condition.Condition {
	if b.KeepAll() {
		why += ". Everything composed so far is kept unchanged meanwhile"
	}
	return condition.Condition{Type: condition.TypeInputsReady, Status: false, Reason: condition.ReasonMissing, Message: why + "."}
}

// ReadsCertificatesOf notes that the XR reads Secrets another XR issues (a RootShard's CAs,
// say) and whether that XR reports that it is still issuing them. While it is, InputsReady
// says the XR waits for that one, not which of its Secrets are missing: the message stays
// the same until the last one arrives. Each change of it would be one more write of the XR
// and, with Crossplane's stale reads, several (docs/performance.md).
func (b *Builder) ReadsCertificatesOf(xr string, issuing bool) {
	if issuing {
		b.issuing = xr
	}
}

// Wait records a missing input for InputsReady, e.g. a referenced XR that does not exist.
func (b *Builder) Wait(why string) { b.waiting = append(b.waiting, why) }

// Replicas is the spec's value, else the live Deployment's (so an autoscaler's choice
// survives), else def.
func (b *Builder) Replicas(key resource.Name, spec *int32, def int32) int32 {
	if spec != nil {
		return *spec
	}
	if r, ok := b.St.DeploymentReplicas(key); ok {
		return r
	}
	return def
}

// Phase is Running when available, else Provisioning.
func Phase(available bool) v1alpha1.Phase {
	if available {
		return v1alpha1.PhaseRunning
	}
	return v1alpha1.PhaseProvisioning
}
