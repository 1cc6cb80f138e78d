package scenarios

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/configuration-kcp/configuration-kcp/test/e2e/realkcp"
)

// createKeySecret makes a Secret holding a new random 32-byte key, as docs/encryption.md does.
func createKeySecret(ctx context.Context, t *testing.T, e *env, ns, name string) {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := e.Kubectl(ctx, nil, "create", "secret", "generic", name, "-n", ns, "--from-file=key="+path); err != nil {
		t.Fatalf("create key Secret %s: %v\n%s", name, err, out)
	}
}

// setEncryptionKeys sets a Shard's spec.encryption.keys, each read from the Secret of its
// name; no keys at all (nil) removes spec.encryption. It returns the Shard's generation with
// that spec.
func setEncryptionKeys(ctx context.Context, t *testing.T, e *env, ns, shard string, keys []string) int64 {
	t.Helper()
	patch := `{"spec":{"encryption":null}}`
	if keys != nil {
		list := []map[string]any{}
		for _, k := range keys {
			list = append(list, map[string]any{"name": k, "secretRef": map[string]string{"name": k, "key": "key"}})
		}
		b, _ := json.Marshal(map[string]any{"spec": map[string]any{"encryption": map[string]any{"keys": list}}})
		patch = string(b)
	}
	out, err := e.Kubectl(ctx, nil, "patch", "shards.kcp.crossplane.io", "-n", ns, shard, "--type=merge", "-p", patch, "-o", "jsonpath={.metadata.generation}")
	if err != nil {
		t.Fatalf("patch Shard %s %s: %v\n%s", shard, patch, err, out)
	}
	var gen int64
	if _, err := fmt.Sscan(string(out), &gen); err != nil {
		t.Fatalf("Shard %s's generation after the patch: %q", shard, out)
	}
	return gen
}

// encryptionStatus is a Shard's status.encryption.
type encryptionStatus struct {
	Phase     string   `json:"phase"`
	Writer    string   `json:"writer"`
	Readers   []string `json:"readers"`
	Rewritten string   `json:"rewritten"`
}

func (s encryptionStatus) state() string {
	return "secrets;" + strings.Join(append([]string{s.Writer}, s.Readers...), ",")
}

// rotationWorld is what stands for the parts Kubernetes does not run on kwok's fake nodes.
type rotationWorld struct {
	// restart runs the server's pods again once its Deployment asks for another encryption
	// configuration; nil when no real process runs (kwok's rollout is all there is).
	restart func(state string)
	// rewrite runs a rewrite Job and returns what it printed; nil when no real kcp runs, and
	// the Job is only reported complete.
	rewrite func(job string) (string, error)
}

// rotation is what a drive of a rotation saw.
type rotation struct {
	phases []string
	// took is how long each phase lasted, in the order of phases.
	took []time.Duration
	jobs []string
	last encryptionStatus
}

// finalState is the configuration the pods run once a rotation to keys (secretbox, the
// encrypting one first) is done: those keys, then identity.
func finalState(keys []string) string {
	var ids []string
	for _, k := range keys {
		ids = append(ids, "secretbox:"+k)
	}
	return "secrets;" + strings.Join(append(ids, "identity"), ",")
}

