package rotation

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/encryption"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

const (
	deploymentKey = "deployment-kcp"
	secretKey     = "secret-encryption-config"
)

var (
	key1 = strings.Repeat("1", 32)
	key2 = strings.Repeat("2", 32)
)

// spec lists keys by name; each is read from Secret <name>, key "key".
func spec(keys ...string) *v1alpha1.Encryption {
	e := &v1alpha1.Encryption{Keys: []v1alpha1.EncryptionKey{}}
	for _, k := range keys {
		e.Keys = append(e.Keys, v1alpha1.EncryptionKey{Name: k, SecretRef: v1alpha1.LocalDataKeyReference{Name: k, Key: "key"}})
	}
	return e
}

// cfg is a configuration of secrets with the given key IDs, writer first.
func cfg(ids ...string) encryption.Config {
	c := encryption.Config{Resources: []string{"secrets"}}
	for _, id := range ids {
		switch id {
		case "identity":
			c.Keys = append(c.Keys, encryption.IdentityKey)
		case "key-1":
			c.Keys = append(c.Keys, encryption.Key{Provider: "secretbox", Name: "key-1", Secret: []byte(key1)})
		case "key-2":
			c.Keys = append(c.Keys, encryption.Key{Provider: "secretbox", Name: "key-2", Secret: []byte(key2)})
		}
	}
	return c
}

// world holds the user's two key Secrets and what is observed: the configuration Secret
// (with the rewritten annotation), the Deployment running a state, the rewrite Job.
type world struct {
	config    *encryption.Config
	rewritten string
	// running is the state the Deployment's pods run; "" for no Deployment.
	running    string
	rollingOut bool
	jobDone    *encryption.Config
	changed    bool // key-1's Secret holds other bytes
	noKey2     bool // key-2's Secret is missing
	// elsewhere puts key-2's Secret in another team's namespace only.
	elsewhere bool
}

func (w world) build() *testworld.World {
	tw := testworld.New()
	k1 := key1
	if w.changed {
		k1 = strings.Repeat("x", 32)
	}
	tw.SecretData("key-1", map[string]string{"key": k1})
	if !w.noKey2 && !w.elsewhere {
		tw.SecretData("key-2", map[string]string{"key": key2})
	}
	if w.elsewhere {
		tw.InNamespace(testworld.Namespace).Object(map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "key-2", "namespace": "team-b"},
			"data":     map[string]any{"key": base64.StdEncoding.EncodeToString([]byte(key2))}})
	}
	tw.SecretData("short", map[string]string{"key": "too short"})
	if w.config != nil {
		ann := map[string]any{}
		if w.rewritten != "" {
			ann[names.AnnotationEncryptionRewritten] = w.rewritten
		}
		tw.Put(secretKey, map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": "root-encryption-config", "annotations": ann},
			"data":     map[string]any{ConfigKey: base64.StdEncoding.EncodeToString(w.config.Marshal())}})
	}
	if w.running != "" {
		updated := int64(2)
		if w.rollingOut {
			updated = 1
		}
		tw.Put(deploymentKey, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"generation": int64(3)},
			"spec": map[string]any{"replicas": int64(2), "template": map[string]any{
				"metadata": map[string]any{"annotations": map[string]any{names.AnnotationEncryption: w.running}}}},
			"status": map[string]any{"observedGeneration": int64(3), "replicas": int64(2), "updatedReplicas": updated, "availableReplicas": int64(2),
				"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}})
	}
	if w.jobDone != nil {
		tw.Put(builder.New("root", "kcp", nil).Key("job", names.EncryptionRewrite("root", rewriteTarget(*w.jobDone))), map[string]any{
			"apiVersion": "batch/v1", "kind": "Job",
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}})
	}
	return tw
}

