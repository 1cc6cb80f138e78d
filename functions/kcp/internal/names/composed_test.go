package names

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goldenNames is test/render's record of every object each example composes, one
// "<XR kind>/<XR name> <composition resource name> <kind>/<name>" per line.
const goldenNames = "../../../../test/render/testdata/names"

// TestComposedListsEveryGoldenObject checks that the Composed lists miss no object any
// example composes: a name missing from them is a name the installation's collision check
// cannot see.
func TestComposedListsEveryGoldenObject(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenNames, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden names in %s: %v", goldenNames, err)
	}
	checked := map[string]int{}
	for _, f := range files {
		lines := readGoldenNames(t, f)
		var roots []RootShard
		var shards []string
		for _, l := range lines {
			if kind, name := l.xrKind(), l.xrName(); kind == "RootShard" && !slices.Contains(roots, RootShard(name)) {
				roots = append(roots, RootShard(name))
			}
			if kind, name := l.xrKind(), l.xrName(); kind == "Shard" && !slices.Contains(shards, name) {
				shards = append(shards, name)
			}
		}
		// A Kubeconfig's kubeconfig Secret is named by its spec: each Kubeconfig must write
		// exactly one Secret besides its certificate's.
		kubeconfigSecrets := map[string][]string{}
		for _, l := range lines {
			kind, name := l.xrKind(), l.xrName()
			var composed []string
			switch kind {
			case "RootShard":
				composed = RootShard(name).Composed(shards...)
			case "Shard":
				composed = Shard(name).Composed()
			case "CacheServer":
				composed = CacheServer(name).Composed()
			case "VirtualWorkspace":
				composed = VirtualWorkspace(name).Composed()
			case "FrontProxy":
				for _, r := range roots {
					composed = append(composed, FrontProxy(name).Composed(r)...)
				}
			case "Kubeconfig":
				composed = Kubeconfig(name).Composed("")
				if l.obj == "TenantRequest/"+TenantRequest(kind, name) {
					// What a team's Kubeconfig of a shared installation asks of its Tenant.
					checked[kind]++
					continue
				}
				if strings.HasPrefix(l.obj, "Object/"+name+"-binding-") {
					// spec.authorization's bindings: named by a hash of kind, workspace
					// and role (Binding), which no other kind composes.
					checked[kind]++
					continue
				}
				if l.objName() != Kubeconfig(name).Certificate() {
					kubeconfigSecrets[name] = append(kubeconfigSecrets[name], l.obj)
					continue
				}
			default:
				continue // a KcpInstallation's own objects: its package checks them
			}
			if (kind == "RootShard" || kind == "Shard") && strings.HasPrefix(l.obj, "Job/"+EncryptionRewritePrefix(name)) {
				// A rewrite Job of encryption at rest: named by a digest of the key it
				// rewrites with (EncryptionRewrite), one per rotation.
				checked[kind]++
				continue
			}
			if deployment := placedDeployment(kind, name); deployment != "" && strings.HasPrefix(l.objName(), deployment+".") {
				// The Objects of a placed workload, <deployment>.<name>.<kind>: the
				// Deployment's name is the component's own, and the dot sets them apart from
				// the names listed by Composed.
				checked[kind]++
				continue
			}
			checked[kind]++
			if !slices.Contains(composed, l.objName()) {
				t.Errorf("%s: %s %s composes %s, which %s(%q).Composed() does not list", filepath.Base(f), kind, name, l.obj, kind, name)
			}
		}
		for kc, secrets := range kubeconfigSecrets {
			if len(secrets) != 1 || !strings.HasPrefix(secrets[0], "Secret/") {
				t.Errorf("%s: Kubeconfig %s composes %v besides its certificate, want its one kubeconfig Secret", filepath.Base(f), kc, secrets)
			}
		}
	}
	for _, kind := range []string{"RootShard", "Shard", "CacheServer", "VirtualWorkspace", "FrontProxy", "Kubeconfig"} {
		if checked[kind] == 0 {
			t.Errorf("no golden object of a %s: the check would hold nothing for it", kind)
		}
	}
}

// placedDeployment is the Deployment of the kinds that may run in another cluster
// (spec.placement), "" for the others.
func placedDeployment(kind, name string) string {
	switch kind {
	case "Shard":
		return Shard(name).Deployment()
	case "FrontProxy":
		return FrontProxy(name).Deployment()
	}
	return ""
}

type goldenLine struct{ xr, key, obj string }

func (l goldenLine) xrKind() string  { return strings.SplitN(l.xr, "/", 2)[0] }
func (l goldenLine) xrName() string  { return strings.SplitN(l.xr, "/", 2)[1] }
func (l goldenLine) objName() string { return strings.SplitN(l.obj, "/", 2)[1] }

func readGoldenNames(t *testing.T, path string) []goldenLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() //nolint:errcheck // Read-only.
	var out []goldenLine
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) != 3 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		out = append(out, goldenLine{xr: fields[0], key: fields[1], obj: fields[2]})
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
