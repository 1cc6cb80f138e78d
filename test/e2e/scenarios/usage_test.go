package scenarios

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// usage is what the control plane's processes have used so far: CPU time since each
// started, and resident memory now and at its peak, from /proc (the same for every process,
// whether or not it serves metrics).
type usage map[string]procUsage

type procUsage struct {
	cpu       time.Duration
	rss, peak int64 // bytes
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// usageOf reads the usage of the processes the measurements name: Crossplane, the function
// servers (together), kube-apiserver, etcd, cert-manager's controllers and provider-kubernetes
// (which acts inside kcp for a shared installation's Tenants and Workspaces).
func usageOf(e *env) (usage, error) {
	pids := map[string][]int{}
	for _, name := range []string{"crossplane", "kube-apiserver", "etcd", "cert-manager-controller"} {
		p := e.Process(name)
		if p == nil {
			return nil, fmt.Errorf("no process %s in the stack", name)
		}
		pids[name] = []int{p.PID()}
	}
	for _, f := range e.Functions() {
		p := e.Process("function-" + f.Revision)
		if p == nil {
			return nil, fmt.Errorf("no process for function %s", f.Revision)
		}
		pids["function"] = append(pids["function"], p.PID())
	}
	for _, pr := range e.Providers() {
		p := e.Process("provider-" + pr.Revision)
		if p == nil {
			return nil, fmt.Errorf("no process for provider %s", pr.Revision)
		}
		pids["provider-kubernetes"] = append(pids["provider-kubernetes"], p.PID())
	}
	out := usage{}
	for name, ps := range pids {
		var u procUsage
		for _, pid := range ps {
			p, err := readProc(pid)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			u.cpu += p.cpu
			u.rss += p.rss
			u.peak += p.peak
		}
		out[name] = u
	}
	return out, nil
}

func readProc(pid int) (procUsage, error) {
	var u procUsage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	// The command name (field 2) may hold spaces: the fields after it start at the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return u, fmt.Errorf("/proc/%d/stat: %q", pid, stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return u, fmt.Errorf("/proc/%d/stat: %q", pid, stat)
	}
	// utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return u, fmt.Errorf("/proc/%d/stat: %q", pid, stat)
	}
	u.cpu = time.Duration(utime+stime) * time.Second / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return u, fmt.Errorf("/proc/%d/status %s: %q", pid, k, v)
		}
		if k == "VmRSS" {
			u.rss = kb << 10
		} else {
			u.peak = kb << 10
		}
	}
	return u, nil
}

// usageNames are the processes in the order the figures print them.
var usageNames = []string{"crossplane", "function", "kube-apiserver", "etcd", "cert-manager-controller", "provider-kubernetes"}

// cpuSince is the CPU each process used between before and u.
func (u usage) cpuSince(before usage) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, p := range u {
		out[name] = p.cpu - before[name].cpu
	}
	return out
}

// cpuString prints CPU times per process, scaled by 1/per (per installation and minute).
func cpuString(cpu map[string]time.Duration, per float64) string {
	var parts []string
	var total time.Duration
	for _, name := range usageNames {
		d := time.Duration(float64(cpu[name]) / per)
		total += d
		parts = append(parts, fmt.Sprintf("%s %s", name, d.Round(time.Millisecond)))
	}
	return fmt.Sprintf("%s (%s)", total.Round(time.Millisecond), strings.Join(parts, ", "))
}

// memoryString prints each process's resident memory now and its peak, in MiB.
func (u usage) memoryString() string {
	var parts []string
	for _, name := range usageNames {
		parts = append(parts, fmt.Sprintf("%s %d MiB (peak %d)", name, u[name].rss>>20, u[name].peak>>20))
	}
	return strings.Join(parts, ", ")
}