// driveRotation reconciles a Shard's encryption to keys until status.encryption is Rotated,
// with no rewrite Job left and the pods running what the status says and what keys ask for
// (the status of the reconcile that first sees new keys still describes what runs, and may
// say Rotated already), standing in for the kubelet
// where it must: a real process restarted with each new configuration (w.restart), and each
// rewrite Job run (w.rewrite) and reported complete, as the job controller reports a Job whose
// pod exited 0.
func driveRotation(ctx context.Context, t *testing.T, e *env, ns, shard string, generation int64, keys []string, w rotationWorld) rotation {
	t.Helper()
	var r rotation
	want := finalState(keys)
	deployment := shard + "-shard-kcp"
	running, _ := e.Kubectl(ctx, nil, "get", "deployment", "-n", ns, deployment, "-o", `jsonpath={.spec.template.metadata.annotations.kcp\.crossplane\.io/encryption}`)
	ran := string(running)
	done := map[string]bool{}
	since := time.Now()
	err := e.Eventually(ctx, 2*timeout, "Shard "+shard+" encryption Rotated, the pods running it", func(ctx context.Context) (bool, string, error) {
		nudge(ctx, t, e, "shard", ns, shard)
		x, err := getXR(ctx, e, "Shard", ns, shard)
		if err != nil {
			return false, "", err
		}
		var st encryptionStatus
		b, _ := json.Marshal(x.Status["encryption"])
		_ = json.Unmarshal(b, &st)
		// A status of the spec before the one just set is not this rotation's.
		current := reconciled(x, generation)
		if n := len(r.phases); current && st.Phase != "" && (n == 0 || r.phases[n-1] != st.Phase) {
			if n > 0 {
				r.took = append(r.took, time.Since(since))
			}
			since = time.Now()
			r.phases = append(r.phases, st.Phase)
		}
		r.last = st
		out, err := e.Kubectl(ctx, nil, "get", "deployment", "-n", ns, deployment, "-o", `jsonpath={.spec.template.metadata.annotations.kcp\.crossplane\.io/encryption}`)
		if err != nil {
			return false, "", err
		}
		if template := string(out); template != ran {
			if w.restart != nil {
				w.restart(template)
			}
			ran = template
		}
		jobs, err := e.Kubectl(ctx, nil, "get", "jobs", "-n", ns, "-o", "name")
		if err != nil {
			return false, "", err
		}
		left := 0
		for _, j := range strings.Fields(string(jobs)) {
			job := strings.TrimPrefix(j, "job.batch/")
			if !strings.HasPrefix(job, shard+"-encryption-rewrite-") {
				continue
			}
			left++
			if done[job] {
				continue
			}
			if completeRewriteJob(ctx, t, e, ns, job, w.rewrite) {
				done[job] = true
				r.jobs = append(r.jobs, job)
			}
		}
		return current && st.Phase == "Rotated" && left == 0 && ran == st.state() && ran == want,
			fmt.Sprintf("phase %s, pods run %q (want %q), %d rewrite Jobs", st.Phase, ran, want, left), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.took = append(r.took, time.Since(since))
	return r
}

// reconciled reports whether Crossplane has reconciled the XR since its spec reached
// generation: its Synced condition is True for that generation or a later one (Crossplane's
// own writes of spec.crossplane raise it too).
func reconciled(x xr, generation int64) bool {
	var cs []struct {
		Type               string `json:"type"`
		Status             string `json:"status"`
		ObservedGeneration int64  `json:"observedGeneration"`
	}
	b, _ := json.Marshal(x.Status["conditions"])
	_ = json.Unmarshal(b, &cs)
	for _, c := range cs {
		if c.Type == "Synced" {
			return c.Status == "True" && c.ObservedGeneration >= generation
		}
	}
	return false
}

// completeRewriteJob runs a rewrite Job (w.rewrite, when a real kcp runs) and reports it
// complete, standing in for the job controller and the kubelet, which the e2e's control plane
// and kwok's fake nodes do not run for Jobs: what the function reads, the Job's Complete
// condition, is what they would write for a pod that exited 0.
func completeRewriteJob(ctx context.Context, t *testing.T, e *env, ns, job string, rewrite func(string) (string, error)) bool {
	t.Helper()
	if rewrite != nil {
		printed, err := rewrite(job)
		if err != nil {
			t.Fatalf("rewrite Job %s failed on real kcp: %v\n%s", job, err, printed)
		}
		e.Step("encryption: rewrite Job %s on real kcp: %s", job, strings.TrimSpace(printed))
	}
	at := time.Now().UTC().Format(time.RFC3339)
	status := fmt.Sprintf(`{"status":{"startTime":%[1]q,"completionTime":%[1]q,"succeeded":1,"conditions":[`+
		`{"type":"SuccessCriteriaMet","status":"True","reason":"CompletionsReached","message":"Reached expected number of succeeded pods","lastProbeTime":%[1]q,"lastTransitionTime":%[1]q},`+
		`{"type":"Complete","status":"True","reason":"CompletionsReached","message":"Reached expected number of succeeded pods","lastProbeTime":%[1]q,"lastTransitionTime":%[1]q}]}}`, at)
	if out, err := e.Kubectl(ctx, nil, "patch", "job", job, "-n", ns, "--subresource=status", "--type=merge", "-p", status); err != nil {
		t.Fatalf("report rewrite Job %s complete: %v\n%s", job, err, out)
	}
	return true
}

// testEncryption turns encryption on for a Shard whose kcp runs, rotates to a second key,
// refuses the first key's removal until the rewrite, drops it, decrypts and turns encryption
// off, through Crossplane and the function, with Deployments rolled out by Kubernetes onto
// kwok's fake nodes and each rewrite Job reported complete by the test (the e2e runs no job
// controller and kwok no container: what the Job does to kcp's data is RealKCP/Encryption's).
func testEncryption(ctx context.Context, t *testing.T, e *env, ns, shard string) {
	for _, k := range []string{"key-1", "key-2"} {
		createKeySecret(ctx, t, e, ns, k)
	}
	// What the pods ran, in order, is the ReplicaSets' history: a phase can pass between two
	// polls of the status, a rollout cannot leave no ReplicaSet.
	deployment := shard + "-shard-kcp"
	step := func(what string, keys []string, ran ...string) rotation {
		t.Helper()
		_, last := podStates(ctx, t, e, ns, deployment, 0)
		gen := setEncryptionKeys(ctx, t, e, ns, shard, keys)
		start := time.Now()
		r := driveRotation(ctx, t, e, ns, shard, gen, keys, rotationWorld{})
		got, _ := podStates(ctx, t, e, ns, deployment, last)
		if strings.Join(got, " | ") != strings.Join(ran, " | ") {
			t.Errorf("%s: the pods ran, in order:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(ran, "\n  "))
		}
		e.Step("encryption: %s: the pods ran %v; phases seen %v in %.1fs (%v), %d rewrite Jobs", what, got, r.phases, time.Since(start).Seconds(), r.took, len(r.jobs))
		return r
	}
	step("turned on for a running shard", []string{"key-1"},
		"secrets;identity,secretbox:key-1", "secrets;secretbox:key-1,identity")
	checkEncryptionMounted(ctx, t, e, ns, shard, true)

	// Rotating: the old key cannot go before the new one has rewritten everything.
	setEncryptionKeys(ctx, t, e, ns, shard, []string{"key-2", "key-1"})
	setEncryptionKeys(ctx, t, e, ns, shard, []string{"key-2"})
	const refused = "secretbox:key-1 still decrypts"
	if err := e.Eventually(ctx, timeout, "Shard "+shard+" refuses key-1's removal", func(ctx context.Context) (bool, string, error) {
		nudge(ctx, t, e, "shard", ns, shard)
		out, err := e.Kubectl(ctx, nil, "get", "shards.kcp.crossplane.io", "-n", ns, shard, "-o", `jsonpath={.status.conditions[?(@.type=="Synced")].message}`)
		return err == nil && strings.Contains(string(out), refused), "Synced: " + string(out), nil
	}); err != nil {
		t.Fatal(err)
	}
	e.Step("encryption: removing key-1 before the rewrite refused on Shard %s (Synced=False: %q)", shard, refused)
	r := step("rotated to key-2", []string{"key-2", "key-1"},
		"secrets;secretbox:key-1,secretbox:key-2,identity", "secrets;secretbox:key-2,secretbox:key-1,identity")
	if r.last.Rewritten != "secretbox:key-2" || len(r.jobs) != 1 {
		t.Errorf("after the rotation status.encryption.rewritten is %q after %d rewrite Jobs, want secretbox:key-2 after 1", r.last.Rewritten, len(r.jobs))
	}
	step("key-1 dropped", []string{"key-2"}, "secrets;secretbox:key-2,identity")
	step("decrypted (keys: [])", []string{}, "secrets;identity,secretbox:key-2", "secrets;identity")

	setEncryptionKeys(ctx, t, e, ns, shard, nil)
	if err := e.Eventually(ctx, timeout, "Shard "+shard+" without encryption", func(ctx context.Context) (bool, string, error) {
		nudge(ctx, t, e, "shard", ns, shard)
		_, err := e.Kubectl(ctx, nil, "get", "secret", "-n", ns, shard+"-encryption-config")
		return err != nil, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := waitXR(ctx, e, "Shard", ns, shard, "Ready", "True"); err != nil {
		t.Fatal(err)
	}
	checkEncryptionMounted(ctx, t, e, ns, shard, false)
	e.Step("encryption: spec.encryption removed once decrypted: the configuration Secret and kcp's flag are gone, Shard %s Ready", shard)
}

// podStates are the encryption states (the pod template annotation) of a Deployment's
// ReplicaSets of a revision after since, oldest first: what its pods ran, in order; and the
// last revision.
func podStates(ctx context.Context, t *testing.T, e *env, ns, deployment string, since int) (states []string, last int) {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Spec struct {
				Template struct {
					Metadata struct {
						Annotations map[string]string `json:"annotations"`
					} `json:"metadata"`
				} `json:"template"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := e.GetJSON(ctx, &list, "replicasets", "-n", ns); err != nil {
		t.Fatal(err)
	}
	byRevision := map[int]string{}
	var revisions []int
	for _, rs := range list.Items {
		if !strings.HasPrefix(rs.Metadata.Name, deployment+"-") {
			continue
		}
		var rev int
		if _, err := fmt.Sscan(rs.Metadata.Annotations["deployment.kubernetes.io/revision"], &rev); err != nil || rev <= since {
			last = max(last, rev)
			continue
		}
		byRevision[rev] = rs.Spec.Template.Metadata.Annotations["kcp.crossplane.io/encryption"]
		revisions = append(revisions, rev)
	}
	slices.Sort(revisions)
	for _, rev := range revisions {
		states = append(states, byRevision[rev])
		last = max(last, rev)
	}
	return states, last
}

// checkEncryptionMounted checks that the shard's kcp is given its encryption configuration
// (want), or not.
func checkEncryptionMounted(ctx context.Context, t *testing.T, e *env, ns, shard string, want bool) {
	t.Helper()
	var dep deployment
	if err := e.GetJSON(ctx, &dep, "deployment", "-n", ns, shard+"-shard-kcp"); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " ")
	if got := strings.Contains(args, "--encryption-provider-config=/etc/kcp/encryption/config.yaml"); got != want {
		t.Errorf("Deployment %s-shard-kcp passes --encryption-provider-config: %v, want %v (args %s)", shard, got, want, args)
	}
}

// testEncryptionOnRealKCP turns encryption on for a real shard, rotates its key and drops the
// old one, each step through Crossplane and the function, with the shard's process started
// again whenever its Deployment asks for another configuration and each rewrite Job's script
// run against it. After every restart, every Secret written so far in a workspace on the
// shard reads back and another is written; at the end of each rotation, every Secret of the
// shard in etcd is encrypted with the new key (k8s:enc:secretbox:v1:<key>:). One process
// stands for the Deployment while kwok reports its rollouts at once, so the function may be a
// step ahead of the process, which then starts with the newest configuration: this proves
// kcp's side (each configuration accepted, nothing written before lost, the rewrite
// re-encrypting with the writer, the old key dropped safely); the order of the steps across
// replicas is Sharded/Encryption's (the ReplicaSets' history) and TestEncryptionRotation's.
func testEncryptionOnRealKCP(ctx context.Context, t *testing.T, e *env, admin kubectlFunc, etcd *realkcp.Pod, ns, shard string, restart func(), rewrite func(job string) (string, error)) {
	t.Helper()
	ws := serverOf(ctx, t, admin) + ":on-" + shard
	var written []string
	write := func(name string) {
		t.Helper()
		if out, err := admin(ctx, "", "--server="+ws, "create", "secret", "generic", name, "--from-literal=v="+name); err != nil {
			t.Fatalf("write Secret %s in root:on-%s: %v\n%s", name, shard, err, out)
		}
		written = append(written, name)
	}
	readBack := func(when string) {
		t.Helper()
		for _, name := range written {
			out, err := admin(ctx, "", "--server="+ws, "get", "secret", name, "-o", "jsonpath={.data.v}")
			v, _ := base64.StdEncoding.DecodeString(out)
			if err != nil || string(v) != name {
				t.Errorf("%s: Secret %s written earlier does not read back from real kcp: %v %q", when, name, err, out)
			}
		}
	}
	restarts := 0
	world := rotationWorld{
		restart: func(state string) {
			start := time.Now()
			restart()
			if err := e.Eventually(ctx, 2*time.Minute, shard+" ready again", func(ctx context.Context) (bool, string, error) {
				out, err := admin(ctx, "", "--server=https://"+shard+"-shard-kcp."+ns+".svc.cluster.local:6443", "get", "--raw", "/readyz")
				return err == nil && strings.TrimSpace(out) == "ok", out, nil
			}); err != nil {
				t.Fatal(err)
			}
			restarts++
			readBack("after restart " + fmt.Sprint(restarts))
			write(fmt.Sprintf("written-after-restart-%d", restarts))
			e.Step("RealKCP encryption: %s started with %q, ready %.1fs later; %d Secrets read back, one more written", shard, state, time.Since(start).Seconds(), len(written)-1)
		},
		rewrite: rewrite,
	}
	for _, k := range []string{"real-key-1", "real-key-2"} {
		createKeySecret(ctx, t, e, ns, k)
	}
	write("before-encryption")
	for _, s := range []struct {
		what string
		keys []string
		want string
	}{
		{"turned on", []string{"real-key-1"}, "k8s:enc:secretbox:v1:real-key-1:"},
		{"rotated", []string{"real-key-2", "real-key-1"}, "k8s:enc:secretbox:v1:real-key-2:"},
		{"old key dropped", []string{"real-key-2"}, "k8s:enc:secretbox:v1:real-key-2:"},
	} {
		gen := setEncryptionKeys(ctx, t, e, ns, shard, s.keys)
		start := time.Now()
		r := driveRotation(ctx, t, e, ns, shard, gen, s.keys, world)
		readBack(s.what)
		stored := storedSecrets(ctx, t, etcd, shard)
		if len(stored) != 1 || stored[s.want] == 0 {
			t.Errorf("%s: %s's Secrets in etcd, by how their values start: %v; want every one %s", s.what, shard, stored, s.want)
		}
		e.Step("RealKCP encryption: %s: phases %v in %.1fs (%v); %d Secrets written by the test read back; %s's Secrets in etcd: %v", s.what, r.phases, time.Since(start).Seconds(), r.took, len(written), shard, stored)
	}
}

// storedSecrets counts a shard's Secrets in etcd (under its key prefix) by how their values
// start: the encryption prefix k8s:enc:<provider>:v1:<key>:, or plain.
func storedSecrets(ctx context.Context, t *testing.T, etcd *realkcp.Pod, shard string) map[string]int {
	t.Helper()
	out, err := etcd.Command(ctx, nil, os.Getenv(envEtcdctl), "get", "/"+shard+"/", "--prefix", "-w", "json").Output()
	if err != nil {
		t.Fatalf("etcdctl get /%s/ in the etcd pod: %v", shard, err)
	}
	var resp struct {
		KVs []struct {
			Key, Value []byte
		} `json:"kvs"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("etcdctl's JSON: %v", err)
	}
	got := map[string]int{}
	for _, kv := range resp.KVs {
		if !strings.Contains(string(kv.Key), "/secrets/") {
			continue
		}
		v := string(kv.Value)
		if rest, ok := strings.CutPrefix(v, "k8s:enc:"); ok {
			parts := strings.SplitN(rest, ":", 4) // provider, v1, key, data
			if len(parts) == 4 {
				got["k8s:enc:"+parts[0]+":"+parts[1]+":"+parts[2]+":"]++
				continue
			}
		}
		got["plain"]++
	}
	return got
}
