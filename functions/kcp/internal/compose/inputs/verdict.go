package inputs

import (
	"fmt"
	"slices"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// Verdict is the outcome of checking a workload's mounts.
type Verdict struct {
	// WaitingCertificates are certificates not yet issued.
	WaitingCertificates []string
	// WaitingObjects are external objects (the user's) that do not exist, described with the
	// spec field that references them.
	WaitingObjects []string
	// WaitingComposed are objects the function composes that do not exist yet.
	WaitingComposed []string
	Rollout         workload.Rollout
}

// Open reports whether every mount is available.
func (v Verdict) Open() bool {
	return len(v.WaitingCertificates) == 0 && len(v.WaitingObjects) == 0 && len(v.WaitingComposed) == 0
}

// Check examines the Secrets and ConfigMaps mounted by a workload. Names not registered are
// assumed to be the user's (extra volumes) and not checked.
func (in *Inputs) Check(m workload.Mounts, st *observed.State, want *desired.Set) Verdict {
	var v Verdict
	for _, x := range m {
		var kind, name string
		switch {
		case x.Volume.Secret != nil:
			kind, name = KindSecret, x.Volume.Secret.SecretName
		case x.Volume.ConfigMap != nil:
			kind, name = KindConfigMap, x.Volume.ConfigMap.Name
		default:
			continue
		}
		s, ok := in.sources[kind+"/"+name]
		if !ok {
			continue
		}
		switch s.kind {
		case fromCertificate:
			if !st.CertificateIssued(s.key) {
				v.WaitingCertificates = append(v.WaitingCertificates, name)
				continue
			}
			v.Rollout.Certificate(name, st.CertificateRevision(s.key))
		case fromComposed:
			o, ok := want.Get(s.key)
			if !ok || !st.Exists(s.key) {
				v.WaitingComposed = append(v.WaitingComposed, fmt.Sprintf("%s %s", kind, name))
				continue
			}
			v.Rollout.Config(name, desired.Fingerprint(o))
		case fromExternal, fromChild:
			l := st.Object(kind, name)
			if !l.Found {
				v.WaitingObjects = append(v.WaitingObjects, fmt.Sprintf("%s %s (%s)", kind, name, s.field))
				continue
			}
			// Its content, not its resourceVersion: a Secret deleted and created again with
			// the same data (a CacheServer re-created, a Secret restored from a backup) or
			// only relabelled must not restart kcp.
			v.Rollout.Config(kind+"/"+name, desired.DataFingerprint(l.Data))
		}
	}
	slices.Sort(v.WaitingCertificates)
	v.WaitingCertificates = slices.Compact(v.WaitingCertificates)
	slices.Sort(v.WaitingObjects)
	v.WaitingObjects = slices.Compact(v.WaitingObjects)
	slices.Sort(v.WaitingComposed)
	v.WaitingComposed = slices.Compact(v.WaitingComposed)
	return v
}
