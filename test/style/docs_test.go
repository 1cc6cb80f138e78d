package style

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/configuration-kcp/configuration-kcp/test/markdown"
)

// TestShellBlocksAreMarked holds every shell block a user reads to one marker saying what it
// runs against: the end-to-end test runs the blocks marked for the demo, so an unmarked
// block would go untested without anyone deciding so.
func TestShellBlocksAreMarked(t *testing.T) {
	files, err := markdown.DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		blocks, err := markdown.ShellBlocks(filepath.Join(root, f))
		if err != nil {
			// Name the file from the repository's root, as the rest of the messages do.
			t.Error(strings.TrimPrefix(err.Error(), root+string(filepath.Separator)))
			continue
		}
		for _, b := range blocks {
			switch {
			case b.Demo && b.Needs != "":
				t.Errorf("%s:%d: the block is marked both against the demo and as needing %q: keep the one that is true", f, b.Line, b.Needs)
			case !b.Demo && b.Needs == "":
				t.Errorf("%s:%d: the block has no marker: on the line above its fence write <!-- against: demo --> if it works as written once make demo is up "+
					"(the e2e runs it there), else <!-- needs: ... --> saying what it needs that the demo lacks", f, b.Line)
			}
		}
	}
}

// TestDocsNameTheVersion holds the docs' references to this project's packages to VERSION: the
// install guide's Configuration is applied against the demo and the e2e's control plane, which
// installed VERSION, and another tag there would replace what they run.
func TestDocsNameTheVersion(t *testing.T) {
	version := strings.TrimSpace(string(readFile(t, "VERSION")))
	files, err := markdown.DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	// A tag is a version; placeholders such as <VERSION> are not.
	ref := regexp.MustCompile(`xpkg\.crossplane\.io/configuration-kcp/[a-z-]+:(v[^\s"')` + "`" + `]+)`)
	for _, f := range files {
		for i, line := range strings.Split(string(readFile(t, f)), "\n") {
			for _, m := range ref.FindAllStringSubmatch(line, -1) {
				if m[1] != version {
					t.Errorf("%s:%d: %s names tag %s, VERSION is %s: name %s", f, i+1, m[0], m[1], version, version)
				}
			}
		}
	}
}

// performance is where every measured figure is stated.
const performance = "docs/performance.md"

