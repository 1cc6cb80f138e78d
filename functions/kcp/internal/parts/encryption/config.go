// Package encryption renders encryption at rest for a kcp server: the EncryptionConfiguration
// kcp reads with --encryption-provider-config (config.go), and the Job that rewrites every
// encrypted object with the encrypting key after a rotation (rewrite.go). Which keys the
// configuration holds, in which order, is decided by compose/rotation.
package encryption

import (
	"encoding/base64"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Identity is the provider that stores plain data: always the last reader, so that what was
// written before encryption was turned on stays readable until it is rewritten.
const Identity = "identity"

// Key is one provider of the configuration: a key with its provider, or identity.
type Key struct {
	// Provider is secretbox, aescbc or identity.
	Provider string
	// Name and Secret (the raw key) are empty for identity.
	Name   string
	Secret []byte
}

// IdentityKey is the identity provider.
var IdentityKey = Key{Provider: Identity}

// ID names a key as status and messages do: <provider>:<name>, or identity.
func (k Key) ID() string {
	if k.Provider == Identity {
		return Identity
	}
	return k.Provider + ":" + k.Name
}

// Config is one EncryptionConfiguration: every resource encrypted alike, Keys[0] encrypting,
// every key decrypting.
type Config struct {
	Resources []string
	Keys      []Key
}

// Writer is the key kcp encrypts with.
func (c Config) Writer() Key {
	if len(c.Keys) == 0 {
		return IdentityKey
	}
	return c.Keys[0]
}

// IDs are the keys' IDs, writer first.
func (c Config) IDs() []string {
	out := make([]string, len(c.Keys))
	for i, k := range c.Keys {
		out[i] = k.ID()
	}
	return out
}

// State names the configuration without its key material, as the pod template's annotation
// records what the pods run: the resources and the key IDs, writer first.
func (c Config) State() string {
	return strings.Join(c.Resources, ",") + ";" + strings.Join(c.IDs(), ",")
}

// Find returns the key of the given ID.
func (c Config) Find(id string) (Key, bool) {
	for _, k := range c.Keys {
		if k.ID() == id {
			return k, true
		}
	}
	return Key{}, false
}

// The EncryptionConfiguration of Kubernetes' apiserver.config.k8s.io/v1, the fields this
// package writes. A test decodes the output strictly into the API server's own types.
type configuration struct {
	APIVersion string                  `json:"apiVersion"`
	Kind       string                  `json:"kind"`
	Resources  []resourceConfiguration `json:"resources"`
}

type resourceConfiguration struct {
	Resources []string                `json:"resources"`
	Providers []providerConfiguration `json:"providers"`
}

type providerConfiguration struct {
	AESCBC    *keysConfiguration `json:"aescbc,omitempty"`
	Secretbox *keysConfiguration `json:"secretbox,omitempty"`
	Identity  *struct{}          `json:"identity,omitempty"`
}

type keysConfiguration struct {
	Keys []keyConfiguration `json:"keys"`
}

type keyConfiguration struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
}

// Marshal renders the EncryptionConfiguration.
func (c Config) Marshal() []byte {
	providers := make([]providerConfiguration, 0, len(c.Keys))
	for _, k := range c.Keys {
		keys := &keysConfiguration{Keys: []keyConfiguration{{Name: k.Name, Secret: base64.StdEncoding.EncodeToString(k.Secret)}}}
		switch k.Provider {
		case "aescbc":
			providers = append(providers, providerConfiguration{AESCBC: keys})
		case "secretbox":
			providers = append(providers, providerConfiguration{Secretbox: keys})
		default:
			providers = append(providers, providerConfiguration{Identity: &struct{}{}})
		}
	}
	b, err := yaml.Marshal(configuration{
		APIVersion: "apiserver.config.k8s.io/v1",
		Kind:       "EncryptionConfiguration",
		Resources:  []resourceConfiguration{{Resources: c.Resources, Providers: providers}},
	})
	if err != nil {
		panic(err) // plain structs always marshal
	}
	return b
}

// Parse reads a configuration Marshal wrote.
func Parse(b []byte) (Config, error) {
	var cfg configuration
	if err := yaml.UnmarshalStrict(b, &cfg); err != nil {
		return Config{}, err
	}
	if len(cfg.Resources) != 1 {
		return Config{}, fmt.Errorf("%d resource groups, want 1", len(cfg.Resources))
	}
	out := Config{Resources: cfg.Resources[0].Resources}
	for _, p := range cfg.Resources[0].Providers {
		var provider string
		var keys *keysConfiguration
		switch {
		case p.AESCBC != nil:
			provider, keys = "aescbc", p.AESCBC
		case p.Secretbox != nil:
			provider, keys = "secretbox", p.Secretbox
		case p.Identity != nil:
			out.Keys = append(out.Keys, IdentityKey)
			continue
		default:
			return Config{}, fmt.Errorf("a provider of no known kind")
		}
		for _, k := range keys.Keys {
			secret, err := base64.StdEncoding.DecodeString(k.Secret)
			if err != nil {
				return Config{}, fmt.Errorf("key %s: %w", k.Name, err)
			}
			out.Keys = append(out.Keys, Key{Provider: provider, Name: k.Name, Secret: secret})
		}
	}
	return out, nil
}
