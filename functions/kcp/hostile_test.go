package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// hostileBase is a tenant's running installation, before the hostile edit.
const hostileBase = `{"external": {"hostname": "kcp.team-a.example.com"}, "certificates": {"issuerRef": {"name": "team-ca", "kind": "Issuer"}}`

// hostileXR is the tenant's installation with spec fields added to hostileBase.
func hostileXR(spec string) string {
	return `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "metadata": {"name": "dev", "namespace": "team-a", "uid": "dev-uid", "creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec": ` + hostileBase + spec + `}}`
}

// TestHostileEditsKeepWhatRuns drives, through RunFunction with the real table of kinds, the
// edits a hostile tenant makes to a running installation: each is refused with a Fatal result
// naming the installation's field, and desires nothing, so Crossplane applies nothing new and
// deletes nothing of what the installation composed.
func TestHostileEditsKeepWhatRuns(t *testing.T) {
	running, err := fnrequest.ConvergedAnswered(func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }, hostileXR(""))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(running.GetObserved().GetResources()); n == 0 {
		t.Fatal("the installation composed nothing before the edit")
	}
	cases := map[string]struct {
		reason string
		spec   string
		want   []string // substrings of the Fatal result
	}{
		// spec.<component>.extra.volumes (narrowed by issue 38 to the types Pod Security
		// "restricted" admits). Who sets it: whoever writes the KcpInstallation, a team
		// with edit in its namespace, or the platform through a claim. Largest: 16
		// volumes per component, each a corev1 volume source of those types. What it costs
		// the shared objects: nothing, no Tenant or shared RootShard reads a team's
		// installation; only the installation's own workloads mount them, in the team's
		// namespace, where every Secret, ConfigMap and claim a volume can name lives. It
		// cannot widen a certificate or an identity (volumes mount files, the certificates
		// are composed from spec.certificates), and the platform's policy does not decide
		// it: Pod Security "restricted" and the schema do.
		"VolumeShadowsTheCAMount": {
			reason: "A volume of an admitted type named like a generated one would replace the CA the root shard trusts with the team's file. Refused before anything is composed; the message names the RootShard's field the volume becomes, not the installation's (left as it is).",
			spec:   `, "rootShard": {"extra": {"volumes": [{"name": "kcp-ca", "secret": {"secretName": "team-ca"}}]}}`,
			want:   []string{`nothing was changed`, `the RootShard dev this composes: spec.extraVolumes[0].name: Duplicate value: "kcp-ca"`},
		},
		"HostPathOnTheRootShard": {
			reason: "A hostPath volume reaches the node's files, and restricted refuses the pod naming no field. An installation's schema does not offer it: the API server (or, here, decoding) drops it, and the volume left without a type is refused, not made an emptyDir.",
			spec:   `, "rootShard": {"extra": {"volumes": [{"name": "node", "hostPath": {"path": "/"}}], "volumeMounts": [{"name": "node", "mountPath": "/host"}]}}`,
			want:   []string{`spec.rootShard.extra.volumes[0]: Required value: volume "node" sets no type an installation may mount`},
		},
		"NFSShareOnAFrontProxy": {
			reason: "An NFS volume mounts any share the node reaches, another team's included.",
			spec:   `, "frontProxies": [{"name": "public", "extra": {"volumes": [{"name": "share", "nfs": {"server": "10.0.0.9", "path": "/exports/team-b"}}]}}]`,
			want:   []string{`spec.frontProxies[0].extra.volumes[0]: Required value: volume "share" sets no type`},
		},
		// Kubernetes v1.37's volume fields (k8s.io/api v0.37): file owners, emptyDir.mode and
		// bindMountOptions in spec.<component>.extra. Who sets them: whoever writes the
		// KcpInstallation. Largest: any int64 owner, any int32 mode, 16 options. They reach the
		// component's own files only, widen no certificate or identity, cost nothing shared, and
		// the platform's policy does not decide them (check.VolumeOwners, called by
		// check.ExtraVolumes for every kind; TestVolumeOwners).
		"BindMountWidenedAndNegativeOwner": {
			reason: "An option that would widen a mount, and an owner the API server refuses on the Deployment naming no XR field, are refused before anything is composed, naming the RootShard's field the volume becomes (as for a volume's name).",
			spec:   `, "rootShard": {"extra": {"volumes": [{"name": "cfg", "configMap": {"name": "cfg", "defaultUser": -1}}], "volumeMounts": [{"name": "cfg", "mountPath": "/etc/cfg", "bindMountOptions": ["suid"]}]}}`,
			want: []string{
				`nothing was changed`,
				`the RootShard dev this composes: spec.extraVolumes[0].configMap.defaultUser: Invalid value: -1`,
				`spec.extraVolumeMounts[0].bindMountOptions[0]: Unsupported value: "suid"`,
			},
		},
		"RootShardOntoAnotherEtcd": {
			reason: "A second --etcd-servers, last, would silently move the root shard onto another etcd.",
			spec:   `, "rootShard": {"extra": {"args": ["--feature-gates=WorkspaceMounts=true", "--etcd-servers=https://etcd.kube-system:2379"]}}`,
			want:   []string{`spec.rootShard.extra.args[1]: Forbidden: --etcd-servers is generated for this component`},
		},
		"ShardTrustsAnotherClientCA": {
			reason: "--client-ca-file decides which client certificates the shard trusts.",
			spec:   `, "shards": [{"name": "alpha", "extra": {"args": ["--client_ca_file=/etc/corp/ca.crt"]}}]`,
			want:   []string{`spec.shards[0].extra.args[0]: Forbidden: --client-ca-file is generated`},
		},
		"FrontProxyServesAnotherCertificate": {
			reason: "--tls-cert-file and --requestheader-* decide what the front-proxy serves and whom it believes.",
			spec:   `, "frontProxies": [{"name": "public", "extra": {"args": ["--tls-cert-file", "/mnt/x/tls.crt", "--requestheader-allowed-names="]}}]`,
			want: []string{
				`spec.frontProxies[0].extra.args[0]: Forbidden: --tls-cert-file is generated`,
				`spec.frontProxies[0].extra.args[2]: Forbidden: --requestheader-allowed-names is generated`,
			},
		},
		"OIDCOfItsOwnOnTheRootShard": {
			reason: "An OIDC issuer is set through spec.auth, where it reaches every shard alike; the flag is the package's even when spec.auth is unset.",
			spec:   `, "rootShard": {"extra": {"args": ["--oidc-issuer-url=https://evil.example.com"]}}`,
			want:   []string{`spec.rootShard.extra.args[0]: Forbidden: --oidc-issuer-url is generated`},
		},
		// spec.encryption (issue 42). Who sets it: whoever writes the KcpInstallation. Largest:
		// 4 keys, 16 resources. It reads key Secrets by name from the installation's own
		// namespace only (the schema has no namespace field), and widens no certificate or
		// identity; the platform's policy does not decide it.
		"EncryptionConfigOfItsOwn": {
			reason: "Beside spec.encryption, a --encryption-provider-config of the team's would replace the configuration the rotation composes and observes.",
			spec:   `, "encryption": {"keys": [{"name": "key-1", "secretRef": {"name": "team-key", "key": "key"}}]}, "rootShard": {"extra": {"args": ["--encryption-provider-config=/mnt/team/config.yaml"]}}`,
			want:   []string{`nothing was changed`, `the RootShard dev this composes: spec.extraArgs[0]: Forbidden: --encryption-provider-config: spec.encryption composes`},
		},
		"EncryptionKeyWithoutASecret": {
			reason: "A key must name the Secret it is read from; a nameless reference would read nothing and encrypt nothing.",
			spec:   `, "encryption": {"keys": [{"name": "key-1", "secretRef": {"name": "", "key": "key"}}]}`,
			want:   []string{`nothing was changed`, `spec.encryption.keys[0].secretRef.name: Required value`},
		},
		// spec.encryption.rewriteImages: the rewrite Job's images. Who sets it: whoever writes
		// the KcpInstallation. Largest: two references of 512 characters. The Job runs in the
		// team's namespace with the shard's own client certificate, whose Secret the team can
		// read anyway, under Pod Security restricted: an image of the team's choosing gains
		// nothing the team lacks. Checked as a reference so that a line break or a space is
		// refused naming the field, not found later in a pull that fails.
		"RewriteImageWithALineBreak": {
			reason: "A line break in an image reference would reach the Job's pod spec and the logs; refused where the team wrote it.",
			spec:   `, "encryption": {"keys": [{"name": "key-1", "secretRef": {"name": "team-key", "key": "key"}}], "rewriteImages": {"kubectl": "mirror.team-a.example.com/kubectl:v1.35.3\nimage: evil"}}`,
			want:   []string{`nothing was changed`, `spec.encryption.rewriteImages.kubectl: Invalid value`},
		},
		"CacheServerPrefix": {
			reason: "The cache server's --etcd-prefix is the installation's, beside the shards' keys.",
			spec:   `, "cacheServer": {"extra": {"args": ["--etcd-prefix=/"]}}`,
			want:   []string{`spec.cacheServer.extra.args[0]: Forbidden: --etcd-prefix is generated`},
		},
		"EtcdPrefixWithALineBreak": {
			reason: "A line break in the external etcd's prefix becomes the root shard's --etcd-prefix and the shards' and cache's prefixes.",
			spec:   `, "etcd": {"external": {"endpoints": ["https://etcd.team-a.svc:2379"], "prefix": "/kcp\n--etcd-servers=x"}}`,
			want:   []string{`spec.etcd.external.prefix: Invalid value: "/kcp\n--etcd-servers=x": must be a key path`},
		},
		"ShardPrefixWithAControlCharacter": {
			reason: "A shard's own etcd prefix is checked where the tenant wrote it.",
			spec:   `, "shards": [{"name": "alpha", "etcd": {"endpoints": ["https://etcd.team-a.svc:2379"], "prefix": "/alpha\u0007"}}]`,
			want:   []string{`spec.shards[0].etcd.prefix: Invalid value`},
		},
		"CachePrefixTheWholeKeyspace": {
			reason: "The cache server's prefix / would be the whole keyspace of its etcd.",
			spec:   `, "cacheServer": {"etcd": {"endpoints": ["https://etcd.team-a.svc:2379"], "prefix": "/"}}`,
			want:   []string{`spec.cacheServer.etcd.prefix: Invalid value: "/"`},
		},
		"AThousandRootShards": {
			reason: "Replicas are bounded: the installation shares the platform's nodes.",
			spec:   `, "rootShard": {"replicas": 1000}, "frontProxies": [{"name": "public", "replicas": 2147483647}]`,
			want:   []string{`spec.rootShard.replicas: Invalid value: 1000: must be between 0 and 10`, `spec.frontProxies[0].replicas: Invalid value: 2147483647`},
		},
		// spec.objectLimit (issue 40). Who sets it: whoever writes the KcpInstallation, a
		// team with edit in its namespace, or the platform through a claim. Largest: total up
		// to 2^63-1 (no limit at all, kcp's own default), scanInterval a duration of up to
		// 1024 characters; the function admits no interval under 10s. What it costs the shared
		// objects: no Tenant or shared RootShard reads it; it becomes two flags of the team's
		// own root shard and shards. What it costs a shared etcd: each count reads all of the
		// shard's keys, hence the 10s floor. It cannot widen a certificate or an identity
		// (it sets no certificate field, no user, no group), and the platform's policy does
		// not decide it: the schema, the 10s floor and the kcp version do.
		"ObjectCountScanHammersSharedEtcd": {
			reason: "A 1ms interval would read every key of the team's shards a thousand times a second, from an etcd other teams' installations may share.",
			spec:   `, "image": {"tag": "v0.33.0"}, "objectLimit": {"total": 1000, "scanInterval": "1ms"}`,
			want:   []string{`spec.objectLimit.scanInterval: Invalid value: "1ms": must be at least 10s`},
		},
		"ObjectLimitOnAKcpWithoutIt": {
			reason: "kcp v0.32.3 exits on the unknown flag: the running root shard would be rolled into a crash loop.",
			spec:   `, "objectLimit": {"total": 1000}`,
			want:   []string{`spec.objectLimit: Forbidden: kcp v0.32.3 has no --logical-cluster-total-object-limit`},
		},
		"NegativeObjectLimit": {
			reason: "A total below 1 is no limit to kcp (0) or nonsense; the absence of the field says no limit.",
			spec:   `, "image": {"tag": "v0.33.0"}, "objectLimit": {"total": -5}`,
			want:   []string{`spec.objectLimit.total: Invalid value: -5: must be at least 1`},
		},
		// spec.homeWorkspaces, spec.batteries, spec.profiling (and each component's) and
		// spec.audit.log (issue 42). Who sets them: whoever writes the KcpInstallation, a team
		// with edit in its namespace, or the platform through a claim. Largest: 32 creator
		// groups of 253 characters, two batteries, a port, an audit log of 1000 files of
		// 10 GiB on a claim of the namespace. What they cost the shared objects: nothing, no
		// Tenant or shared RootShard reads them; they become flags and one volume of the
		// team's own kcp. Profiling and audit logs spend the platform's CPU and disks and
		// expose kcp's memory to whoever may port-forward, so the platform's policy decides
		// them (data.features), and the flags they set can no longer come through extra.args.
		// Creator groups decide who gets a workspace inside the team's own kcp only; they
		// cannot widen a certificate or an identity, and are refused where kcp would read them
		// as other groups.
		"ProfilerOnThePodNetwork": {
			reason: "A profiler on 0.0.0.0 would serve kcp's heap, credentials included, to every pod of every team: the flag is the package's now, refused in extra.args.",
			spec:   `, "rootShard": {"extra": {"args": ["--profiler-address=0.0.0.0:6060"]}}`,
			want:   []string{`spec.rootShard.extra.args[0]: Forbidden: --profiler-address is generated for this component`},
		},
		"ProfilingWithoutThePolicy": {
			reason: "Profiling through its field needs the platform's allowance.",
			spec:   `, "frontProxies": [{"name": "public", "profiling": {"enabled": true}}]`,
			want:   []string{`spec.frontProxies[0].profiling: Forbidden: profiling is not allowed for installations in namespace team-a by the platform's policy`},
		},
		"AuditLogWithoutThePolicy": {
			reason: "Audit files fill the platform's disks: refused without the platform's allowance.",
			spec:   `, "audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {"maxBackups": 1000, "maxSize": 10240}}`,
			want:   []string{`spec.audit.log: Forbidden: an audit log is not allowed for installations in namespace team-a`},
		},
		"AuditFileThroughExtraArgs": {
			reason: "Nor can extra.args write the audit log around the policy.",
			spec:   `, "shards": [{"name": "alpha", "extra": {"args": ["--audit-log-path=/tmp/audit.log"]}}]`,
			want:   []string{`spec.shards[0].extra.args[0]: Forbidden: --audit-log-path is generated for this component`},
		},
		"AdminBatteryPastTheSchema": {
			reason: "A battery the schema does not offer, sent by a client that skips it, would make kcp write an admin kubeconfig into its read-only filesystem: refused before the running root shard is rolled.",
			spec:   `, "batteries": ["admin"]`,
			want:   []string{`spec.batteries[0]: Unsupported value: "admin"`},
		},
		"CreatorGroupSmuggledThroughAComma": {
			reason: "kcp splits the groups at commas; the group is refused where the tenant wrote it.",
			spec:   `, "homeWorkspaces": {"enabled": true, "creatorGroups": ["developers,system:masters"]}`,
			want:   []string{`spec.homeWorkspaces.creatorGroups[0]: Invalid value: "developers,system:masters": must not contain a comma`},
		},
		// The embedded cache's keyspace (issue 40): no new field. Who sets what it reads: the
		// team (spec.etcd.external.prefix, spec.cacheServer, spec.image.tag), each bounded by
		// the schema and check.EtcdPrefix. The hostile case is a team corrupting its own
		// root shard on upgrade, or, on kcp v0.32.3, another team's cache on a shared etcd;
		// the refusal keeps what runs.
		"EmbeddedCacheAmongTheRootShardsKeys": {
			reason: "From kcp v0.33 the root shard's embedded cache would write among its own keys under the external etcd's prefix.",
			spec:   `, "image": {"tag": "v0.33.0"}, "etcd": {"external": {"endpoints": ["https://etcd.team-a.svc:2379"], "prefix": "/team-a"}}`,
			want:   []string{`spec.etcd.external.prefix: Forbidden: kcp v0.33.0's embedded cache stores under the root shard's own --etcd-prefix=/team-a`},
		},
		"EmbeddedCacheInAnotherTeamsCache": {
			reason: "On kcp v0.32.3 the embedded cache of a root shard moved onto an etcd other teams' prefixes share would write under /cache, where their kcps keep their caches.",
			spec:   `, "etcd": {"external": {"endpoints": ["https://etcd.shared.svc:2379"], "prefix": "/team-a"}}`,
			want:   []string{`nothing was changed`, `spec.etcd.external.prefix: Forbidden: kcp v0.32.3's embedded cache ignores the root shard's --etcd-prefix=/team-a and keeps its data under /cache, which every other kcp's cache on this etcd shares`},
		},
		"VirtualWorkspaceKubeconfig": {
			reason: "A virtual workspace server's --kubeconfig is the identity it acts with.",
			spec:   `, "rootShard": {"virtualWorkspace": {"external": {"hostname": "vw.team-a.example.com"}, "extra": {"args": ["--kubeconfig=/mnt/other/kubeconfig"]}}}`,
			want:   []string{`spec.rootShard.virtualWorkspace.extra.args[0]: Forbidden: --kubeconfig is generated`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := proto.Clone(running).(*fnv1.RunFunctionRequest)
			req.Observed.Composite = &fnv1.Resource{Resource: fnrequest.StructJSON(hostileXR(tc.spec))}
			observedBefore := proto.Clone(req.GetObserved()).(*fnv1.State)
			rsp := run(t, req)
			checkRefused(t, tc.reason, req, observedBefore, rsp, tc.want)
		})
	}
}