// figureFiles are the files whose measured figures must come from docs/performance.md: the
// Markdown files users read (markdown.DocFiles) but performance.md itself, and the makefiles.
func figureFiles(t *testing.T) []string {
	t.Helper()
	docs, err := markdown.DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	mk, err := filepath.Glob(filepath.Join(root, "make", "*.mk"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"Makefile"}
	for _, f := range mk {
		files = append(files, filepath.Join("make", filepath.Base(f)))
	}
	for _, f := range docs {
		if f != filepath.FromSlash(performance) {
			files = append(files, f)
		}
	}
	return files
}

// TestFiguresComeFromPerformance holds the times and sizes the docs and makefiles state to
// docs/performance.md, so that one measurement is stated once and no two places disagree:
// each measured figure elsewhere must appear there verbatim (whitespace aside).
func TestFiguresComeFromPerformance(t *testing.T) {
	perf := strings.Join(strings.Fields(string(readFile(t, performance))), " ")
	for _, f := range figureFiles(t) {
		// Seconds are checked in the README only: elsewhere they are mostly timeouts, TTLs and
		// the e2e's own thresholds, stated beside what they are for.
		for _, fig := range figures(string(readFile(t, f)), f == "README.md") {
			if !statedIn(perf, fig.text) {
				t.Errorf("%s:%d: %q: state it in %s or link there instead", f, fig.line, fig.text, performance)
			}
		}
	}
}

// statedIn reports whether text holds figure as a whole, not as the end of a larger number or
// range ("50 minutes" is not in "150 minutes" or "40-50 minutes").
func statedIn(text, figure string) bool {
	return regexp.MustCompile(`(^|[^\w.,-])` + regexp.QuoteMeta(figure) + `\b`).MatchString(text)
}

// figure is a measured time or size stated in a file.
type figure struct {
	line int
	text string // the number or range and its unit, whitespace collapsed: "15-20 minutes"
}

// figureRE finds a time or size: a number (1.2, 2,900) or a range of them (15-20, 4 to 10)
// and a unit, with the word before it and whether "cold" follows.
var figureRE = regexp.MustCompile(`(?:\b([A-Za-z]+)\s+)?\b(\d+(?:[.,]\d+)*(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)*)?(?:\s+(?:minutes?|hours?|s)|\s*(?:MB|GB|MiB|GiB)))\b(\s+cold\b)?`)

// rangeRE is a figure that is a range.
var rangeRE = regexp.MustCompile(`^[\d.,]+\s*(-|–|to)`)

// measuring are the words that introduce a measurement: "about 65 minutes", "took 53 minutes".
var measuring = map[string]bool{"about": true, "took": true, "take": true, "takes": true, "measured": true}

// figures returns the measured figures of text; seconds only with seconds set. A figure is a
// measurement when it is a range ("21-28 s", "1.5 to 1.6 GiB"), follows a measuring word
// ("about 50 minutes", "took 53 minutes") or is said to be cold ("15 minutes cold"). A plain
// figure is a constant the code or a tool decides, stated where it applies: a breaker's 5
// minutes, etcd's quota of 2 GiB, CI's limit of 90 minutes, a 100 GiB volume. Times spelt
// without a space (--timeout=5m, 8760h, BENCH_TIME=5s) are flags and fields, never figures;
// so are Kubernetes quantities (20Gi).
func figures(text string, seconds bool) []figure {
	var out []figure
	for _, m := range figureRE.FindAllStringSubmatchIndex(text, -1) {
		fig := strings.Join(strings.Fields(text[m[4]:m[5]]), " ")
		if !seconds && strings.HasSuffix(fig, " s") {
			continue
		}
		word := ""
		if m[2] >= 0 {
			word = strings.ToLower(text[m[2]:m[3]])
		}
		if !measuring[word] && !rangeRE.MatchString(fig) && m[6] < 0 {
			continue
		}
		out = append(out, figure{line: 1 + strings.Count(text[:m[4]], "\n"), text: fig})
	}
	return out
}

func TestFigures(t *testing.T) {
	cases := map[string]struct {
		reason  string
		text    string
		seconds bool
		want    []figure
	}{
		"About": {
			reason: "A figure after about is a measurement, also across a line break.",
			text:   "make test (about 65 minutes on a fresh clone) and make e2e (about\n50 minutes)",
			want:   []figure{{1, "65 minutes"}, {2, "50 minutes"}},
		},
		"Range": {
			reason: "A range is a measurement, written with a hyphen or with to.",
			text:   "held 1.5 to 1.6 GiB\nand 15-20 minutes",
			want:   []figure{{1, "1.5 to 1.6 GiB"}, {2, "15-20 minutes"}},
		},
		"TookAndCold": {
			reason: "A figure that was taken, or is cold, is a measurement.",
			text:   "they took 53 minutes; tools 20 minutes cold; N=10 takes about 15 minutes",
			want:   []figure{{1, "53 minutes"}, {1, "20 minutes"}, {1, "15 minutes"}},
		},
		"Constants": {
			reason: "Plain figures are what the code or a tool decides: not measurements.",
			text:   "cooldown (5 minutes by default), CI's 90 minutes, a quota of 2 GiB, 100 GiB volumes, a 10-minute limit",
		},
		"Flags": {
			reason: "A unit without a space is a flag or a field.",
			text:   "--timeout=5m, validity: 8760h, about 5m, BENCH_TIME=5s, about 20Gi",
		},
		"SecondsInTheREADME": {
			reason:  "Seconds count where asked: a range or an about is measured, a TTL of 5 s is not.",
			text:    "issued 21-28 s after apply, within 5 s (1 s until Ready), about 25-30 s, 2,900 s",
			seconds: true,
			want:    []figure{{1, "21-28 s"}, {1, "25-30 s"}},
		},
		"SecondsElsewhere": {
			reason: "Seconds do not count outside the README: mostly timeouts and thresholds there.",
			text:   "within 4 to 10 s, about 20 seconds",
		},
		"SizesWithoutSpace": {
			reason: "A size may be written against its number.",
			text:   "the binary is about 35MB",
			want:   []figure{{1, "35MB"}},
		},
		"NotAVersion": {
			reason: "A version's last number is no figure.",
			text:   "measured on v2.3.4 s3 and v1.2 MB",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := figures(tc.text, tc.seconds)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(figure{})); diff != "" {
				t.Errorf("%s\nfigures(%q): -want, +got:\n%s", tc.reason, tc.text, diff)
			}
		})
	}
}

func TestStatedIn(t *testing.T) {
	cases := map[string]struct {
		reason string
		figure string
		want   bool
	}{
		"Whole":         {reason: "The figure as written.", figure: "50 minutes", want: true},
		"PartOfANumber": {reason: "Not the end of a larger number.", figure: "0 minutes"},
		"PartOfARange":  {reason: "Not the end of a range.", figure: "20 minutes"},
		"Range":         {reason: "A range as written.", figure: "15-20 minutes", want: true},
	}
	const text = "make e2e: about 50 minutes; tools: about 15-20 minutes cold"
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := statedIn(text, tc.figure); got != tc.want {
				t.Errorf("%s\nstatedIn(%q, %q) = %t, want %t", tc.reason, text, tc.figure, got, tc.want)
			}
		})
	}
}
