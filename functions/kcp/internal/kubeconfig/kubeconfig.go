// Package kubeconfig writes kubeconfig files in client-go's v1 format, without depending on
// client-go. Output is deterministic: keys are sorted and lists keep the order given.
package kubeconfig

import (
	"sigs.k8s.io/yaml"
)

// Config is a kubeconfig file.
type Config struct {
	// TypeMeta is written by kcp-operator's clientcmd.Write but not by its proxies'
	// dynamic kubeconfigs; WithoutTypeMeta reproduces the latter.
	APIVersion     string         `json:"apiVersion,omitempty"`
	Kind           string         `json:"kind,omitempty"`
	Clusters       []NamedCluster `json:"clusters"`
	Contexts       []NamedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
	Users          []NamedUser    `json:"users"`
}

// NamedCluster is a cluster entry.
type NamedCluster struct {
	Name    string  `json:"name"`
	Cluster Cluster `json:"cluster"`
}

// Cluster is where a server is and how to trust it.
type Cluster struct {
	Server                   string `json:"server"`
	CertificateAuthority     string `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
}

// NamedContext is a context entry.
type NamedContext struct {
	Name    string  `json:"name"`
	Context Context `json:"context"`
}

// Context pairs a cluster with a user.
type Context struct {
	Cluster string `json:"cluster"`
	User    string `json:"user"`
}

// NamedUser is a user entry.
type NamedUser struct {
	Name string `json:"name"`
	User User   `json:"user"`
}

// User holds client credentials, as file paths or inline data.
type User struct {
	ClientCertificate     string `json:"client-certificate,omitempty"`
	ClientKey             string `json:"client-key,omitempty"`
	ClientCertificateData []byte `json:"client-certificate-data,omitempty"`
	ClientKeyData         []byte `json:"client-key-data,omitempty"`
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

// Marshal renders the kubeconfig as YAML.
func (c Config) Marshal() []byte {
	b, err := yaml.Marshal(c)
	if err != nil {
		// Only plain strings, byte slices and structs are marshalled: this cannot fail.
		panic(err)
	}
	return b
}