// checkRefused holds the response rsp to a hostile edit req of the installation team-a/dev: a
// Fatal result naming every want, nothing desired (so Crossplane applies and deletes
// nothing), and the observed state as it was before (observedBefore; nil skips it).
func checkRefused(t *testing.T, reason string, req *fnv1.RunFunctionRequest, observedBefore *fnv1.State, rsp *fnv1.RunFunctionResponse, want []string) {
	t.Helper()
	checkRefusedXR(t, "KcpInstallation team-a/dev", reason, req, observedBefore, rsp, want)
}

// checkRefusedXR is checkRefused for the XR xr ("<Kind> <namespace>/<name>").
func checkRefusedXR(t *testing.T, xr, reason string, req *fnv1.RunFunctionRequest, observedBefore *fnv1.State, rsp *fnv1.RunFunctionResponse, want []string) {
	t.Helper()
	var fatal string
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			fatal = r.GetMessage()
		}
	}
	if !strings.HasPrefix(fatal, "invalid "+xr+", nothing was changed: ") {
		t.Fatalf("%s\nwant a Fatal result refusing the edit, got results %v", reason, rsp.GetResults())
	}
	for _, w := range want {
		if !strings.Contains(fatal, w) {
			t.Errorf("%s\nfatal result:\n got: %q\nwant: ...%q...", reason, fatal, w)
		}
	}
	if n := len(rsp.GetDesired().GetResources()); n > 0 {
		t.Errorf("%s\nrefused, yet %d resources desired: Crossplane would apply them", reason, n)
	}
	if observedBefore != nil && !proto.Equal(observedBefore, req.GetObserved()) {
		t.Errorf("%s\nthe observed state changed while refusing", reason)
	}
}

