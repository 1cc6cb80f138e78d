// Package rotation decides a kcp server's encryption at rest: which keys its
// EncryptionConfiguration holds, in which order, and when the rewrite Job runs, from the spec
// and from what is observed (the composed configuration, the Deployment that runs it, the
// Job). A rotation goes in the only order that never leaves a replica unable to read what
// another wrote, nor an object encrypted with a key about to be dropped:
//
//  1. AddingKey: the new key decrypts on every replica, the old one still encrypts;
//  2. SwitchingWriter: once that has rolled out, the new key encrypts;
//  3. Rewriting: once that has rolled out, a Job rewrites every encrypted object with it;
//  4. Rotated: the other keys may go; one removed from the spec before is refused.
//
// Each step waits for the previous one to be observed, never for a clock. Turning encryption
// on for a running kcp is the same rotation from identity (plain data), and keys: []
// rotates back to it.
package rotation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/encryption"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kcpserver"
)

// ConfigKey is the key of the configuration in its Secret, the file kcp reads.
const ConfigKey = kcpserver.EncryptionConfigFile

// Server is what the encryption of one kcp server needs.
type Server struct {
	// Name of the RootShard or Shard; Spec its spec.encryption, Field where that is.
	Name  string
	Spec  *v1alpha1.Encryption
	Field *field.Path
	// Deployment is the key of the server's Deployment.
	Deployment resource.Name
	Labels     map[string]string
	// Rewrite is the rewrite Job but for its name and resources.
	Rewrite encryption.Rewrite
}

// Outcome is what the server's workload gets.
type Outcome struct {
	// Mount is set when the pods mount the configuration Secret and read it.
	Mount bool
	// State is the pod template's encryption annotation: the configuration the Secret holds
	// as observed, so that pods roll only once it is there to be read.
	State string
	// Blocker names the Secret a new configuration waits for, "" for none.
	Blocker string
	Status  *v1alpha1.EncryptionStatus
}

// observedConfig is the composed configuration as it is.
type observedConfig struct {
	cfg       *encryption.Config
	rewritten string
}

// Compose composes the server's configuration Secret and rewrite Job. A field error refuses
// the XR: bad keys, a changed key, a key removed while still needed.
func Compose(b *builder.Builder, s Server) (Outcome, *field.Error) {
	secret := names.EncryptionConfig(s.Name)
	key := b.Key("secret", secret)
	obs, err := readObserved(b, key, s.Field)
	if err != nil {
		return Outcome{}, err
	}
	if s.Spec == nil {
		return withoutSpec(s, obs)
	}
	want, missing, ferr := readKeys(b, s, obs)
	if ferr != nil {
		return Outcome{}, ferr
	}
	if len(missing) > 0 {
		// Nothing can be decided without the keys: what runs stays as it is.
		b.KeepOrWait(key, true, strings.Join(missing, ", "))
		return outcome(s, obs, statusOf(obs)), nil
	}
	resources := s.Spec.ResourcesOrDefault()
	if obs.cfg == nil && len(want) == 0 {
		return Outcome{}, nil // keys: [] and nothing ever encrypted
	}
	p, ferr := plan(b, s, obs, want, resources)
	if ferr != nil {
		return Outcome{}, ferr
	}
	return outcome(s, obs, apply(b, s, key, obs, p)), nil
}

// withoutSpec handles spec.encryption unset: nothing to do unless a configuration exists,
// which may go only once nothing is encrypted any more.
func withoutSpec(s Server, obs observedConfig) (Outcome, *field.Error) {
	if obs.cfg == nil {
		return Outcome{}, nil
	}
	if obs.cfg.Writer().ID() == encryption.Identity && obs.rewritten == rewriteTarget(*obs.cfg) && len(obs.cfg.Keys) == 1 {
		return Outcome{}, nil // decrypted: the configuration and its flag go
	}
	return Outcome{}, field.Forbidden(s.Field, fmt.Sprintf(
		"kcp's etcd may hold objects encrypted with %s: removing spec.encryption would leave them unreadable. Set spec.encryption.keys to [] to decrypt them first, and remove spec.encryption once status.encryption.phase is Rotated with writer identity",
		strings.Join(encryptedWith(*obs.cfg), ", ")))
}

// readObserved parses the composed configuration Secret, if any.
func readObserved(b *builder.Builder, key resource.Name, fld *field.Path) (observedConfig, *field.Error) {
	data, ok := b.St.SecretData(key)
	if !ok {
		return observedConfig{}, nil
	}
	cfg, err := encryption.Parse(data[ConfigKey])
	if err != nil {
		u, _ := b.St.Get(key)
		return observedConfig{}, field.InternalError(fld, fmt.Errorf("the composed Secret %s no longer holds the configuration this package wrote (%w): restore it from a backup; kcp cannot read what it encrypted without its keys", u.GetName(), err))
	}
	return observedConfig{cfg: &cfg, rewritten: b.St.String(key, "metadata", "annotations", names.AnnotationEncryptionRewritten)}, nil
}

