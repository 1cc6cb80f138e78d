package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// checkComposedOnce holds that each Deployment in ns was created with its final spec: an
// input that arrives a moment later (a certificate's revision, a bundle) must not change it
// again, which on a real cluster is a second rollout. The one change allowed is a rollout for
// a certificate cert-manager issued again on its own (its trigger controller can re-issue
// right after a first issuance): a new certificate must reach the pods, so each re-issue of a
// certificate a Deployment mounts allows one more generation, and the test says which and why
// (cert-manager's Issuing event).
func checkComposedOnce(ctx context.Context, t *testing.T, e *env, ns string) {
	t.Helper()
	var deployments struct {
		Items []deployment `json:"items"`
	}
	if err := e.GetJSON(ctx, &deployments, "deployments.apps", "-n", ns); err != nil {
		t.Fatal(err)
	}
	certs, err := certificates(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deployments.Items {
		if d.Metadata.Generation == 1 {
			continue
		}
		var mounted []string
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Secret != nil {
				mounted = append(mounted, v.Secret.SecretName)
			}
		}
		allowed, reissued := int64(1), []string(nil)
		for _, c := range certs {
			if c.revision > 1 && slices.Contains(mounted, c.secret) {
				allowed += int64(c.revision - 1)
				reissued = append(reissued, fmt.Sprintf("%s (revision %d: %s)", c.name, c.revision, issuingReasons(ctx, e, ns, c.name)))
			}
		}
		if d.Metadata.Generation > allowed {
			t.Errorf("Deployment %s is at generation %d: its spec changed after it was created (cert-manager re-issued %d of the certificates it mounts: %v)",
				d.Metadata.Name, d.Metadata.Generation, len(reissued), reissued)
			continue
		}
		e.Step("composed once: Deployment %s/%s rolled again (generation %d) only because cert-manager issued a certificate it mounts again on its own: %s",
			ns, d.Metadata.Name, d.Metadata.Generation, strings.Join(reissued, "; "))
	}
}

// issuingReasons are the messages of cert-manager's Issuing events on Certificate name: why
// its trigger controller issued it (again).
func issuingReasons(ctx context.Context, e *env, ns, name string) string {
	var events struct {
		Items []struct {
			Message string `json:"message"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &events, "events", "-n", ns, "--field-selector", "involvedObject.kind=Certificate,involvedObject.name="+name+",reason=Issuing"); err != nil {
		return err.Error()
	}
	var out []string
	for _, ev := range events.Items {
		out = append(out, ev.Message)
	}
	return strings.Join(out, " | ")
}
