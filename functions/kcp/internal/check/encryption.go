package check

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// encryptionFlag is kcp's flag for an EncryptionConfiguration file.
const encryptionFlag = "--encryption-provider-config"

// Encryption checks what the schema does not: each key names its Secret and key, no two keys
// share a name (the name is what kcp writes beside each value), and no extra argument gives
// kcp another configuration. The keys' content is checked where it is read (compose/rotation).
func Encryption(p *field.Path, e *v1alpha1.Encryption, argsPath *field.Path, args []string) field.ErrorList {
	if e == nil {
		return nil
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, k := range e.Keys {
		kp := p.Child("keys").Index(i)
		if k.Name == "" {
			errs = append(errs, field.Required(kp.Child("name"), "name the key, e.g. key-1: kcp writes it beside every value it encrypts"))
		} else if seen[k.Name] {
			errs = append(errs, field.Duplicate(kp.Child("name"), k.Name))
		}
		seen[k.Name] = true
		if k.SecretRef.Name == "" {
			errs = append(errs, field.Required(kp.Child("secretRef", "name"), "name the Secret, in this namespace, that holds the key"))
		}
		if k.SecretRef.Key == "" {
			errs = append(errs, field.Required(kp.Child("secretRef", "key"), "name the Secret's key that holds the key's bytes, e.g. key"))
		}
	}
	if im := e.RewriteImages; im != nil {
		ip := p.Child("rewriteImages")
		errs = append(errs, ImageReference(ip.Child("kubectl"), im.Kubectl)...)
		errs = append(errs, ImageReference(ip.Child("shell"), im.Shell)...)
	}
	for i, a := range args {
		if a == encryptionFlag || strings.HasPrefix(a, encryptionFlag+"=") || strings.HasPrefix(a, encryptionFlag+"-automatic-reload") {
			errs = append(errs, field.Forbidden(argsPath.Index(i), fmt.Sprintf("%s: spec.encryption composes kcp's encryption configuration and rolls its keys in order; another given here would replace it. Remove the argument (and the volume it reads), or remove spec.encryption", strings.SplitN(a, "=", 2)[0])))
		}
	}
	return errs
}
