package v1alpha1

// Encryption at rest: kcp encrypts the resources it stores in etcd with keys the user keeps in
// Secrets (kcp's --encryption-provider-config, an EncryptionConfiguration of Kubernetes'
// apiserver.config.k8s.io/v1). Not in kcp-operator, which leaves it to extraVolumes
// (kcp-operator#288).

// EncryptionProvider is how a key encrypts: Kubernetes' secretbox (XSalsa20 and Poly1305, a
// 32-byte key) or aescbc (AES-CBC with PKCS#7 padding, a 16, 24 or 32-byte key). aesgcm
// needs a new key every 200,000 writes and KMS a plugin beside kcp: neither is offered.
// +kubebuilder:validation:Enum=secretbox;aescbc
type EncryptionProvider string

// Encryption providers.
const (
	EncryptionSecretbox EncryptionProvider = "secretbox"
	EncryptionAESCBC    EncryptionProvider = "aescbc"
)

// DefaultEncryptedResources are the resources encrypted when encryption.resources is unset.
var DefaultEncryptedResources = []string{"secrets"}

// Encryption encrypts resources in etcd. The first key encrypts what kcp writes; every key
// decrypts. To rotate, put a new key first and keep the others until status.encryption says
// they are no longer needed: the package rolls the new key out as a decrypting key, then
// makes it the encrypting one, then rewrites every encrypted object with it (docs/encryption.md).
// A key still needed is refused when removed. keys: [] decrypts everything again.
type Encryption struct {
	// Keys, the encrypting one first. Each is read from a Secret in the XR's namespace; a
	// key's name and content never change once kcp uses it.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=4
	Keys []EncryptionKey `json:"keys"`

	// Resources kcp encrypts, as <resource> or <resource>.<group>. Defaults to secrets.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:items:MaxLength=253
	Resources []string `json:"resources,omitempty"`

	// RewriteImages are the images of the Job that rewrites every encrypted object after a
	// new key encrypts, for clusters that pull from a mirror. Defaults to
	// registry.k8s.io/kubectl:v1.35.3 and docker.io/library/busybox:1.37.0.
	// +optional
	RewriteImages *EncryptionRewriteImages `json:"rewriteImages,omitempty"`
}

// EncryptionRewriteImages are the images of the rewrite Job. It pulls them with the kcp
// image's pull secrets.
type EncryptionRewriteImages struct {
	// Kubectl is an image of kubectl at /bin/kubectl (Kubernetes' own has no shell).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Kubectl string `json:"kubectl,omitempty"`

	// Shell is an image with a static busybox at /bin/busybox, copied beside kubectl to run
	// the rewrite's script.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Shell string `json:"shell,omitempty"`
}

// EncryptionKey is one key.
type EncryptionKey struct {
	// Name of the key, written beside every value it encrypts
	// (k8s:enc:<provider>:v1:<name>:).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Provider of the key. Defaults to secretbox.
	// +optional
	// +kubebuilder:default=secretbox
	Provider EncryptionProvider `json:"provider,omitempty"`

	// SecretRef is the Secret key holding the key's raw bytes (32 for secretbox), e.g.
	// `head -c 32 /dev/urandom | kubectl create secret generic kcp-key-1 --from-file=key=/dev/stdin`.
	SecretRef LocalDataKeyReference `json:"secretRef"`
}

// ProviderOrDefault is the key's provider, secretbox when unset.
func (k EncryptionKey) ProviderOrDefault() EncryptionProvider {
	if k.Provider == "" {
		return EncryptionSecretbox
	}
	return k.Provider
}

// ResourcesOrDefault are the resources encrypted.
func (e *Encryption) ResourcesOrDefault() []string {
	if len(e.Resources) == 0 {
		return DefaultEncryptedResources
	}
	return e.Resources
}

// EncryptionPhase is where a shard's encryption is.
type EncryptionPhase string

// Encryption phases, in the order a rotation goes through them.
const (
	// EncryptionAddingKey rolls out a new key as a decrypting key, so that every replica can
	// read what the first to encrypt with it writes.
	EncryptionAddingKey EncryptionPhase = "AddingKey"
	// EncryptionSwitchingWriter rolls out the new key as the encrypting one.
	EncryptionSwitchingWriter EncryptionPhase = "SwitchingWriter"
	// EncryptionRewriting rewrites every encrypted object with the encrypting key.
	EncryptionRewriting EncryptionPhase = "Rewriting"
	// EncryptionRotated: everything is encrypted with the encrypting key; the others may be
	// removed.
	EncryptionRotated EncryptionPhase = "Rotated"
)

// EncryptionStatus reports a shard's encryption at rest.
type EncryptionStatus struct {
	// Phase of the current rotation, Rotated once none is under way.
	Phase EncryptionPhase `json:"phase,omitempty"`

	// Writer is the key kcp encrypts with, as <provider>:<name>; identity for none.
	Writer string `json:"writer,omitempty"`

	// Readers are the other keys kcp decrypts with, identity (plain data) last.
	// +optional
	Readers []string `json:"readers,omitempty"`

	// Rewritten is the key every encrypted object was last rewritten with. Once it is the
	// writer, every other key may be removed from spec.encryption.keys.
	// +optional
	Rewritten string `json:"rewritten,omitempty"`
}
