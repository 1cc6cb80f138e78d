package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// Rollout collects what a pod's mounted files depend on, so that a change to any of them
// changes the pod template and Kubernetes rolls the pods: kcp reads most files only at start.
type Rollout struct {
	revisions map[string]int64
	config    map[string]string
}

// Certificate records the cert-manager revision of a mounted certificate Secret.
func (r *Rollout) Certificate(secret string, revision int64) {
	if r.revisions == nil {
		r.revisions = map[string]int64{}
	}
	r.revisions[secret] = revision
}

// Config records a fingerprint of a mounted Secret or ConfigMap the function composes or
// reads (a digest of its content).
func (r *Rollout) Config(name, fingerprint string) {
	if r.config == nil {
		r.config = map[string]string{}
	}
	r.config[name] = fingerprint
}

// Annotations returns the pod template annotations, deterministic for the same inputs.
func (r Rollout) Annotations() map[string]string {
	out := map[string]string{}
	if len(r.revisions) > 0 {
		keys := sortedKeys(r.revisions)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%d", k, r.revisions[k]))
		}
		out[names.AnnotationCertificateRevisions] = strings.Join(parts, ",")
	}
	if len(r.config) > 0 {
		h := sha256.New()
		for _, k := range sortedKeys(r.config) {
			fmt.Fprintf(h, "%s\x00%s\x00", k, r.config[k])
		}
		out[names.AnnotationConfigHash] = hex.EncodeToString(h.Sum(nil))[:16]
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
