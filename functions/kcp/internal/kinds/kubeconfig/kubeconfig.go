// Package kubeconfig composes what kcp-operator creates for a Kubeconfig: a client
// Certificate kubeconfig-cert-<kc> issued by the target's RootShard client CA, and, once it is
// issued, the Secret spec.secretRef.name holding a kubeconfig that embeds the certificate, its
// key and the server CA, with the clusters and contexts kcp-operator writes for the target
// kind (RootShard, Shard or FrontProxy).
//
// Unlike kcp-operator both objects, and the Secret cert-manager writes for the Certificate
// (adopted once issued, see adoptCertificateSecret), belong to the XR (quirk 7): they are
// deleted with it, and a renewed certificate rewrites the kubeconfig on the reconcile its
// renewal triggers.
//
// The kubeconfig file itself is written by parts/kubeconfigfile.
package kubeconfig

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/pki"
)

// The condition a Kubeconfig reports instead of Available: it has no Deployment.
const (
	// TypeKubeconfigReady says whether the kubeconfig Secret exists.
	TypeKubeconfigReady = "KubeconfigReady"

	// ReasonSecretWritten: the Secret exists and holds a kubeconfig built from the current
	// certificate, CA and target.
	ReasonSecretWritten = "SecretWritten"
	// ReasonSecretKept: the Secret exists but is kept as it is while it cannot be rebuilt.
	ReasonSecretKept = "SecretKept"
	// ReasonSecretPending: the Secret is composed and Crossplane has not created it yet.
	ReasonSecretPending = "SecretPending"
	// ReasonWaitingForCertificate: cert-manager has not issued the client certificate yet.
	ReasonWaitingForCertificate = "WaitingForCertificate"
	// ReasonWaitingForInputs: the target, the CA or a CA bundle is missing.
	ReasonWaitingForInputs = condition.ReasonWaitingForInputs
	// ReasonSecretConflict: a Secret with the output name exists and is not this XR's.
	ReasonSecretConflict = "SecretConflict"

	// ReasonInvalid is InputsReady's reason when an input exists but cannot be used.
	ReasonInvalid = "Invalid"
)

// secretState is what happened to the kubeconfig Secret.
type secretState int

const (
	// secretNone: not composed, nothing to keep.
	secretNone secretState = iota //nolint:unused // The zero value, named for the reader.
	// secretBuilt: composed from the current inputs.
	secretBuilt
	// secretKept: the observed Secret is carried forward unchanged.
	secretKept
)

type composer struct {
	b    *builder.Builder
	kc   *v1alpha1.Kubeconfig
	name names.Kubeconfig
	t    target
	// certKey and secretKey are the composition resource names of the Certificate and the
	// kubeconfig Secret.
	certKey   resource.Name
	secretKey resource.Name

	secret secretState
	// missing and invalid describe inputs that keep the kubeconfig from being (re)built.
	missing []string
	invalid []string
	// conflict describes a foreign Secret with the output name.
	conflict string
	// server is the current context's server URL, for messages.
	server string
	// authz is what spec.authorization came to inside kcp.
	authz bindings
}

// Compose composes a Kubeconfig. The XR must have passed Validate. Once the target is read
// the output Secret's name is checked against the Secrets of its installation; a clash is
// returned as validation errors.
func Compose(kc *v1alpha1.Kubeconfig, st *observed.State) (result.Result[v1alpha1.KubeconfigStatus], field.ErrorList) {
	ref := kc.Spec.Target.ReferenceSecretRef
	if ref == nil {
		return composeTarget(kc, st)
	}
	resolved, waiting := resolveReference(kc, st)
	if waiting != nil {
		return *waiting, nil
	}
	if Shared(resolved) {
		// A reference names its installation only once read: refuse now what Validate
		// refuses for a frontProxyRef of another namespace.
		if errs := sharing.CheckKubeconfig(kc.GetNamespace(), resolved); len(errs) > 0 {
			return result.Result[v1alpha1.KubeconfigStatus]{}, errs
		}
	}
	r, errs := composeTarget(resolved, st)
	// The reference is read on every reconcile, whatever the target's composition asks for.
	r.Requirements = append([]result.Requirement{referenceRequirement(ref)}, r.Requirements...)
	return r, errs
}

