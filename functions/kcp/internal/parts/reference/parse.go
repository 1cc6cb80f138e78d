package reference

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
)

// Parse reads a reference Secret's data, as a consumer that names it instead of an XR does.
// It refuses, naming each key and what is wrong with it, data that is not a reference: a
// required key missing, a kind that publishes none, a name or namespace Kubernetes would not
// accept, a URL that is not https with a host, a CA that is not PEM certificates. Data that
// holds a private key is refused before anything else is read: a reference is synced
// anywhere, and a key in one would go with it (rules 1 and 3 of the design). Keys it does
// not know are ignored, so a later version may add some.
func Parse(data map[string][]byte) (Reference, error) {
	if problems := privateKeys(data); len(problems) > 0 {
		return Reference{}, errors.New(strings.Join(problems, "; "))
	}
	r := Reference{
		Kind: string(data[KeyKind]), Name: string(data[KeyName]), Namespace: string(data[KeyNamespace]),
		URL: string(data[KeyURL]), CA: string(data[KeyCA]), ClientCA: string(data[KeyClientCA]),
		ExternalURL: string(data[KeyExternalURL]), Image: string(data[KeyImage]),
		ExternalAdminURL: string(data[KeyExternalAdminURL]), RootCASecret: string(data[KeyRootCASecret]),
		ClusterDomain: string(data[KeyClusterDomain]), ClientCABundleSecret: string(data[KeyClientCABundleSecret]),
		CacheServer: string(data[KeyCacheServer]),
	}
	var problems []string
	for _, k := range []string{KeyKind, KeyName, KeyNamespace, KeyURL, KeyCA} {
		if len(data[k]) == 0 {
			problems = append(problems, fmt.Sprintf("key %q is missing or empty", k))
		}
	}
	if r.Kind != "" && !slices.Contains(Kinds, r.Kind) {
		problems = append(problems, fmt.Sprintf("key %q is %q; want one of %s, the kinds that publish a reference", KeyKind, r.Kind, strings.Join(Kinds, ", ")))
	}
	if r.Name != "" {
		// XR names are object names: DNS-1123 subdomains.
		problems = append(problems, dnsProblems(KeyName, r.Name, "subdomain", validation.IsDNS1123Subdomain)...)
	}
	if r.Namespace != "" {
		problems = append(problems, dnsProblems(KeyNamespace, r.Namespace, "label", validation.IsDNS1123Label)...)
	}
	for k, v := range map[string]string{KeyURL: r.URL, KeyExternalURL: r.ExternalURL, KeyExternalAdminURL: r.ExternalAdminURL} {
		switch {
		case v == "":
		case !httpsWithHost(v):
			problems = append(problems, fmt.Sprintf("key %q is %q, not an https URL with a host", k, v))
		case !validPort(v):
			problems = append(problems, fmt.Sprintf("key %q is %q, whose port is not from 1 to 65535", k, v))
		}
	}
	// Object names: a Secret's or a CacheServer's name is a DNS-1123 subdomain.
	for k, v := range map[string]string{KeyRootCASecret: r.RootCASecret, KeyClientCABundleSecret: r.ClientCABundleSecret, KeyCacheServer: r.CacheServer, KeyClusterDomain: r.ClusterDomain} {
		if v != "" {
			problems = append(problems, dnsProblems(k, v, "subdomain", validation.IsDNS1123Subdomain)...)
		}
	}
	for k, v := range map[string]string{KeyCA: r.CA, KeyClientCA: r.ClientCA} {
		if v != "" {
			if err := check.PEMCertificates([]byte(v)); err != nil {
				problems = append(problems, fmt.Sprintf("key %q %v", k, err))
			}
		}
	}
	if len(problems) > 0 {
		// The maps above are ranged in random order: sorted, the message is the same on
		// every call, so a condition that carries it is not rewritten for nothing.
		slices.Sort(problems)
		return Reference{}, errors.New(strings.Join(problems, "; "))
	}
	return r, nil
}

// privateKeys lists every key of data that is, or holds, a private key, sorted.
func privateKeys(data map[string][]byte) []string {
	var out []string
	for k, v := range data {
		switch {
		case strings.HasSuffix(k, ".key"):
			// tls.key, ca.key: how Kubernetes and cert-manager name a private key.
			out = append(out, fmt.Sprintf("key %q is named as a private key is; a reference never carries a key", k))
		case holdsPrivateKey(v):
			out = append(out, fmt.Sprintf("key %q holds a private key; a reference never carries a key", k))
		}
	}
	slices.Sort(out)
	return out
}

// holdsPrivateKey reports whether v holds a PEM private key (PRIVATE KEY, RSA PRIVATE KEY,
// EC PRIVATE KEY, ENCRYPTED PRIVATE KEY...), even one whose block does not decode.
func holdsPrivateKey(v []byte) bool {
	for rest := v; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if strings.Contains(block.Type, "PRIVATE KEY") {
			return true
		}
	}
	return bytes.Contains(v, []byte("PRIVATE KEY-----"))
}

// dnsProblems words what check finds wrong with value, the value of key.
func dnsProblems(key, value, what string, check func(string) []string) []string {
	var out []string
	for _, msg := range check(value) {
		out = append(out, fmt.Sprintf("key %q is %q, not a DNS-1123 %s: %s", key, value, what, msg))
	}
	return out
}

// httpsWithHost reports whether raw is an https URL with a host.
func httpsWithHost(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "https" && u.Hostname() != ""
}

// validPort reports whether the URL raw has no port, or one from 1 to 65535.
func validPort(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Port() == "" {
		return err == nil
	}
	n, err := strconv.ParseUint(u.Port(), 10, 16)
	return err == nil && n > 0
}
