package check

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks here refuse what cert-manager or the API server would refuse later, on an
// object composed from the XR, where the message would name no field of the XR.

// MaxCommonName is the longest common name cert-manager accepts (RFC 5280's upper bound).
const MaxCommonName = 64

// imageReference is a whole image reference: repository, optional tag, optional digest.
var imageReference = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-fA-F0-9]{32,})?$`)

// MaxImageReference bounds an image reference: a registry host, a repository of at most
// 255 characters (the distribution spec's bound), a tag and a digest.
const MaxImageReference = 512

// CommonName refuses a certificate common name cert-manager would refuse: empty or longer
// than 64 bytes.
func CommonName(p *field.Path, cn string) field.ErrorList {
	if len(cn) > MaxCommonName {
		return field.ErrorList{field.TooLong(p, cn, MaxCommonName)}
	}
	return nil
}

// ImageReference checks a whole image reference such as quay.io/coreos/etcd:v3.5.28.
func ImageReference(p *field.Path, ref string) field.ErrorList {
	if ref == "" {
		return nil
	}
	if len(ref) > MaxImageReference {
		return field.ErrorList{field.TooLong(p, "", MaxImageReference)}
	}
	if !imageReference.MatchString(ref) {
		return field.ErrorList{field.Invalid(p, ref, "must be an image reference such as quay.io/coreos/etcd:v3.5.28 (no spaces or line breaks)")}
	}
	return nil
}

// Resources refuses what the API server refuses in a container's resources: a negative
// quantity, or a request above its limit.
func Resources(p *field.Path, r *corev1.ResourceRequirements) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	for _, part := range []struct {
		name string
		list corev1.ResourceList
	}{{"requests", r.Requests}, {"limits", r.Limits}} {
		for name, q := range part.list {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Child(part.name).Key(string(name)), q.String(), "must not be negative"))
			}
		}
	}
	for name, req := range r.Requests {
		if lim, ok := r.Limits[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), req.String(), fmt.Sprintf("must not exceed its limit %s", lim.String())))
		}
	}
	return errs
}

// PositiveQuantity refuses a quantity that is zero or negative, such as a volume size.
func PositiveQuantity(p *field.Path, q *resource.Quantity) field.ErrorList {
	if q != nil && q.Sign() <= 0 {
		return field.ErrorList{field.Invalid(p, q.String(), "must be greater than zero, for example 8Gi")}
	}
	return nil
}

// DNSNames refuses names cert-manager cannot put in a certificate: each must be a DNS
// subdomain, optionally with a leading wildcard label (*.example.com).
func DNSNames(p *field.Path, names []string) field.ErrorList {
	var errs field.ErrorList
	for i, n := range names {
		host := strings.TrimPrefix(n, "*.")
		if msgs := validation.IsDNS1123Subdomain(host); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Index(i), n, "must be a DNS name such as kcp.example.com or *.example.com"))
		}
	}
	return errs
}

// NoUserInfo refuses a URL that carries credentials (https://user:password@host): the URL is
// copied into arguments and ConfigMaps that anyone who may view the namespace reads.
func NoUserInfo(p *field.Path, raw string) field.ErrorList {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return field.ErrorList{field.Invalid(p, redacted(u), "must not carry credentials (user:password@): the URL is copied into arguments and ConfigMaps that view can read; remove them (for etcd, authenticate with client certificates, tlsConfig)")}
	}
	return nil
}

// redacted is the URL without its credentials, so the error does not repeat them.
func redacted(u *url.URL) string {
	c := *u
	c.User = url.User("REDACTED")
	return c.String()
}