// composeTarget composes a Kubeconfig whose target names its XR.
func composeTarget(kc *v1alpha1.Kubeconfig, st *observed.State) (result.Result[v1alpha1.KubeconfigStatus], field.ErrorList) {
	if Shared(kc) {
		return composeShared(kc, st)
	}
	n := names.Kubeconfig(kc.GetName())
	b := builder.New(kc.GetName(), kc.GetNamespace(), st)
	c := &composer{
		b:       b,
		kc:      kc,
		name:    n,
		certKey: b.Key("certificate", n.Certificate()),
		// Not b.Key: the name is the user's, and trimming the XR's name from it could give
		// two names the same key.
		secretKey: resource.Name("secret-" + kc.Spec.SecretRef.Name),
	}
	// The Secrets whose names follow from the spec alone are asked for before the target is
	// read: Crossplane calls the function again until its requirements stop changing, and
	// asking for everything it can name at once saves it a call on every reconcile.
	c.readOwnSecrets()
	// Before the target: a template the policy refuses is refused whatever the target is.
	policyKnown, errs := c.holdTemplate()
	if len(errs) > 0 {
		return result.Result[v1alpha1.KubeconfigStatus]{}, errs
	}
	if why, ok := c.resolveTarget(); !ok {
		return c.waitForTarget(why), nil
	}
	if errs := validateReserved(kc, c.t.reservedSecrets()); len(errs) > 0 {
		return result.Result[v1alpha1.KubeconfigStatus]{}, errs
	}
	if !policyKnown {
		return c.waitForPolicy(), nil
	}
	c.composeCertificate()
	c.composeSecret()
	c.adoptCertificateSecret()
	c.composeBindings()
	return c.result(), nil
}

// readOwnSecrets asks for the Secret cert-manager writes for the Kubeconfig's Certificate and
// for its output Secret, whether or not they are needed yet, so the requirements are the
// same on every reconcile.
func (c *composer) readOwnSecrets() {
	c.b.Inputs.Read(inputs.KindSecret, c.name.Certificate())
	c.b.Inputs.Read(inputs.KindSecret, c.kc.Spec.SecretRef.Name)
}

// waitForTarget keeps everything the Kubeconfig composed as it is while its target (or the
// platform's policy, waitForPolicy) cannot be read: without it nothing can be rebuilt, and
// nothing may be deleted.
func (c *composer) waitForTarget(why string) result.Result[v1alpha1.KubeconfigStatus] {
	if c.b.KeepAll() {
		why += ". Everything composed so far is kept unchanged meanwhile"
		// The bindings are kept too; status.authorization still says where they are.
		c.authz.kept = true
		c.observeBindings()
		if c.b.Set.Has(c.secretKey) {
			c.secret = secretKept
		}
		if c.b.St.Exists(c.certSecretKey()) {
			// Kept as composed, never as observed: that holds cert-manager's type and key
			// material, which are not the XR's to apply.
			c.composeCertificateSecret()
		}
	}
	c.missing = append(c.missing, why)
	return c.result()
}

// composeCertificate composes kubeconfig-cert-<kc>, issued by the RootShard's client CA
// whatever the target: every shard and proxy of the installation trusts it.
func (c *composer) composeCertificate() {
	orgs := append(slices.Clone(c.kc.Spec.Groups), c.name.Group())
	slices.Sort(orgs)
	cert := pki.Leaf{
		Name:          c.name.Certificate(),
		Namespace:     c.b.Namespace,
		CommonName:    c.kc.Spec.Username,
		Organizations: slices.Compact(orgs),
		Usages:        pki.UsagesClient,
		Issuer:        c.t.root.CA(names.CAClient),
		// kcp-operator copies the Kubeconfig's own labels.
		Labels:       c.kc.GetLabels(),
		SecretLabels: map[string]string{names.LabelOwnerKubeconfig: c.kc.Name},
	}.Certificate()
	// cert-manager writes the Secret under the name the XR adopts it by (adopt.go). Crossplane
	// records a composed resource in the XR before it applies it; stopped in between, it
	// would find the Secret it refers to unnamed, and refuse every later reconcile of the XR.
	cert.Spec.SecretTemplate.Annotations = map[string]string{resource.AnnotationName: string(c.certSecretKey())}
	// The lifetime is the user's; cert-manager renews at two thirds of it.
	validity := c.kc.Spec.Validity
	cert.Spec.Duration = &validity
	cert.Spec.RenewBefore = nil
	c.b.Certificate(cert, c.kc.Spec.CertificateTemplate)
}

