package main

import (
	"encoding/json"
	stderrors "errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/crossplane/function-sdk-go/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
)

// kind is one row of the table of kinds: how to compose an XR of one kind, whatever its
// type.
type kind struct {
	// compose decodes, checks and composes the XR obj of kind name.
	compose func(name string, obj map[string]any, st *observed.State) (result.Result[any], error)
	// validate checks a typed XR of the kind that another kind composes.
	validate func(xr v1alpha1.XR) field.ErrorList
}

// kindOf makes the row of a kind whose XRs decode into X. validate and warnings may be nil.
func kindOf[X any, S any, PX interface {
	*X
	metav1.Object
}](
	validate func(PX) field.ErrorList,
	warnings func(PX) []string,
	compose func(PX, *observed.State) (result.Result[S], field.ErrorList),
) kind {
	check := func(xr PX) field.ErrorList {
		if validate == nil {
			return nil
		}
		return validate(xr)
	}
	return kind{
		compose: func(name string, obj map[string]any, st *observed.State) (result.Result[any], error) {
			xr := PX(new(X))
			if err := decode(obj, xr); err != nil {
				return result.Result[any]{}, errors.Wrapf(err, "cannot decode %s", name)
			}
			if errs := check(xr); len(errs) > 0 {
				return result.Result[any]{}, invalid(name, xr.GetNamespace(), xr.GetName(), errs)
			}
			r, errs := compose(xr, st)
			if len(errs) > 0 {
				return result.Result[any]{}, invalid(name, xr.GetNamespace(), xr.GetName(), errs)
			}
			if warnings != nil {
				r.Warnings = append(r.Warnings, warnings(xr)...)
			}
			return r.Untyped(), nil
		},
		validate: func(xr v1alpha1.XR) field.ErrorList {
			typed, ok := xr.(PX)
			if !ok {
				return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot validate a %T as a %T", xr, typed))}
			}
			return check(typed)
		},
	}
}

// withRouteGuard holds a kind whose XRs take identities into kcp (RootShard, Shard,
// FrontProxy, VirtualWorkspace) to the Tenants of its namespace (sharing.GuardRoutes): an
// authenticator that could name a Tenant's identities is refused, naming its field and the
// Tenant, before the kind composes anything.
func withRouteGuard(k kind) kind {
	compose := k.compose
	k.compose = func(name string, obj map[string]any, st *observed.State) (result.Result[any], error) {
		reqs, errs := sharing.GuardRoutes(name, obj, st)
		if len(errs) > 0 {
			meta, _ := obj["metadata"].(map[string]any)
			ns, _ := meta["namespace"].(string)
			n, _ := meta["name"].(string)
			return result.Result[any]{}, invalid(name, ns, n, errs)
		}
		r, err := compose(name, obj, st)
		if err == nil {
			r.Requirements = append(r.Requirements, reqs...)
		}
		return r, err
	}
	return k
}

// table is the function's kinds, by kind name (fn.go's newTable).
type table map[string]kind

// validate checks an XR of one of the table's kinds with that kind's own checks, for kinds
// that compose other kinds' XRs.
func (t table) validate(kindName string, xr v1alpha1.XR) field.ErrorList {
	k, ok := t[kindName]
	if !ok {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("no kind %s in the table of kinds", kindName))}
	}
	return k.validate(xr)
}

// decode converts an unstructured XR into its typed form. encoding/json names the field and
// type of a mismatch, which the unstructured converter does not.
func decode(obj map[string]any, into any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, into); err != nil {
		var te *json.UnmarshalTypeError
		if stderrors.As(err, &te) {
			return fmt.Errorf("%s must be of type %s, not a JSON %s", jsonPath(te.Field), te.Type, te.Value)
		}
		return err
	}
	return nil
}

// jsonPath drops the names of embedded Go structs from a decoding error's field path.
func jsonPath(goPath string) string {
	parts := strings.Split(goPath, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && unicode.IsUpper(rune(p[0])) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ".")
}

// invalid formats validation errors as one message naming every bad field, each once, in at
// most sharing.MaxRefusalBytes: Crossplane puts it in the XR's status, which a Tenant reads
// with every other XR of a team's namespace. The first error is always named (cut if it must
// be); those that do not fit after it are counted.
func invalid(kind, namespace, name string, errs field.ErrorList) error {
	agg := errs.ToAggregate().Errors()
	msg := fmt.Sprintf("invalid %s %s/%s, nothing was changed: ", kind, namespace, name)
	for i, e := range agg {
		more := ""
		if rest := len(agg) - i - 1; rest > 0 {
			more = fmt.Sprintf("; and %d more", rest)
		}
		text := e.Error()
		if i > 0 {
			text = "; " + text
		}
		if len(msg)+len(text)+len(more) > sharing.MaxRefusalBytes {
			if i > 0 {
				return fmt.Errorf("%s; and %d more", msg, len(agg)-i)
			}
			return stderrors.New(msg + condition.Truncate(text, sharing.MaxRefusalBytes-len(msg)-len(more)) + more)
		}
		msg += text
	}
	return stderrors.New(msg)
}
