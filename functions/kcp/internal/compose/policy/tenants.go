package policy

import "github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"

// TenantKind is one kind of XR a tenant can write (install/tenant-role.yaml and
// install/tenant-clusterrole.yaml grant it), and how every certificate it can cause is held
// to the platform's policy. TestTenantKinds in functions/kcp fails when the roles grant a
// kind without a row, or a row's kind or tests are gone: a new tenant kind cannot be added
// without deciding this.
type TenantKind struct {
	// Resource is the kind's plural, as the roles name it.
	Resource string
	// Kind is the XR kind the function composes.
	Kind string
	// Certificates says which certificates an XR of the kind causes and how each is held.
	Certificates string
	// Tests are the tests (functions/kcp and below) that prove it.
	Tests []string
}

// TenantKinds lists every kind a tenant can write.
var TenantKinds = []TenantKind{
	{
		Resource: "kcpinstallations",
		Kind:     v1alpha1.KindKcpInstallation,
		Certificates: "Its CAs from spec.certificates.issuerRef and the public serving certificates from every serverCertificate.issuerRef, each allowed by data.issuers for the namespace " +
			"(a cert-manager Issuer of the namespace always); everything else is signed by the installation's own CAs, " +
			"and the admin Kubeconfig it composes carries no certificate template. Checked in every namespace, platform namespaces included.",
		Tests: []string{"TestSelfServiceThroughTheRequirementLoop", "TestSafety"},
	},
	{
		Resource: "kcpinstallationclaims",
		Kind:     v1alpha1.KindClaimedKcpInstallation,
		Certificates: "None of its own: the claim's spec becomes a KcpInstallation in the claim's namespace, " +
			"which is held to the policy as any KcpInstallation there.",
		Tests: []string{"TestClaimComposesTheInstallationInTheClaimsNamespace"},
	},
	{
		Resource: "kubeconfigs",
		Kind:     v1alpha1.KindKubeconfig,
		Certificates: "Its client certificate, from the target's client CA of the same namespace (or, for a shared installation, the Tenant's, which refuses any template). " +
			"In a tenant's namespace spec.certificateTemplate's issuerRef must be allowed by data.issuers and no field may widen what the certificate proves; " +
			"spec.username and spec.groups may hold no control characters.",
		Tests: []string{"TestTenantCertificateTemplate", "TestTenantTemplateKeepsWhatWasComposed", "TestHostileTemplatesThroughTheRequirementLoop", "TestHostileTemplateKeepsWhatRuns", "TestTenantIdentitiesArePrintable"},
	},
	{
		Resource:     "workspaces",
		Kind:         v1alpha1.KindWorkspace,
		Certificates: "None: it composes provider-kubernetes Objects inside kcp (a workspace and its bindings), no Certificate and no Issuer.",
		Tests:        []string{"TestWorkspaceComposesNoCertificate"},
	},
}