// keyLengths are the key sizes, in bytes, each provider accepts.
var keyLengths = map[v1alpha1.EncryptionProvider][]int{
	v1alpha1.EncryptionSecretbox: {32},
	v1alpha1.EncryptionAESCBC:    {16, 24, 32},
}

// readKeys reads the spec's keys from their Secrets. A key the configuration already holds
// must not have changed: kcp could no longer read what it encrypted.
func readKeys(b *builder.Builder, s Server, obs observedConfig) (keys []encryption.Key, missing []string, _ *field.Error) {
	for i, k := range s.Spec.Keys {
		fld := s.Field.Child("keys").Index(i).Child("secretRef")
		b.Inputs.Read(inputs.KindSecret, k.SecretRef.Name)
		l := b.St.Secret(k.SecretRef.Name)
		raw, ok := l.Data[k.SecretRef.Key]
		if !l.Found || !ok {
			missing = append(missing, fmt.Sprintf("key %s of Secret %s (%s)", k.SecretRef.Key, k.SecretRef.Name, fld))
			continue
		}
		provider := k.ProviderOrDefault()
		if !slices.Contains(keyLengths[provider], len(raw)) {
			return nil, nil, field.Invalid(fld, k.SecretRef.Name, fmt.Sprintf(
				"key %s of Secret %s holds %d bytes, and a %s key is %s bytes of random data: create one with `head -c 32 /dev/urandom | kubectl create secret generic <name> --from-file=%s=/dev/stdin`",
				k.SecretRef.Key, k.SecretRef.Name, len(raw), provider, joinInts(keyLengths[provider]), k.SecretRef.Key))
		}
		key := encryption.Key{Provider: string(provider), Name: k.Name, Secret: raw}
		if obs.cfg != nil {
			if was, ok := obs.cfg.Find(key.ID()); ok && string(was.Secret) != string(raw) {
				return nil, nil, field.Invalid(fld, k.SecretRef.Name, fmt.Sprintf(
					"key %s of Secret %s is not the key %s kcp encrypts with any more: what kcp encrypted with it would become unreadable. Restore the Secret's earlier content; to change keys, add a key of a new name first",
					k.SecretRef.Key, k.SecretRef.Name, key.ID()))
			}
			for _, other := range obs.cfg.Keys {
				if other.Provider != key.Provider && other.Name == key.Name {
					return nil, nil, field.Invalid(s.Field.Child("keys").Index(i).Child("provider"), k.Provider, fmt.Sprintf(
						"key %s is a %s key: a key's provider never changes. Add a key of a new name for %s", key.Name, other.Provider, provider))
				}
			}
		}
		keys = append(keys, key)
	}
	return keys, missing, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// step is one decided configuration.
type step struct {
	cfg   encryption.Config
	phase v1alpha1.EncryptionPhase
}

// plan decides the next configuration from the observed one and the keys wanted.
func plan(b *builder.Builder, s Server, obs observedConfig, want []encryption.Key, resources []string) (step, *field.Error) {
	target := encryption.IdentityKey
	if len(want) > 0 {
		target = want[0]
	}
	if obs.cfg == nil {
		if !b.St.Exists(s.Deployment) {
			// A new server: no replica runs yet, so the target encrypts from the start.
			return step{cfg: configOf(resources, target, want, nil), phase: v1alpha1.EncryptionRewriting}, nil
		}
		// A running server without encryption: identity keeps writing until every replica
		// reads the new key.
		return step{cfg: configOf(resources, encryption.IdentityKey, append([]encryption.Key{target}, want...), nil), phase: v1alpha1.EncryptionAddingKey}, nil
	}
	cur := *obs.cfg
	writer := cur.Writer()
	if err := checkResources(s, obs, resources); err != nil {
		return step{}, err
	}
	done := writer.ID() == target.ID() && obs.rewritten == rewriteTarget(cur)
	// keys: [] decrypts: the keys are read from the configuration until nothing needs them.
	// A list that leaves out a key still needed is refused instead: its Secret may be
	// deleted next, and with it what kcp cannot decrypt without it.
	if !done && len(want) > 0 {
		if err := checkKept(s, cur, want, target); err != nil {
			return step{}, err
		}
	}
	switch {
	case writer.ID() == target.ID() && done:
		// Everything is written with the target: keys no longer wanted go, with no rewrite.
		return step{cfg: configOf(resources, target, want, nil), phase: v1alpha1.EncryptionRotated}, nil
	case writer.ID() == target.ID():
		return step{cfg: configOf(resources, target, want, cur.Keys), phase: v1alpha1.EncryptionRewriting}, nil
	case hasKey(cur, target) && rolledOut(b, s.Deployment, cur):
		return step{cfg: configOf(resources, target, want, cur.Keys), phase: v1alpha1.EncryptionSwitchingWriter}, nil
	default:
		return step{cfg: configOf(resources, writer, append([]encryption.Key{target}, want...), cur.Keys), phase: v1alpha1.EncryptionAddingKey}, nil
	}
}

// configOf is writer first, then the wanted keys, then the kept ones, each once, identity
// last unless it is the writer.
func configOf(resources []string, writer encryption.Key, want, keep []encryption.Key) encryption.Config {
	cfg := encryption.Config{Resources: resources, Keys: []encryption.Key{writer}}
	seen := map[string]bool{writer.ID(): true, encryption.Identity: true}
	for _, k := range append(slices.Clone(want), keep...) {
		if !seen[k.ID()] {
			seen[k.ID()] = true
			cfg.Keys = append(cfg.Keys, k)
		}
	}
	if writer.ID() != encryption.Identity {
		cfg.Keys = append(cfg.Keys, encryption.IdentityKey)
	}
	return cfg
}

func hasKey(cfg encryption.Config, k encryption.Key) bool {
	_, ok := cfg.Find(k.ID())
	return ok
}

// checkKept refuses a spec that drops a key still needed: the writer until another one has
// rewritten everything, and every reader until then.
func checkKept(s Server, cur encryption.Config, want []encryption.Key, target encryption.Key) *field.Error {
	wanted := map[string]bool{}
	for _, k := range want {
		wanted[k.ID()] = true
	}
	var dropped []string
	for _, k := range cur.Keys {
		if k.ID() != encryption.Identity && !wanted[k.ID()] {
			dropped = append(dropped, k.ID())
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	return field.Invalid(s.Field.Child("keys"), strings.Join(dropped, ", "), fmt.Sprintf(
		"%s still decrypts objects kcp wrote before %s encrypted everything: keep it in spec.encryption.keys until status.encryption.rewritten is %s (status.encryption.phase Rotated), then remove it",
		strings.Join(dropped, ", "), target.ID(), target.ID()))
}

// checkResources refuses a change of the encrypted resources while anything may be
// encrypted: a replica still running the old list could not read what another encrypts.
// Decrypting first (keys: []) makes the change safe.
func checkResources(s Server, obs observedConfig, resources []string) *field.Error {
	cur := obs.cfg
	if slices.Equal(cur.Resources, resources) {
		return nil
	}
	if cur.Writer().ID() == encryption.Identity && obs.rewritten == rewriteTarget(*cur) {
		return nil
	}
	return field.Invalid(s.Field.Child("resources"), strings.Join(resources, ", "), fmt.Sprintf(
		"kcp encrypts %s now, and a replica reading the old list could not read what another encrypts under the new one: set spec.encryption.keys to [] and wait for status.encryption.phase Rotated with writer identity, change the resources, then add the keys back",
		strings.Join(cur.Resources, ", ")))
}

// rolledOut reports whether every replica of the Deployment runs cfg.
func rolledOut(b *builder.Builder, dep resource.Name, cfg encryption.Config) bool {
	return b.St.DeploymentAvailable(dep) &&
		b.St.String(dep, "spec", "template", "metadata", "annotations", names.AnnotationEncryption) == cfg.State()
}

// rewriteTarget is what a finished rewrite of cfg records: its writer and resources.
func rewriteTarget(cfg encryption.Config) string {
	return cfg.Writer().ID() + ";" + strings.Join(cfg.Resources, ",")
}

// encryptedWith are the keys of cfg other than identity.
func encryptedWith(cfg encryption.Config) []string {
	var out []string
	for _, k := range cfg.Keys {
		if k.ID() != encryption.Identity {
			out = append(out, k.ID())
		}
	}
	if len(out) == 0 {
		return []string{"a key no longer listed"}
	}
	return out
}

// apply composes the Secret and, while rewriting, the Job, and reports the step.
func apply(b *builder.Builder, s Server, key resource.Name, obs observedConfig, p step) *v1alpha1.EncryptionStatus {
	rewritten := obs.rewritten
	target := rewriteTarget(p.cfg)
	if p.phase == v1alpha1.EncryptionRewriting && obs.cfg != nil && obs.cfg.State() == p.cfg.State() && rolledOut(b, s.Deployment, p.cfg) {
		job := s.Rewrite
		job.Name = names.EncryptionRewrite(s.Name, target)
		job.Resources = p.cfg.Resources
		jobKey := b.Key("job", job.Name)
		succeeded := b.St.ConditionTrue(jobKey, "Complete")
		if succeeded {
			rewritten = target
		}
		if obs.rewritten != target {
			// Kept until the Secret records it: then nothing needs it any more.
			b.Set.Add(jobKey, job.Job(), builder.Readiness(succeeded))
		}
	}
	if rewritten == target && p.phase == v1alpha1.EncryptionRewriting {
		p.phase = v1alpha1.EncryptionRotated
	}
	annotations := map[string]string{}
	if rewritten != "" {
		annotations[names.AnnotationEncryptionRewritten] = rewritten
	}
	b.Set.Add(key, &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: names.EncryptionConfig(s.Name), Namespace: b.Namespace, Labels: s.Labels, Annotations: annotations},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{ConfigKey: p.cfg.Marshal()},
	}, builder.Readiness(b.St.Exists(key)))
	return &v1alpha1.EncryptionStatus{Phase: p.phase, Writer: p.cfg.Writer().ID(), Readers: p.cfg.IDs()[1:], Rewritten: keyOf(rewritten)}
}

// outcome mounts the configuration once it exists, with the state observed in it; until then
// a server that wants encryption waits for it rather than start without.
func outcome(s Server, obs observedConfig, st *v1alpha1.EncryptionStatus) Outcome {
	if obs.cfg == nil {
		return Outcome{Blocker: "Secret " + names.EncryptionConfig(s.Name) + " (" + s.Field.String() + ")", Status: st}
	}
	return Outcome{Mount: true, State: obs.cfg.State(), Status: st}
}

// statusOf reports what is observed, while nothing can be decided.
func statusOf(obs observedConfig) *v1alpha1.EncryptionStatus {
	if obs.cfg == nil {
		return nil
	}
	return &v1alpha1.EncryptionStatus{Writer: obs.cfg.Writer().ID(), Readers: obs.cfg.IDs()[1:], Rewritten: keyOf(obs.rewritten)}
}

// keyOf is the key of a rewrite target.
func keyOf(target string) string { return strings.Split(target, ";")[0] }

// ForKCP is the encryption of a root shard's or shard's kcp server: its spec.encryption, its
// Deployment, and a rewrite Job that reaches it through its Service with its own
// system:masters client certificate (<name>-client).
func ForKCP(srv kcpserver.Server, deployment resource.Name) Server {
	owners := map[string]string{names.LabelOwnerRootShard: string(srv.Root)}
	if !srv.IsRoot {
		owners[names.LabelOwnerShard] = srv.Name
	}
	kubectl, shell := encryption.DefaultKubectlImage, encryption.DefaultShellImage
	if e := srv.Spec.Encryption; e != nil && e.RewriteImages != nil {
		kubectl = cmp.Or(e.RewriteImages.Kubectl, kubectl)
		shell = cmp.Or(e.RewriteImages.Shell, shell)
	}
	return Server{
		Name:       srv.Name,
		Spec:       srv.Spec.Encryption,
		Field:      field.NewPath("spec", "encryption"),
		Deployment: deployment,
		Labels:     owners,
		Rewrite: encryption.Rewrite{
			Namespace:      srv.Namespace,
			Labels:         names.Labels(srv.Name, names.ComponentEncryptionRewrite),
			Server:         names.ServiceURL(srv.DeploymentName(), srv.Namespace, srv.Spec.ClusterDomain),
			ClientSecret:   srv.Cert("client"),
			ServerCASecret: srv.Root.CA(names.CAServer),
			KubectlImage:   kubectl,
			ShellImage:     shell,
			PullSecrets:    srv.Image().PullSecrets,
		},
	}
}

// Apply gives the server's workload the mounted configuration and what it waits for.
func (o Outcome) Apply(srv *kcpserver.Server, blockers []string) []string {
	if o.Mount {
		srv.EncryptionConfig = names.EncryptionConfig(srv.Name)
	}
	if o.Blocker != "" {
		blockers = append(blockers, o.Blocker)
	}
	return blockers
}

// Annotate adds the state's pod annotation.
func (o Outcome) Annotate(podAnnotations map[string]string) map[string]string {
	if !o.Mount {
		return podAnnotations
	}
	out := make(map[string]string, len(podAnnotations)+1)
	for k, v := range podAnnotations {
		out[k] = v
	}
	out[names.AnnotationEncryption] = o.State
	return out
}
