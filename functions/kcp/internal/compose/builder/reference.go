package builder

import (
	"fmt"
	"maps"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/reference"
)

// ReferenceCAs names the Secrets whose tls.crt a reference publishes, each list joined as a
// merged bundle is: CA verifies the published server; ClientCA is what its clients'
// certificates chain to (none: the reference has no client-ca.crt).
type ReferenceCAs struct{ CA, ClientCA []string }

// Reference composes the reference Secret names.Reference(r.Name), publishing r with the
// CA bundles cas names, labelled with labels and names.LabelReference: r.Kind. Ready once it
// exists.
//
// It is composed whole or not at all: a consumer may copy it anywhere, and must never get
// one without its CAs. While a CA Secret cannot be read, an existing reference is kept as it
// is, never deleted on doubt; a new one waits, as a merged bundle does, until every
// certificate of the XR composed so far is issued, so the composer calls it last. A missing
// CA Secret is reported only then: before, each source is either a certificate still being
// issued, which CertificatesReady reports, or an input the XR reports already.
func (b *Builder) Reference(r reference.Reference, labels map[string]string, cas ReferenceCAs) {
	name := names.Reference(r.Name)
	key := b.Key("secret", name)
	ca, missingCA, pendingCA := b.joinCertificates(cas.CA)
	clientCA, missingClientCA, pendingClientCA := b.joinCertificates(cas.ClientCA)
	missing := append(missingCA, missingClientCA...)
	early := pendingCA || pendingClientCA || b.NotBeforeIssued(key)
	if early || len(missing) > 0 {
		b.KeepOrWait(key, !early && len(missing) > 0, fmt.Sprintf("tls.crt of Secret %s (to build Secret %s)", strings.Join(missing, ", "), name))
		return
	}
	r.CA, r.ClientCA = ca, clientCA
	all := maps.Clone(labels)
	if all == nil {
		all = map[string]string{}
	}
	all[names.LabelReference] = r.Kind
	b.Secret(name, all, r.Data())
}
