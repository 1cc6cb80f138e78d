package cacheserver

import (
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
)

// EmbeddedStorageNote ends the Available message of a CacheServer without spec.etcd, so the
// data-loss risk is stated wherever its state is read.
const EmbeddedStorageNote = "Storage is Embedded: the cache lives in an etcd on an emptyDir inside the pod and is lost whenever the pod restarts or moves; set spec.etcd to keep it in an external etcd."

// conditions are the reported conditions; with the embedded etcd the Available message ends
// with EmbeddedStorageNote, whatever the Deployment's state.
func (c *composer) conditions() []condition.Condition {
	out := append([]condition.Condition{}, c.b.Conditions()...)
	if c.cs.Spec.Etcd != nil {
		return out
	}
	for i := range out {
		if out[i].Type == condition.TypeAvailable {
			out[i].Message += " " + EmbeddedStorageNote
		}
	}
	return out
}