// TestPlatformExtrasWarn: the platform's per-kind XRs keep kcp-operator's freedom (any volume
// type, a flag given twice takes the last value), and are warned.
func TestPlatformExtrasWarn(t *testing.T) {
	xr := withSpec(`{"external": {"hostname": "api.example.com", "port": 6443}, "cache": {},
		"certificates": {"issuerRef": {"name": "x"}}, "etcd": {"endpoints": ["http://etcd:2379"]},
		"extraArgs": ["--feature-gates=X=true", "--etcd-servers=http://other:2379"],
		"extraVolumes": [{"name": "host", "hostPath": {"path": "/var/lib/kcp"}}]}`)
	rsp := run(t, newRequest(xr))
	var msgs []string
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("a platform's RootShard with extras is composed, not refused: %s", r.GetMessage())
		}
		msgs = append(msgs, r.GetMessage())
	}
	want := []string{
		"spec.extraArgs[1] sets --etcd-servers, which this XR generates: the last value wins, so it replaces the generated one",
		`spec.extraVolumes[0].hostPath is a volume type Pod Security "restricted" does not admit: the pods are refused in a namespace that enforces it`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("warnings: -want, +got:\n%s", diff)
	}
	if len(rsp.GetDesired().GetResources()) == 0 {
		t.Errorf("warnings must not stop composition")
	}
}

// TestInstallationChildrenValidated: every child an installation composes reaches its own
// kind's validation as the typed XR that kind decodes. A virtual workspace server used to
// reach it untyped, and the real table refused every installation with one.
func TestInstallationChildrenValidated(t *testing.T) {
	xr := hostileXR(`, "rootShard": {"virtualWorkspace": {"external": {"hostname": "vw.team-a.example.com"}}}, "shards": [{"name": "alpha", "virtualWorkspace": {"external": {"hostname": "vw-alpha.team-a.example.com"}}}]`)
	rsp := run(t, fnrequest.New(xr))
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("an installation with virtual workspace servers is refused: %s", r.GetMessage())
		}
	}
}