func TestCompose(t *testing.T) {
	running := func(c encryption.Config) string { return c.State() }
	cases := map[string]struct {
		reason string
		spec   *v1alpha1.Encryption
		world  world
		// want is the configuration composed, writer first; phase the status phase.
		want    []string
		phase   v1alpha1.EncryptionPhase
		job     bool
		mount   bool
		blocker bool
		// rewritten is the annotation the composed Secret carries.
		rewritten string
		err       string
	}{
		"Off": {
			reason: "Without spec.encryption and nothing encrypted, nothing is composed.",
		},
		"NewServer": {
			reason: "A server not running yet encrypts with its key from the start; its Deployment waits for the configuration to exist.",
			spec:   spec("key-1"),
			want:   []string{"secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRewriting, blocker: true,
		},
		"NewServerRolledOut": {
			reason: "Once every replica runs the configuration, the rewrite Job encrypts whatever the etcd held before (a re-created installation's).",
			spec:   spec("key-1"),
			world:  world{config: ptr(cfg("key-1", "identity")), running: running(cfg("key-1", "identity"))},
			want:   []string{"secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRewriting, job: true, mount: true,
		},
		"TurnedOnWhileRunning": {
			reason: "A running server turning encryption on first reads the key everywhere while identity still writes.",
			spec:   spec("key-1"),
			world:  world{running: "none"},
			want:   []string{"identity", "secretbox:key-1"}, phase: v1alpha1.EncryptionAddingKey, blocker: true,
		},
		"AddingKeyRollingOut": {
			reason: "A new first key is a reader until every replica runs it; the pods are still rolling.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity"))},
			want:   []string{"secretbox:key-1", "secretbox:key-2", "identity"}, phase: v1alpha1.EncryptionAddingKey, mount: true, rewritten: "secretbox:key-1;secrets",
		},
		"AddingKeyNotYetOnEveryReplica": {
			reason: "The configuration with the new reader is there but one replica still runs the previous one: the writer stays.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-1", "key-2", "identity")), running: running(cfg("key-1", "key-2", "identity")), rollingOut: true},
			want:   []string{"secretbox:key-1", "secretbox:key-2", "identity"}, phase: v1alpha1.EncryptionAddingKey, mount: true,
		},
		"SwitchingWriter": {
			reason: "Once every replica reads the new key it becomes the writer; the old one still decrypts.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-1", "key-2", "identity")), running: running(cfg("key-1", "key-2", "identity"))},
			want:   []string{"secretbox:key-2", "secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionSwitchingWriter, mount: true,
		},
		"WriterSwitchRollingOut": {
			reason: "No rewrite while a replica may still encrypt with the old key.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-2", "key-1", "identity")), running: running(cfg("key-1", "key-2", "identity"))},
			want:   []string{"secretbox:key-2", "secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRewriting, mount: true,
		},
		"Rewriting": {
			reason: "Once every replica encrypts with the new key, the Job rewrites every object with it.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-2", "key-1", "identity")), running: running(cfg("key-2", "key-1", "identity"))},
			want:   []string{"secretbox:key-2", "secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRewriting, job: true, mount: true,
		},
		"Rewritten": {
			reason: "The Job's success is recorded on the configuration Secret; the Job stays until that is observed.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-2", "key-1", "identity")), running: running(cfg("key-2", "key-1", "identity")), jobDone: ptr(cfg("key-2", "key-1", "identity"))},
			want:   []string{"secretbox:key-2", "secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRotated, job: true, mount: true, rewritten: "secretbox:key-2;secrets",
		},
		"Rotated": {
			reason: "Once recorded, the Job goes; the old key stays while the spec lists it.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-2", "key-1", "identity")), rewritten: "secretbox:key-2;secrets", running: running(cfg("key-2", "key-1", "identity"))},
			want:   []string{"secretbox:key-2", "secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRotated, mount: true, rewritten: "secretbox:key-2;secrets",
		},
		"OldKeyRemoved": {
			reason: "After the rewrite the old key may go, with no rewrite.",
			spec:   spec("key-2"),
			world:  world{config: ptr(cfg("key-2", "key-1", "identity")), rewritten: "secretbox:key-2;secrets", running: running(cfg("key-2", "key-1", "identity"))},
			want:   []string{"secretbox:key-2", "identity"}, phase: v1alpha1.EncryptionRotated, mount: true, rewritten: "secretbox:key-2;secrets",
		},
		"OldKeyRemovedTooEarly": {
			reason: "A key removed before the rewrite would leave objects no replica can read: refused, naming the field.",
			spec:   spec("key-2"),
			world:  world{config: ptr(cfg("key-2", "key-1", "identity")), running: running(cfg("key-2", "key-1", "identity"))},
			err:    "spec.encryption.keys: Invalid value: \"secretbox:key-1\": secretbox:key-1 still decrypts",
		},
		"KeyReplacedAtOnce": {
			reason: "Replacing the writer in one edit drops it before anything is rewritten: refused.",
			spec:   spec("key-2"),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity"))},
			err:    "spec.encryption.keys: Invalid value: \"secretbox:key-1\"",
		},
		"KeyContentChanged": {
			reason: "A key's Secret changed under the same name would make everything it encrypted unreadable: refused.",
			spec:   spec("key-1"),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity")), changed: true},
			err:    "spec.encryption.keys[0].secretRef: Invalid value: \"key-1\": key key of Secret key-1 is not the key secretbox:key-1",
		},
		"ShortKey": {
			reason: "A key of the wrong size is refused with how to make one.",
			spec:   &v1alpha1.Encryption{Keys: []v1alpha1.EncryptionKey{{Name: "k", SecretRef: v1alpha1.LocalDataKeyReference{Name: "short", Key: "key"}}}},
			err:    "holds 9 bytes, and a secretbox key is 32 bytes",
		},
		"KeySecretMissing": {
			reason: "Without a key's Secret nothing is decided: the configuration is kept as it is and stays mounted.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity")), noKey2: true},
			want:   []string{"secretbox:key-1", "identity"}, mount: true, rewritten: "secretbox:key-1;secrets",
		},
		"KeyOfAnotherTeam": {
			reason: "A key is read from the XR's own namespace only: a Secret of that name in another team's namespace is no key, and nothing changes.",
			spec:   spec("key-2", "key-1"),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity")), elsewhere: true},
			want:   []string{"secretbox:key-1", "identity"}, mount: true, rewritten: "secretbox:key-1;secrets",
		},
		"SpecRemovedWhileEncrypted": {
			reason: "Removing spec.encryption while objects are encrypted would make them unreadable: refused, with how to decrypt.",
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity"))},
			err:    "spec.encryption: Forbidden: kcp's etcd may hold objects encrypted with secretbox:key-1",
		},
		"Decrypting": {
			reason: "keys: [] rotates back to identity the same way, the keys read from the configuration until nothing needs them.",
			spec:   spec(),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity"))},
			want:   []string{"identity", "secretbox:key-1"}, phase: v1alpha1.EncryptionSwitchingWriter, mount: true, rewritten: "secretbox:key-1;secrets",
		},
		"DecryptedAndRewritten": {
			reason: "Once identity has rewritten everything, the keys go.",
			spec:   spec(),
			world:  world{config: ptr(cfg("identity", "key-1")), rewritten: "identity;secrets", running: running(cfg("identity", "key-1"))},
			want:   []string{"identity"}, phase: v1alpha1.EncryptionRotated, mount: true, rewritten: "identity;secrets",
		},
		"Steady": {
			reason: "A rotated configuration is composed again unchanged: nothing rolls, no Job.",
			spec:   spec("key-1"),
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity"))},
			want:   []string{"secretbox:key-1", "identity"}, phase: v1alpha1.EncryptionRotated, mount: true, rewritten: "secretbox:key-1;secrets",
		},
		"Decrypted": {
			reason: "Once identity wrote everything, spec.encryption may go, and the configuration with it.",
			world:  world{config: ptr(cfg("identity")), rewritten: "identity;secrets", running: running(cfg("identity"))},
		},
		"ResourcesChangedWhileEncrypted": {
			reason: "A replica on the old list could not read what another encrypts under the new one: refused.",
			spec:   &v1alpha1.Encryption{Keys: spec("key-1").Keys, Resources: []string{"secrets", "configmaps"}},
			world:  world{config: ptr(cfg("key-1", "identity")), rewritten: "secretbox:key-1;secrets", running: running(cfg("key-1", "identity"))},
			err:    "spec.encryption.resources: Invalid value",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := builder.New("root", "kcp", tc.world.build().State())
			s := Server{Name: "root", Spec: tc.spec, Field: field.NewPath("spec", "encryption"), Deployment: deploymentKey,
				Rewrite: encryption.Rewrite{Namespace: "kcp", Server: "https://root-kcp.kcp.svc.cluster.local:6443"}}
			out, err := Compose(b, s)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s\nCompose(): error %v, want one containing %q", tc.reason, err, tc.err)
				}
				if len(b.Set.Objects()) != 0 {
					t.Errorf("%s\nCompose() refused but composed %v", tc.reason, b.Set.Names())
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nCompose(): %v", tc.reason, err)
			}
			var got []string
			var rewritten string
			if o, ok := b.Set.Get(secretKey); ok {
				u := o.Resource
				var data map[string][]byte
				if o.Kept != nil {
					data = map[string][]byte{}
					enc, _ := o.Kept.Object["data"].(map[string]any)
					raw, _ := base64.StdEncoding.DecodeString(enc[ConfigKey].(string))
					data[ConfigKey] = raw
					rewritten = o.Kept.GetAnnotations()[names.AnnotationEncryptionRewritten]
				} else {
					rewritten = u.(*corev1.Secret).Annotations[names.AnnotationEncryptionRewritten]
					data = secretData(u)
				}
				c, perr := encryption.Parse(data[ConfigKey])
				if perr != nil {
					t.Fatalf("composed configuration does not parse: %v", perr)
				}
				got = c.IDs()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nCompose(): configuration keys -want, +got:\n%s", tc.reason, diff)
			}
			if rewritten != tc.rewritten {
				t.Errorf("%s\nCompose(): rewritten annotation %q, want %q", tc.reason, rewritten, tc.rewritten)
			}
			var phase v1alpha1.EncryptionPhase
			if out.Status != nil {
				phase = out.Status.Phase
			}
			if phase != tc.phase {
				t.Errorf("%s\nCompose(): phase %q, want %q", tc.reason, phase, tc.phase)
			}
			job := false
			for _, n := range b.Set.Names() {
				job = job || strings.HasPrefix(string(n), "job-")
			}
			if job != tc.job {
				t.Errorf("%s\nCompose(): rewrite Job composed %v, want %v", tc.reason, job, tc.job)
			}
			if out.Mount != tc.mount || (out.Blocker != "") != tc.blocker {
				t.Errorf("%s\nCompose(): mount %v blocker %q, want mount %v blocker %v", tc.reason, out.Mount, out.Blocker, tc.mount, tc.blocker)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// secretData is the data of a composed Secret.
func secretData(o runtime.Object) map[string][]byte {
	return o.(*corev1.Secret).Data
}

func TestRewriteImages(t *testing.T) {
	cases := map[string]struct {
		reason         string
		images         *v1alpha1.EncryptionRewriteImages
		kubectl, shell string
	}{
		"Defaults": {
			reason:  "Kubernetes' kubectl image and busybox, pinned.",
			kubectl: "registry.k8s.io/kubectl:v1.35.3", shell: "docker.io/library/busybox:1.37.0",
		},
		"Mirror": {
			reason:  "A cluster that pulls from a mirror names both.",
			images:  &v1alpha1.EncryptionRewriteImages{Kubectl: "mirror.example.com/kubectl:v1.35.3", Shell: "mirror.example.com/busybox:1.37.0"},
			kubectl: "mirror.example.com/kubectl:v1.35.3", shell: "mirror.example.com/busybox:1.37.0",
		},
		"OneOfThem": {
			reason:  "An image left out keeps its default.",
			images:  &v1alpha1.EncryptionRewriteImages{Shell: "mirror.example.com/busybox:1.37.0"},
			kubectl: "registry.k8s.io/kubectl:v1.35.3", shell: "mirror.example.com/busybox:1.37.0",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := &v1alpha1.CommonShardSpec{Encryption: &v1alpha1.Encryption{Keys: []v1alpha1.EncryptionKey{{Name: "key-1"}}, RewriteImages: tc.images}}
			srv := ForKCP(kcpserver.Server{Name: "root", Namespace: "kcp", Root: names.RootShard("root"), IsRoot: true, Spec: spec}, "deployment-kcp")
			got := []string{srv.Rewrite.KubectlImage, srv.Rewrite.ShellImage}
			if diff := cmp.Diff([]string{tc.kubectl, tc.shell}, got); diff != "" {
				t.Errorf("%s\nrewrite Job images: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