// composeSecret composes the kubeconfig Secret from the issued certificate and the CA, or
// keeps the existing one unchanged while either cannot be read.
func (c *composer) composeSecret() {
	name := c.kc.Spec.SecretRef.Name
	certSecret := c.name.Certificate()
	caSources := c.t.caSources()
	for _, s := range caSources {
		c.b.Inputs.Read(inputs.KindSecret, s.secret)
	}

	if out := c.b.St.Secret(name); out.Found && !c.b.St.Exists(c.secretKey) && (c.kc.UID == "" || out.Controller != string(c.kc.UID)) {
		// Composing it would take over a Secret someone else wrote, and delete it with
		// this XR.
		c.conflict = fmt.Sprintf("Secret %s/%s (spec.secretRef.name) exists and was not created by this Kubeconfig; it is left untouched. Delete it or choose another spec.secretRef.name", c.b.Namespace, name)
		return
	}
	if !c.b.St.CertificateIssued(c.certKey) {
		c.keep()
		return
	}

	l := c.b.St.Secret(certSecret)
	crt, key := l.Data["tls.crt"], l.Data["tls.key"]
	if !l.Found || len(crt) == 0 || len(key) == 0 {
		c.missing = append(c.missing, fmt.Sprintf("tls.crt and tls.key of Secret %s (issued for Certificate %s)", certSecret, certSecret))
		c.keep()
		return
	}
	ca, ok := c.caData(caSources)
	if !ok {
		c.keep()
		return
	}
	e, err := c.t.layout(c.kc)
	if err != nil {
		c.invalid = append(c.invalid, err.Error())
		c.keep()
		return
	}
	e.CAData, e.UserName, e.CertData, e.KeyData = ca, c.kc.Spec.Username, crt, key
	c.server = e.Clusters[e.Contexts[e.CurrentContext]]
	c.b.Set.Add(c.secretKey, kubeconfigfile.Secret(name, c.b.Namespace, c.kc.Name, e.Config().Marshal()), builder.Readiness(c.b.St.Exists(c.secretKey)))
	c.secret = secretBuilt
}

// keep carries the existing kubeconfig Secret forward unchanged.
func (c *composer) keep() {
	c.b.KeepOrWait(c.secretKey, false, "")
	if c.b.Set.Has(c.secretKey) {
		c.secret = secretKept
	}
}

// caData joins the tls.crt of every CA source, validated, with newlines as kcp-operator
// does. It reports false, recording why, when a source is missing or invalid.
func (c *composer) caData(sources []caSource) ([]byte, bool) {
	parts := make([][]byte, 0, len(sources))
	ok := true
	for _, s := range sources {
		l := c.b.St.Secret(s.secret)
		crt, has := l.Data["tls.crt"]
		switch {
		case !l.Found:
			c.missing = append(c.missing, fmt.Sprintf("Secret %s (%s)", s.secret, s.what))
			ok = false
		case !has || len(crt) == 0:
			if s.user {
				// kcp-operator's error: a CA bundle must have tls.crt.
				c.invalid = append(c.invalid, fmt.Sprintf("Secret %s (%s) has no tls.crt key", s.secret, s.what))
			} else {
				c.missing = append(c.missing, fmt.Sprintf("tls.crt of Secret %s (%s)", s.secret, s.what))
			}
			ok = false
		default:
			if err := check.PEMCertificates(crt); err != nil {
				c.invalid = append(c.invalid, fmt.Sprintf("tls.crt of Secret %s (%s): it %v", s.secret, s.what, err))
				ok = false
				continue
			}
			parts = append(parts, crt)
		}
	}
	if !ok {
		return nil, false
	}
	return joinPEM(parts), true
}

