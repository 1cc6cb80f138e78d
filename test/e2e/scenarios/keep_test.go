package scenarios

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/stack"
)

// shardedXRs are the XRs of examples/sharded, which the Sharded scenario leaves running.
var shardedXRs = []string{"RootShard/root", "CacheServer/cache", "Shard/shard-1", "Shard/shard-2", "FrontProxy/frontproxy", "Kubeconfig/shard-1-controller"}

// testKeepsWhatRuns does to the running sharded installation (namespace kcp, left by Sharded)
// what must never take a kcp down: an invalid spec on a running Shard, and the CacheServer
// and then the RootShard its Shards depend on deleted and created again. After each, every
// object that ran before is still there with its UID and generation (nothing deleted,
// re-created or rolled), except what the deleted XR itself composed; the XRs that lost an
// input say so; and the Secrets cert-manager wrote, the CAs' included, are the ones they were.
func testKeepsWhatRuns(t *testing.T, e *env) {
	ns := basicNamespace
	t.Run("InvalidSpecOnARunningShard", func(t *testing.T) { testInvalidSpecOnARunningShard(t, e, ns) })
	t.Run("CacheServerDeletedAndCreatedAgain", func(t *testing.T) {
		// The RootShard names the CacheServer; the Shards inherit it and mount its Secrets.
		deleteAndCreateAgain(t, e, ns, "CacheServer/cache", "cacheserver.yaml", map[string]string{
			"RootShard/root": "CacheServer cache",
			"Shard/shard-1":  "CacheServer cache",
			"Shard/shard-2":  "CacheServer cache",
		})
	})
	t.Run("RootShardDeletedAndCreatedAgain", func(t *testing.T) {
		missing := "RootShard root (spec.rootShard.ref.name) does not exist"
		deleteAndCreateAgain(t, e, ns, "RootShard/root", "rootshard.yaml", map[string]string{
			"Shard/shard-1":         missing,
			"Shard/shard-2":         missing,
			"FrontProxy/frontproxy": missing,
		})
	})
}

// testInvalidSpecOnARunningShard applies a spec the API server admits but the function must
// refuse (a cluster domain that is no DNS name) to a running Shard: the function fails the
// reconcile naming the field, so Crossplane applies and deletes nothing; fixing the spec
// brings the Shard back to Ready with nothing changed.
func testInvalidSpecOnARunningShard(t *testing.T, e *env, ns string) {
	ctx := t.Context()
	waitXRs(ctx, t, e, ns, shardedXRs, "Ready")
	before, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	patch := func(p string) {
		t.Helper()
		if _, err := e.Kubectl(ctx, []byte(p), "patch", "shard.kcp.crossplane.io", "-n", ns, "shard-2", "--type=json", "--patch-file=/dev/stdin"); err != nil {
			t.Fatal(err)
		}
	}
	patch(`[{"op":"add","path":"/spec/clusterDomain","value":"Cluster_Local"}]`)
	x, err := waitXR(ctx, e, "Shard", ns, "shard-2", "Synced", "False")
	if err != nil {
		t.Fatal(err)
	}
	if msg := x.conditions()["Synced"].Message; !strings.Contains(msg, "spec.clusterDomain") {
		t.Errorf("Synced=False message %q does not name spec.clusterDomain", msg)
	}
	time.Sleep(10 * time.Second) // A careless function would have recomposed on the first reconcile.
	during, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	n := checkKept(t, before, during, kept{during: "the invalid spec", unchanged: true})

	patch(`[{"op":"remove","path":"/spec/clusterDomain"}]`)
	waitXRs(ctx, t, e, ns, []string{"Shard/shard-2"}, "Synced", "Ready")
	after, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, before, after, kept{during: "the invalid spec and its fix", unchanged: true})
	e.Step("keep: a running Shard's invalid spec refused naming the field; %d objects kept unchanged, and after the fix", n)
}

