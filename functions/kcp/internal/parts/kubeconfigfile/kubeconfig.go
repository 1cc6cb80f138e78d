// Package kubeconfigfile writes kubeconfig files in client-go's v1 format, without depending on
// client-go. Output is deterministic: keys are sorted and lists keep the order given.
package kubeconfigfile

import (
	"encoding/base64"

	"go.yaml.in/yaml/v2"
)

// Config is a kubeconfig file.
//
// Fields are declared in the order of their sorted keys: Marshal writes YAML straight from
// the structs, and client-go's writers (JSON, then YAML from a map) sort keys. The JSON tags
// let tests read a kubeconfig back.
type Config struct {
	// TypeMeta is written by kcp-operator's clientcmd.Write but not by its proxies'
	// dynamic kubeconfigs; WithoutTypeMeta reproduces the latter.
	APIVersion     string         `json:"apiVersion,omitempty" yaml:"apiVersion,omitempty"`
	Clusters       []NamedCluster `json:"clusters" yaml:"clusters"`
	Contexts       []NamedContext `json:"contexts" yaml:"contexts"`
	CurrentContext string         `json:"current-context" yaml:"current-context"`
	Kind           string         `json:"kind,omitempty" yaml:"kind,omitempty"`
	Users          []NamedUser    `json:"users" yaml:"users"`
}

// NamedCluster is a cluster entry.
type NamedCluster struct {
	Cluster Cluster `json:"cluster" yaml:"cluster"`
	Name    string  `json:"name" yaml:"name"`
}

// Cluster is where a server is and how to trust it.
type Cluster struct {
	CertificateAuthority     string `json:"certificate-authority,omitempty" yaml:"certificate-authority,omitempty"`
	CertificateAuthorityData Data   `json:"certificate-authority-data,omitempty" yaml:"certificate-authority-data,omitempty"`
	Server                   string `json:"server" yaml:"server"`
}

// NamedContext is a context entry.
type NamedContext struct {
	Context Context `json:"context" yaml:"context"`
	Name    string  `json:"name" yaml:"name"`
}

// Context pairs a cluster with a user.
type Context struct {
	Cluster string `json:"cluster" yaml:"cluster"`
	User    string `json:"user" yaml:"user"`
}

// NamedUser is a user entry.
type NamedUser struct {
	Name string `json:"name" yaml:"name"`
	User User   `json:"user" yaml:"user"`
}

// User holds client credentials, as file paths or inline data.
type User struct {
	ClientCertificate     string `json:"client-certificate,omitempty" yaml:"client-certificate,omitempty"`
	ClientCertificateData Data   `json:"client-certificate-data,omitempty" yaml:"client-certificate-data,omitempty"`
	ClientKey             string `json:"client-key,omitempty" yaml:"client-key,omitempty"`
	ClientKeyData         Data   `json:"client-key-data,omitempty" yaml:"client-key-data,omitempty"`
}

// Data is inline file content, written base64-encoded as client-go does.
type Data []byte

// MarshalYAML writes the data base64-encoded.
func (d Data) MarshalYAML() (any, error) {
	return base64.StdEncoding.EncodeToString(d), nil
}

// Files describes a kubeconfig with one cluster, one user and one context, all using files
// mounted into a pod: the shape of every kubeconfig kcp components read.
type Files struct {
	ClusterName string
	Server      string
	CAFile      string
	UserName    string
	CertFile    string
	KeyFile     string
	ContextName string
}

// Config returns the kubeconfig, with apiVersion and kind set.
func (f Files) Config() Config {
	return Config{
		APIVersion:     "v1",
		Kind:           "Config",
		Clusters:       []NamedCluster{{Name: f.ClusterName, Cluster: Cluster{Server: f.Server, CertificateAuthority: f.CAFile}}},
		Contexts:       []NamedContext{{Name: f.ContextName, Context: Context{Cluster: f.ClusterName, User: f.UserName}}},
		CurrentContext: f.ContextName,
		Users:          []NamedUser{{Name: f.UserName, User: User{ClientCertificate: f.CertFile, ClientKey: f.KeyFile}}},
	}
}

// WithoutTypeMeta drops apiVersion and kind.
func (c Config) WithoutTypeMeta() Config {
	c.APIVersion, c.Kind = "", ""
	return c
}

// Marshal renders the kubeconfig as YAML, byte for byte what client-go writes.
func (c Config) Marshal() []byte {
	if b, ok := c.appendPlain(make([]byte, 0, c.sizeHint())); ok {
		return b
	}
	b, err := yaml.Marshal(c)
	if err != nil {
		// Only plain strings, byte slices and structs are marshalled: this cannot fail.
		panic(err)
	}
	return b
}

// sizeHint is about the size of the YAML: its base64 data and a line per other field.
func (c Config) sizeHint() int {
	n := 256
	for _, x := range c.Clusters {
		n += 128 + base64.StdEncoding.EncodedLen(len(x.Cluster.CertificateAuthorityData))
	}
	for _, x := range c.Users {
		n += 128 + base64.StdEncoding.EncodedLen(len(x.User.ClientCertificateData)+len(x.User.ClientKeyData))
	}
	return n + 64*len(c.Contexts)
}