// result reports the status and conditions.
func (c *composer) result() result.Result[v1alpha1.KubeconfigStatus] {
	exists := c.b.Set.Has(c.secretKey) && c.b.St.Exists(c.secretKey)
	status := v1alpha1.KubeconfigStatus{
		Phase:      v1alpha1.KubeconfigPhaseProvisioning,
		TargetName: TargetName(c.kc),
		SecretName: c.kc.Spec.SecretRef.Name,
		Expiry:     c.b.St.CertificateNotAfter(c.certKey),
		// kcp-operator's record; it says where bindings are, not where they are wanted.
		Authorization: c.authz.status(),
	}
	if exists {
		status.Phase = v1alpha1.KubeconfigPhaseReady
	}

	var conds []condition.Condition
	add := func(t string, ok bool, reason, msg string) {
		conds = append(conds, condition.Condition{Type: t, Status: ok, Reason: reason, Message: msg})
	}
	cert := c.name.Certificate()
	issued := c.b.St.CertificateIssued(c.certKey)
	if issued {
		add(condition.TypeCertificatesReady, true, condition.ReasonIssued, fmt.Sprintf("Certificate %s is issued.", cert))
	} else {
		add(condition.TypeCertificatesReady, false, condition.ReasonIssuing, fmt.Sprintf("Waiting for cert-manager to issue Certificate %s.", cert))
	}

	problems := append(slices.Clone(c.missing), c.invalid...)
	switch {
	case len(c.invalid) > 0:
		add(condition.TypeInputsReady, false, ReasonInvalid, "Cannot use "+strings.Join(problems, "; ")+".")
	case len(problems) > 0:
		add(condition.TypeInputsReady, false, condition.ReasonMissing, "Waiting for "+strings.Join(problems, "; ")+".")
	default:
		add(condition.TypeInputsReady, true, condition.ReasonAllPresent, "The target, its server CA and every Secret the spec references exist.")
	}

	ref := c.b.Namespace + "/" + c.kc.Spec.SecretRef.Name
	switch {
	case c.conflict != "":
		add(TypeKubeconfigReady, false, ReasonSecretConflict, c.conflict+".")
	case c.secret == secretBuilt && exists:
		add(TypeKubeconfigReady, true, ReasonSecretWritten, fmt.Sprintf("Secret %s holds the kubeconfig of user %s for %s; its current context reaches %s.", ref, c.kc.Spec.Username, TargetName(c.kc), c.server))
	case c.secret == secretBuilt:
		add(TypeKubeconfigReady, false, ReasonSecretPending, fmt.Sprintf("Secret %s is composed; waiting for Crossplane to create it.", ref))
	case c.secret == secretKept && !issued:
		add(TypeKubeconfigReady, true, ReasonSecretKept, fmt.Sprintf("Secret %s is kept unchanged until cert-manager issues Certificate %s.", ref, cert))
	case c.secret == secretKept:
		add(TypeKubeconfigReady, true, ReasonSecretKept, fmt.Sprintf("Secret %s is kept unchanged until its inputs are available (see InputsReady).", ref))
	case len(problems) > 0:
		add(TypeKubeconfigReady, false, ReasonWaitingForInputs, fmt.Sprintf("Secret %s is not written yet: its inputs are not available (see InputsReady).", ref))
	default:
		add(TypeKubeconfigReady, false, ReasonWaitingForCertificate, fmt.Sprintf("Secret %s is written once cert-manager issues Certificate %s.", ref, cert))
	}

	if bc := c.authz.condition(c.name.Group()); bc != nil {
		conds = append(conds, *bc)
	}

	return result.Result[v1alpha1.KubeconfigStatus]{
		Desired:      c.b.Set,
		Requirements: c.b.Inputs.Requirements(),
		Status:       status,
		Conditions:   conds,
		// Ready only once the kubeconfig exists and reflects the current inputs, and the
		// roles it asks for are bound: a kubeconfig that gets 403 everywhere is not ready.
		NotReady: !exists || c.secret != secretBuilt || (c.authz.workspace != "" && !c.authz.bound()),
	}
}

// TargetName is status.targetName: Kind/name of the first target set, as kcp-operator
// writes it.
func TargetName(kc *v1alpha1.Kubeconfig) string {
	t := kc.Spec.Target
	switch {
	case t.RootShardRef != nil:
		return KindRootShard + "/" + t.RootShardRef.Name
	case t.ShardRef != nil:
		return KindShard + "/" + t.ShardRef.Name
	case Shared(kc):
		return KindFrontProxy + "/" + t.FrontProxyRef.Namespace + "/" + t.FrontProxyRef.Name
	case t.FrontProxyRef != nil:
		return KindFrontProxy + "/" + t.FrontProxyRef.Name
	}
	return ""
}

// joinPEM joins PEM bundles with newlines, as kcp-operator's MergeCertificates does.
func joinPEM(parts [][]byte) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	var out []byte
	for i, p := range parts {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, p...)
	}
	return out
}
