package check

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// MinObjectCountScanInterval bounds how often a shard counts its objects: each count reads
// every key of the shard in etcd, an etcd other installations may share.
const MinObjectCountScanInterval = 10 * time.Second

// ObjectLimit refuses an object limit kcp of tag would not start with (supported is
// kcpversion.SupportsObjectLimit(tag)), or one whose counting would read the whole shard from
// etcd more often than every MinObjectCountScanInterval.
func ObjectLimit(p *field.Path, l *v1alpha1.ObjectLimit, tag string, supported bool) field.ErrorList {
	if l == nil {
		return nil
	}
	var errs field.ErrorList
	if !supported {
		errs = append(errs, field.Forbidden(p, "kcp "+tag+" has no --logical-cluster-total-object-limit and would not start with it (it comes with kcp's release after v0.32.3); remove it, or run kcp v0.33.0 or later (spec.image.tag)"))
	}
	if l.Total < 1 {
		errs = append(errs, field.Invalid(p.Child("total"), l.Total, "must be at least 1: remove objectLimit for no limit"))
	}
	if s := l.ScanInterval; s != nil && s.Duration < MinObjectCountScanInterval {
		errs = append(errs, field.Invalid(p.Child("scanInterval"), s.Duration.String(), "must be at least "+MinObjectCountScanInterval.String()+": every count reads all of the shard's keys in etcd; remove it for kcp's 1m"))
	}
	return errs
}
