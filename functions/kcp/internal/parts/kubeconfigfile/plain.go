package kubeconfigfile

import "encoding/base64"

// The kubeconfigs the function writes hold names, URLs, file paths and base64 data: strings
// YAML writes as they are. The YAML encoder still examines each one character by character
// before writing it (a kubeconfig with embedded certificates is mostly its base64 data), and
// that was a sixth of a converged RootShard's RunFunction and half of a Kubeconfig's.
// appendPlain writes such a Config directly, in the encoder's layout, and declines any other
// (an empty string or list, a string the encoder would quote or that YAML would read as
// another type): Marshal hands those to the encoder. TestPlainMatchesEncoder holds the
// two to the same bytes.

// appendPlain appends c as YAML to b, or reports false when c holds anything but plain
// scalars and non-empty lists.
func (c Config) appendPlain(b []byte) ([]byte, bool) {
	if len(c.Clusters) == 0 || len(c.Contexts) == 0 || len(c.Users) == 0 {
		return nil, false
	}
	ok := true
	field := func(indent, key, v string, omitEmpty bool) {
		if v == "" && omitEmpty {
			return
		}
		ok = ok && plain(v)
		b = append(b, indent...)
		b = append(b, key...)
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, '\n')
	}
	data := func(indent, key string, d Data) {
		if len(d) == 0 {
			return
		}
		b = append(b, indent...)
		b = append(b, key...)
		b = append(b, ": "...)
		start := len(b)
		b = base64.StdEncoding.AppendEncode(b, d)
		ok = ok && plain(string(b[start:]))
		b = append(b, '\n')
	}
	field("", "apiVersion", c.APIVersion, true)
	b = append(b, "clusters:\n"...)
	for _, n := range c.Clusters {
		b = append(b, "- cluster:\n"...)
		field("    ", "certificate-authority", n.Cluster.CertificateAuthority, true)
		data("    ", "certificate-authority-data", n.Cluster.CertificateAuthorityData)
		field("    ", "server", n.Cluster.Server, false)
		field("  ", "name", n.Name, false)
	}
	b = append(b, "contexts:\n"...)
	for _, n := range c.Contexts {
		b = append(b, "- context:\n"...)
		field("    ", "cluster", n.Context.Cluster, false)
		field("    ", "user", n.Context.User, false)
		field("  ", "name", n.Name, false)
	}
	field("", "current-context", c.CurrentContext, false)
	field("", "kind", c.Kind, true)
	b = append(b, "users:\n"...)
	for _, n := range c.Users {
		u := n.User
		if u.ClientCertificate == "" && len(u.ClientCertificateData) == 0 && u.ClientKey == "" && len(u.ClientKeyData) == 0 {
			return nil, false // the encoder writes "user: {}"
		}
		field("- ", "name", n.Name, false)
		b = append(b, "  user:\n"...)
		field("    ", "client-certificate", u.ClientCertificate, true)
		data("    ", "client-certificate-data", u.ClientCertificateData)
		field("    ", "client-key", u.ClientKey, true)
		data("    ", "client-key-data", u.ClientKeyData)
	}
	return b, ok
}

// plain reports whether the YAML encoder writes s as it is, unquoted: s starts with a letter
// or a slash (so YAML reads no number, timestamp or indicator in it), is not one of YAML's
// words for true, false and null, and holds only letters, digits and -._/+=, and colons
// that are not last (": " or a final ":" would end a key). Stricter than the encoder, which
// is what Marshal falls back to.
func plain(s string) bool {
	if s == "" || (!isLetter(s[0]) && s[0] != '/') {
		return false
	}
	if len(s) <= 5 && yamlWord(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isLetter(c), c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '/', c == '+', c == '=':
		case c == ':' && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// yamlWord reports whether s, in any case, is one of the words YAML 1.1 reads as a boolean or
// null.
func yamlWord(s string) bool {
	var lower [5]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch string(lower[:len(s)]) {
	case "y", "yes", "n", "no", "true", "false", "on", "off", "null":
		return true
	}
	return false
}
