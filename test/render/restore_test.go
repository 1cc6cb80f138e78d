package render

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// restoreJobs are the restore Jobs docs/day-two.md tells users to apply, by name.
func restoreJobs(t *testing.T) []batchv1.Job {
	t.Helper()
	var jobs []batchv1.Job
	for _, block := range yamlBlocks(t, filepath.Join(repoRoot, "docs", "day-two.md")) {
		for _, doc := range strings.Split(block, "\n---\n") {
			if !strings.Contains(doc, "kind: Job") {
				continue
			}
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
				t.Fatalf("docs/day-two.md: %v in\n%s", err, doc)
			}
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// goldenObject reads one composed object of a converged golden render by kind and name.
func goldenObject(t *testing.T, example, kind, name string, into any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", example, "converged.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil || meta.Kind != kind || meta.Metadata.Name != name {
			continue
		}
		if err := yaml.Unmarshal([]byte(doc), into); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("golden render of examples/%s has no %s %s", example, kind, name)
}

// flags maps each --flag=value of args to its value.
func flags(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
			out[k] = v
		}
	}
	return out
}

// TestDocsRestoreMatchesStatefulSet holds the restore Jobs of docs/day-two.md to what
// examples/production composes for cluster prod-etcd: one Job per member, each restoring
// into the claim the StatefulSet gives that member, at the data directory etcd reads, with
// the member name, initial cluster, token and peer URL the StatefulSet starts it with, from
// the directory and claim the backup CronJob writes to, with the cluster's etcd image. A
// restore with other values would start a cluster the StatefulSet's members do not match.
func TestDocsRestoreMatchesStatefulSet(t *testing.T) {
	var sts appsv1.StatefulSet
	goldenObject(t, "production", "StatefulSet", "prod-etcd", &sts)
	var cj batchv1.CronJob
	goldenObject(t, "production", "CronJob", "prod-etcd-backup", &cj)

	etcd := sts.Spec.Template.Spec.Containers[0]
	want := flags(etcd.Args)
	var dataMount string
	for _, m := range etcd.VolumeMounts {
		if m.Name == sts.Spec.VolumeClaimTemplates[0].Name {
			dataMount = m.MountPath
		}
	}
	cjPod := cj.Spec.JobTemplate.Spec.Template.Spec
	snapshot := cjPod.InitContainers[1].Command
	backupDir := path.Dir(snapshot[len(snapshot)-1])
	var backupClaim string
	for _, v := range cjPod.Volumes {
		if v.PersistentVolumeClaim != nil {
			backupClaim = v.PersistentVolumeClaim.ClaimName
		}
	}

	jobs := restoreJobs(t)
	if len(jobs) != int(*sts.Spec.Replicas) {
		t.Fatalf("docs/day-two.md restores %d members, StatefulSet prod-etcd has %d", len(jobs), *sts.Spec.Replicas)
	}
	for _, j := range jobs {
		t.Run(j.Name, func(t *testing.T) {
			pod := j.Spec.Template.Spec
			c := pod.Containers[0]
			got := flags(c.Command)
			member := got["--name"]
			if !strings.HasPrefix(member, sts.Name+"-") {
				t.Fatalf("--name=%s is no member of %s", member, sts.Name)
			}
			expand := func(s string) string { return strings.ReplaceAll(s, "$(POD_NAME)", member) }
			for _, f := range []string{"--data-dir", "--initial-cluster", "--initial-cluster-token", "--initial-advertise-peer-urls"} {
				if got[f] != expand(want[f]) {
					t.Errorf("%s=%s, the StatefulSet starts member %s with %s=%s", f, got[f], member, f, expand(want[f]))
				}
			}
			if want["--name"] != "$(POD_NAME)" {
				t.Errorf("the StatefulSet names its members %s, not by pod name: the Jobs' --name is wrong", want["--name"])
			}
			if len(c.Command) < 4 || strings.Join(c.Command[:3], " ") != "/usr/local/bin/etcdutl snapshot restore" || path.Dir(c.Command[3]) != backupDir {
				t.Errorf("command %v, want /usr/local/bin/etcdutl snapshot restore <a snapshot in %s>", c.Command, backupDir)
			}
			if c.Image != etcd.Image {
				t.Errorf("image %s, the cluster runs %s", c.Image, etcd.Image)
			}
			claims := map[string]string{}
			for _, v := range pod.Volumes {
				if v.PersistentVolumeClaim != nil {
					claims[v.Name] = v.PersistentVolumeClaim.ClaimName
				}
			}
			mounts := map[string]string{}
			for _, m := range c.VolumeMounts {
				mounts[m.MountPath] = claims[m.Name]
			}
			if want := sts.Spec.VolumeClaimTemplates[0].Name + "-" + member; mounts[dataMount] != want {
				t.Errorf("%s mounts claim %q, want %s, the claim the StatefulSet gives member %s", dataMount, mounts[dataMount], want, member)
			}
			if mounts["/backup"] != backupClaim || !strings.HasPrefix(backupDir, "/backup/") {
				t.Errorf("/backup mounts claim %q, the backups go to %s in claim %s", mounts["/backup"], backupDir, backupClaim)
			}
			if v := restrictedViolations(pod); len(v) > 0 {
				t.Errorf("breaks Pod Security restricted: %v", v)
			}
			if pod.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %s, want Never: a failed restore must not run again over what it left", pod.RestartPolicy)
			}
		})
	}
}