// deleteAndCreateAgain deletes the XR victim ("Kind/name") of the running sharded
// installation and, once Crossplane removed what it composed, checks that every other object
// is unchanged and that each XR of waiting reports InputsReady=False with a message holding
// its value and saying that everything is kept. It then applies the victim's example file
// again: every XR must be Ready, the victim must compose the same objects again, every other
// object must still be the one it was, and every Secret cert-manager wrote (the CAs'
// included) must hold the certificate and key it held: cert-manager found them and issued
// nothing new.
func deleteAndCreateAgain(t *testing.T, e *env, ns, victim, file string, waiting map[string]string) {
	ctx := t.Context()
	kind, name, _ := strings.Cut(victim, "/")
	composedByVictim := func(o stack.Object) bool { return o.Metadata.Labels["crossplane.io/composite"] == name }

	waitXRs(ctx, t, e, ns, shardedXRs, "Ready")
	before, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	issuedBefore, err := issuedSecrets(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := e.Kubectl(ctx, nil, "delete", "-n", ns, strings.ToLower(kind)+".kcp.crossplane.io", name, "--wait=false"); err != nil {
		t.Fatal(err)
	}
	// The garbage collector removes what the victim composed.
	if err := e.Eventually(ctx, 3*time.Minute, victim+" and what it composed deleted", func(ctx context.Context) (bool, string, error) {
		objs, err := installationObjects(ctx, e, ns)
		if err != nil {
			return false, "", err
		}
		var left []string
		for key, o := range objs {
			if composedByVictim(o) {
				left = append(left, key)
			}
		}
		_, err = getXR(ctx, e, kind, ns, name)
		gone := err != nil && strings.Contains(err.Error(), "NotFound")
		return gone && len(left) == 0, fmt.Sprintf("XR gone: %t; %d composed objects left", gone, len(left)), nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, key := range slices.Sorted(maps.Keys(waiting)) {
		k, n, _ := strings.Cut(key, "/")
		x, err := waitXR(ctx, e, k, ns, n, "InputsReady", "False")
		if err != nil {
			t.Fatal(err)
		}
		if msg := x.conditions()["InputsReady"].Message; !strings.Contains(msg, waiting[key]) || !strings.Contains(msg, "kept unchanged") {
			t.Errorf("%s: InputsReady message %q does not say %q and that everything is kept unchanged", key, msg, waiting[key])
		}
	}
	time.Sleep(10 * time.Second) // A few more reconciles without the victim.
	during, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	n := checkKept(t, before, during, kept{during: "the deletion of " + victim, spare: composedByVictim, unchanged: true})
	e.Step("keep: %s deleted; %d XRs report the missing input, %d objects of the others and cert-manager's Secrets kept unchanged", victim, len(waiting), n)

	if _, err := e.ApplyFiles(ctx, filepath.Join(e.root, "examples", "sharded", file)); err != nil {
		t.Fatal(err)
	}
	waitXRs(ctx, t, e, ns, shardedXRs, "Synced", "Ready")
	// An XR that kept its objects stays Ready meanwhile: wait until the victim and every XR
	// that missed it have read it again.
	waitXRs(ctx, t, e, ns, append(slices.Sorted(maps.Keys(waiting)), victim), "InputsReady")
	after, err := installationObjects(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, before, after, kept{during: "the deletion and re-creation of " + victim, spare: composedByVictim, unchanged: true})
	if was, now := composedKeys(before, composedByVictim), composedKeys(after, composedByVictim); !slices.Equal(was, now) {
		t.Errorf("%s created again composed %v, before %v", victim, now, was)
	}
	issuedAfter, err := issuedSecrets(ctx, e, ns)
	if err != nil {
		t.Fatal(err)
	}
	n, cas := checkSameKeys(t, issuedBefore, issuedAfter, victim+" created again", func(s issued) bool { return s.composite == name })
	e.Step("keep: %s created again, all %d XRs Ready %.1fs after its deletion; %d Secrets cert-manager wrote (%d CAs) hold the same keys",
		victim, len(shardedXRs), time.Since(start).Seconds(), n, cas)
}

// checkSameKeys fails the test for every Secret of before, written by cert-manager, that is
// gone from after or holds another certificate or key: cert-manager issued anew. It skips
// the Secrets spare says an XR composed itself and so deleted with it. It returns how many
// Secrets it checked and how many of them are CAs'.
func checkSameKeys(t *testing.T, before, after map[string]issued, during string, spare func(issued) bool) (n, cas int) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(before)) {
		was := before[name]
		if spare != nil && spare(was) {
			continue
		}
		n++
		switch now, ok := after[name]; {
		case !ok:
			t.Errorf("Secret %s, written by cert-manager, is gone after %s", name, during)
		case now.data != was.data:
			t.Errorf("Secret %s holds another certificate or key after %s: cert-manager issued anew", name, during)
		case was.ca:
			cas++
		}
	}
	return n, cas
}

// issued is what identifies a Secret cert-manager wrote: a digest of its certificate and
// key, whether it is a CA's, and the XR that composed the Secret itself, if one did (a
// Kubeconfig composes its client certificate's Secret, labelled as kcp-operator labels it).
type issued struct {
	data      string
	ca        bool
	composite string
}

// issuedSecrets digests every Secret cert-manager wrote in ns, by name.
func issuedSecrets(ctx context.Context, e *env, ns string) (map[string]issued, error) {
	var list struct {
		Items []struct {
			stack.Object
			Data map[string]string `json:"data"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "secrets", "-n", ns); err != nil {
		return nil, err
	}
	out := map[string]issued{}
	for _, s := range list.Items {
		if _, ok := s.Metadata.Annotations["cert-manager.io/certificate-name"]; !ok {
			continue
		}
		sum := sha256.Sum256([]byte(s.Data["tls.crt"] + "\x00" + s.Data["tls.key"]))
		crt, _ := base64.StdEncoding.DecodeString(s.Data["tls.crt"])
		c, err := leaf(crt)
		out[s.Metadata.Name] = issued{data: fmt.Sprintf("%x", sum), ca: err == nil && c.IsCA, composite: s.Metadata.Labels["crossplane.io/composite"]}
	}
	return out, nil
}

// composedKeys are the sorted keys of the objects keep selects.
func composedKeys(objs map[string]stack.Object, keep func(stack.Object) bool) []string {
	var out []string
	for key, o := range objs {
		if keep(o) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// waitXRs waits until every XR ("Kind/name") in ns has each condition True.
func waitXRs(ctx context.Context, t *testing.T, e *env, ns string, xrs []string, conditions ...string) {
	t.Helper()
	for _, key := range xrs {
		kind, name, _ := strings.Cut(key, "/")
		for _, c := range conditions {
			if _, err := waitXR(ctx, e, kind, ns, name, c, "True"); err != nil {
				t.Fatal(err)
			}
		}
	}
}
