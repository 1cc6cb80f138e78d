package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/gomod"
)

// Object is the part of any Kubernetes object the harness reads generically.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		UID               string            `json:"uid"`
		CreationTimestamp string            `json:"creationTimestamp"`
		Generation        int64             `json:"generation"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		DeletionTimestamp string            `json:"deletionTimestamp"`
		OwnerReferences   []OwnerReference  `json:"ownerReferences"`
	} `json:"metadata"`
	Status struct {
		Conditions []Condition `json:"conditions"`
	} `json:"status"`
}

// OwnerReference is an entry of metadata.ownerReferences.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         bool   `json:"controller,omitempty"`
	BlockOwnerDeletion bool   `json:"blockOwnerDeletion,omitempty"`
}

// Condition is a status condition.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// LastTransitionTime is when Status last changed (RFC 3339).
	LastTransitionTime string `json:"lastTransitionTime"`
}

// Condition returns the condition of type t, or one with status "Unknown".
func (o Object) Condition(t string) Condition {
	for _, c := range o.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return Condition{Type: t, Status: "Unknown"}
}

// GetJSON runs `kubectl get <args> -o json` and decodes the result into out.
func (s *Stack) GetJSON(ctx context.Context, out any, args ...string) error {
	b, err := s.Kubectl(ctx, nil, append(append([]string{"get"}, args...), "-o", "json")...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("kubectl get %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// Apply server-side applies manifests (YAML or JSON) as field manager e2e.
func (s *Stack) Apply(ctx context.Context, manifests []byte) error {
	_, err := s.Kubectl(ctx, manifests, "apply", "--server-side", "--force-conflicts", "--field-manager=e2e", "-f", "-")
	return err
}

// Eventually polls check every interval until it reports done, the timeout passes, the
// context ends, or a process of the stack dies. check's status says what it saw last; it is
// part of the timeout's error, so a failure tells what was missing. An error from check is
// treated as not done yet (the API may be catching up) and reported as the status.
func (s *Stack) Eventually(ctx context.Context, timeout time.Duration, what string, check func(context.Context) (done bool, status string, err error)) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		done, status, err := check(ctx)
		if err != nil {
			status = err.Error()
		}
		if done && err == nil {
			return nil
		}
		last = status
		if err := s.Exited(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done after %s; last seen: %s", what, timeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w; last seen: %s", what, ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// WaitCondition waits until the object's condition has status True.
func (s *Stack) WaitCondition(ctx context.Context, timeout time.Duration, condition string, args ...string) error {
	return s.Eventually(ctx, timeout, fmt.Sprintf("%s %s", strings.Join(args, " "), condition), func(ctx context.Context) (bool, string, error) {
		var o Object
		if err := s.GetJSON(ctx, &o, args...); err != nil {
			return false, "", err
		}
		c := o.Condition(condition)
		return c.Status == "True", fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message), nil
	})
}

// Environment variables carrying the CRD directories into the network namespace.
const (
	EnvCrossplaneCRDs  = "E2E_CROSSPLANE_CRDS"
	EnvCertManagerCRDs = "E2E_CERT_MANAGER_CRDS"
	// EnvCrossplaneNextCRDs are the CRDs of the newer Crossplane core (CROSSPLANE_CORE_NEXT).
	EnvCrossplaneNextCRDs = "E2E_CROSSPLANE_NEXT_CRDS"
	// EnvCertManagerOldestCRDs are the CRDs of the oldest cert-manager (EnvCertManagerOldest).
	EnvCertManagerOldestCRDs = "E2E_CERT_MANAGER_OLDEST_CRDS"
	// EnvGatewayAPICRDs is Gateway API's standard channel of CRDs, of the version the root
	// module pins (the function composes its TLSRoutes).
	EnvGatewayAPICRDs = "E2E_GATEWAY_API_CRDS"
	// EnvPrometheusOperatorCRDs are prometheus-operator's CRDs, of the release whose Go types
	// the root module pins (the function composes its PodMonitors).
	EnvPrometheusOperatorCRDs = "E2E_PROMETHEUS_OPERATOR_CRDS"
)

// ResolveCRDs sets E2E_CROSSPLANE_CRDS, E2E_CROSSPLANE_NEXT_CRDS, E2E_CERT_MANAGER_CRDS,
// E2E_CERT_MANAGER_OLDEST_CRDS, E2E_GATEWAY_API_CRDS and E2E_PROMETHEUS_OPERATOR_CRDS, unless
// set, to the CRD directories of the Crossplane core versions test/tools and
// test/tools/crossplane-next pin, of the cert-manager test/e2e/tools/cert-manager-oldest pins,
// and of the cert-manager, Gateway API and prometheus-operator versions the root module pins.
// Call it before cluster.Run re-executes into the network namespace, which inherits the
// environment.
func ResolveCRDs(moduleRoot string) error {
	for _, r := range []struct{ env, goModDir, module, sub string }{
		{EnvCrossplaneCRDs, filepath.Join(moduleRoot, "test", "tools"), "github.com/crossplane/crossplane/v2", "cluster/crds"},
		{EnvCrossplaneNextCRDs, filepath.Join(moduleRoot, "test", "tools", "crossplane-next"), "github.com/crossplane/crossplane/v2", "cluster/crds"},
		{EnvCertManagerCRDs, moduleRoot, "github.com/cert-manager/cert-manager", "deploy/crds"},
		{EnvCertManagerOldestCRDs, filepath.Join(moduleRoot, "test", "e2e", "tools", "cert-manager-oldest"), "github.com/cert-manager/cert-manager", "deploy/crds"},
		{EnvGatewayAPICRDs, moduleRoot, "sigs.k8s.io/gateway-api", "config/crd/standard"},
	} {
		if os.Getenv(r.env) != "" {
			continue
		}
		dir, err := gomod.Dir(r.goModDir, r.module)
		if err != nil {
			return err
		}
		if err := os.Setenv(r.env, filepath.Join(dir, r.sub)); err != nil {
			return err
		}
	}
	if os.Getenv(EnvPrometheusOperatorCRDs) == "" {
		dir, err := gomod.DirBeside(moduleRoot, "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring", "github.com/prometheus-operator/prometheus-operator")
		if err != nil {
			return err
		}
		return os.Setenv(EnvPrometheusOperatorCRDs, filepath.Join(dir, "example", "prometheus-operator-crd"))
	}
	return nil
}
