package scenarios

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// restrictedLabels make a namespace enforce Pod Security "restricted", as the hardening
// checklist of docs/self-service.md tells platforms to label tenant namespaces.
var restrictedLabels = []string{"pod-security.kubernetes.io/enforce=restricted", "pod-security.kubernetes.io/enforce-version=latest"}

// checkPodSecurity proves that the API server's PodSecurity admission admits a pod from every
// Deployment and StatefulSet in namespace ns, which enforces "restricted". The controllers
// create the real pods too, but a refused one shows only as a missing replica and an event on
// the ReplicaSet: here each is created from its workload's pod template with a server-side
// dry run, which runs admission, stores nothing and names the refusal. It first checks that
// the namespace does refuse a pod that is not restricted, so the check cannot pass vacuously.
func checkPodSecurity(ctx context.Context, t *testing.T, e *env, ns string) {
	t.Helper()
	type workload struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Template struct {
				Spec map[string]any `json:"spec"`
			} `json:"template"`
			VolumeClaimTemplates []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"volumeClaimTemplates"`
		} `json:"spec"`
	}
	dryRun := func(name string, spec map[string]any) error {
		pod, _ := json.Marshal(map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     spec,
		})
		_, err := e.Kubectl(ctx, pod, "create", "--dry-run=server", "-f", "-")
		return err
	}

	if err := dryRun("not-restricted", map[string]any{"containers": []any{map[string]any{"name": "c", "image": "ghcr.io/kcp-dev/kcp:v0.32.3"}}}); err == nil || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Fatalf("namespace %s admitted a pod that is not restricted (%v): it does not enforce Pod Security restricted", ns, err)
	}

	var list struct {
		Items []workload `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "deployments.apps,statefulsets.apps", "-n", ns); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		t.Fatalf("no Deployments or StatefulSets in %s", ns)
	}
	admitted := 0
	for _, w := range list.Items {
		spec := w.Spec.Template.Spec
		// The StatefulSet controller gives each pod its claims as volumes, as it would.
		for _, c := range w.Spec.VolumeClaimTemplates {
			vols, _ := spec["volumes"].([]any)
			spec["volumes"] = append(vols, map[string]any{
				"name":                  c.Metadata.Name,
				"persistentVolumeClaim": map[string]any{"claimName": c.Metadata.Name + "-" + w.Metadata.Name + "-0"},
			})
		}
		if err := dryRun(w.Metadata.Name+"-pod", spec); err != nil {
			t.Errorf("the API server refuses a pod of %s %s/%s: %v", w.Kind, ns, w.Metadata.Name, err)
			continue
		}
		admitted++
	}
	e.Step("pod security: a pod of %d of the %d Deployments and StatefulSets in %s admitted under enforce=restricted (server-side dry run)", admitted, len(list.Items), ns)
}
