// Package shell splits the shell snippets of the docs into simple commands, the way sh would
// for the subset the docs use, so that tests can run them: the docs test checks every
// command of the docs, the e2e runs the migration guide's commands verbatim.
package shell

import (
	"fmt"
	"strings"
)

// Command is one simple command of a shell block: its words, and the heredoc it reads.
type Command struct {
	Args  []string
	Stdin string
}

// String is the command line, cut to 80 characters (it names subtests).
func (c Command) String() string {
	s := strings.Join(c.Args, " ")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// Parse splits a shell block into simple commands, the way sh would for the docs'
// subset of it: comments, line continuations, single and double quotes, pipelines, `&&`,
// `;`, redirections (dropped) and quoted heredocs (kept as the command's stdin).
func Parse(block string) ([]Command, error) {
	lines := strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n")
	var out []Command
	for i := 0; i < len(lines); i++ {
		words, ops, err := split(lines[i])
		if err != nil {
			return nil, err
		}
		var cur Command
		flush := func() {
			if len(cur.Args) > 0 {
				out = append(out, cur)
			}
			cur = Command{}
		}
		for j := 0; j < len(words); j++ {
			switch w := words[j]; {
			case !ops[j]:
				cur.Args = append(cur.Args, w)
			case w == "|" || w == "&&" || w == ";":
				flush()
			case w == "<<":
				if j+1 >= len(words) {
					return nil, fmt.Errorf("heredoc without a delimiter: %s", lines[i])
				}
				end := words[j+1]
				j++
				var body strings.Builder
				for i++; i < len(lines) && strings.TrimSpace(lines[i]) != end; i++ {
					body.WriteString(lines[i] + "\n")
				}
				if i == len(lines) {
					return nil, fmt.Errorf("heredoc %s is not closed", end)
				}
				cur.Stdin = body.String()
			case w == ">" || w == ">>" || w == "<":
				j++ // the file
			default:
				return nil, fmt.Errorf("unsupported shell operator %q", w)
			}
		}
		flush()
	}
	return out, nil
}

// shellWords splits one line into words and operators (ops[i] says which).
func split(line string) (words []string, ops []bool, err error) {
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words, ops = append(words, cur.String()), append(ops, false)
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, nil, fmt.Errorf("unterminated ' in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) {
					j++
				}
				cur.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, nil, fmt.Errorf("unterminated \" in %q", line)
			}
			i = j
			inWord = true
		case ch == ' ' || ch == '\t':
			end()
		case ch == '#' && !inWord:
			end()
			return words, ops, nil
		case strings.IndexByte("|&;<>", ch) >= 0:
			end()
			op := string(ch)
			if i+1 < len(line) && (line[i:i+2] == "&&" || line[i:i+2] == "<<" || line[i:i+2] == ">>") {
				op = line[i : i+2]
				i++
			}
			words, ops = append(words, op), append(ops, true)
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	end()
	return words, ops, nil
}
