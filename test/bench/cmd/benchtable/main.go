// Command benchtable reads `go test -bench -benchmem` output on standard input and prints a
// Markdown table of every benchmark's metrics: time, memory, allocations, and the custom
// metrics the benchmarks report (response and request bytes, the protobuf floor and the
// ratio to it). `make bench` pipes the function's benchmarks through it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// columns are the metrics shown, in order, with their headings; other metrics are ignored.
var columns = []struct{ unit, heading string }{
	{"ns/op", "time/op"},
	{"B/op", "B/op"},
	{"allocs/op", "allocs/op"},
	{"response-bytes", "response"},
	{"request-bytes", "request"},
	{"floor-ns", "protobuf floor"},
	{"x-floor", "x floor"},
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	var rows [][]string
	var header []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "cpu:") || strings.HasPrefix(line, "goos:") || strings.HasPrefix(line, "goarch:") {
			header = append(header, line)
			continue
		}
		name, metrics, ok := parse(line)
		if !ok {
			continue
		}
		row := []string{name}
		for _, c := range columns {
			row = append(row, format(c.unit, metrics[c.unit]))
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("no benchmark results on standard input")
	}
	for _, h := range header {
		fmt.Fprintln(out, h)
	}
	fmt.Fprintln(out)
	heads := []string{"input"}
	for _, c := range columns {
		heads = append(heads, c.heading)
	}
	fmt.Fprintln(out, "| "+strings.Join(heads, " | ")+" |")
	fmt.Fprintln(out, "|"+strings.Repeat("---|", len(heads)))
	for _, r := range rows {
		fmt.Fprintln(out, "| "+strings.Join(r, " | ")+" |")
	}
	return nil
}

// parse reads one result line: BenchmarkX/sub-2  N  v1 unit1  v2 unit2 ...
func parse(line string) (string, map[string]float64, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return "", nil, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return "", nil, false
	}
	name := f[0]
	if i := strings.LastIndex(name, "-"); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i] // the GOMAXPROCS suffix
		}
	}
	if i := strings.Index(name, "/"); i > 0 {
		name = name[i+1:]
	}
	m := map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		m[f[i+1]] = v
	}
	return name, m, true
}

// format prints a metric for reading: durations in µs or ms, sizes in KiB, ratios with one
// decimal.
func format(unit string, v float64) string {
	switch unit {
	case "ns/op", "floor-ns":
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.2f ms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.0f µs", v/1e3)
		}
		return fmt.Sprintf("%.0f ns", v)
	case "B/op", "response-bytes", "request-bytes":
		if v >= 1024 {
			return fmt.Sprintf("%.1f KiB", v/1024)
		}
		return fmt.Sprintf("%.0f B", v)
	case "x-floor":
		return fmt.Sprintf("%.1fx", v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
