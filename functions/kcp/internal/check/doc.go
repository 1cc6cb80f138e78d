// Package check holds the spec checks that more than one kind makes: images, replicas,
// etcd, public addresses, URLs, authentication, issuers, names, extra volumes and
// certificate template keys. Each returns errors that name the field and the fix, so every
// kind rejects the same mistake with the same message. A check that only one kind makes
// stays in that kind's validate.go.
package check
