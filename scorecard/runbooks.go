package scorecard

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Runbook is one entry of a team's runbooks file (--runbooks): the causes
// it applies to (globs over service, signal and component kind; empty
// matches any), a link and steps that come before the built-in ones, or
// replace them.
type Runbook struct {
	Service string        `yaml:"service" json:"service"`
	Signal  string        `yaml:"signal" json:"signal"`
	Kind    string        `yaml:"kind" json:"kind"` // component kind: pod, gpu, edge, node, service, rollout
	URL     string        `yaml:"url" json:"url"`
	Replace bool          `yaml:"replace" json:"replace"` // drop the built-in steps
	Steps   []RunbookStep `yaml:"steps" json:"steps"`
}

// RunbookStep is one step of a runbook. Its command may name the cause's
// {namespace}, {pod}, {service}, {node}, {gpu}, {workload} and
// {component}: each is filled, shell-quoted, from the data; a step whose
// placeholder the data cannot fill is left out, never guessed.
type RunbookStep struct {
	Kind    string `yaml:"kind" json:"kind"` // confirm (default) or mitigate
	Text    string `yaml:"text" json:"text"`
	Command string `yaml:"command" json:"command"`
	URL     string `yaml:"url" json:"url"`
}

// runbookFile is the file's shape: a list under "runbooks".
type runbookFile struct {
	Runbooks []Runbook `yaml:"runbooks"`
}

// ParseRunbooks reads a runbooks file, YAML or JSON (YAML's superset):
//
//	runbooks:
//	  - service: "cart*"
//	    signal: memory
//	    url: https://wiki.example/cart-memory
//	    steps:
//	      - {kind: mitigate, text: "restart the cart pods", command: "kubectl -n {namespace} rollout restart {workload}"}
//
// name is the file's name for errors.
func ParseRunbooks(data []byte, name string) ([]Runbook, error) {
	var f runbookFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i, rb := range f.Runbooks {
		for _, g := range []string{rb.Service, rb.Signal, rb.Kind} {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("%s: runbook %d: bad pattern %q: %w", name, i+1, g, err)
			}
		}
		if rb.URL == "" && len(rb.Steps) == 0 {
			return nil, fmt.Errorf("%s: runbook %d: neither url nor steps", name, i+1)
		}
		for j, st := range rb.Steps {
			switch st.Kind {
			case "":
				f.Runbooks[i].Steps[j].Kind = StepConfirm
			case StepConfirm, StepMitigate:
			default:
				return nil, fmt.Errorf("%s: runbook %d, step %d: kind %q: want confirm or mitigate", name, i+1, j+1, st.Kind)
			}
			if st.Command == "" && st.URL == "" {
				return nil, fmt.Errorf("%s: runbook %d, step %d: neither command nor url", name, i+1, j+1)
			}
		}
	}
	return f.Runbooks, nil
}

// matches reports whether the runbook applies to a cause.
func (rb Runbook) matches(service, signal, kind string) bool {
	ok := func(glob, v string) bool {
		if glob == "" {
			return true
		}
		m, _ := path.Match(glob, v)
		return m
	}
	return ok(rb.Service, service) && ok(rb.Signal, signal) && ok(rb.Kind, kind)
}

// runbookSteps are the steps of the runbooks that match a cause, in file
// order, their placeholders filled from vals (shell-quoted), and whether
// one of them replaces the built-in steps.
func runbookSteps(rbs []Runbook, service, signal, kind string, vals map[string]string) ([]Step, bool) {
	var out []Step
	replace := false
	for _, rb := range rbs {
		if !rb.matches(service, signal, kind) {
			continue
		}
		replace = replace || rb.Replace
		if rb.URL != "" {
			out = append(out, Step{Kind: StepConfirm, Text: "the team's runbook", URL: rb.URL, Source: "runbook"})
		}
		for _, st := range rb.Steps {
			cmd, ok := fillPlaceholders(st.Command, vals)
			if !ok {
				continue
			}
			out = append(out, Step{Kind: st.Kind, Text: st.Text, Command: cmd, URL: st.URL, Source: "runbook"})
		}
	}
	return out, replace
}

// fillPlaceholders replaces each {name} of cmd with its value, shell-quoted;
// false when a placeholder has no value.
func fillPlaceholders(cmd string, vals map[string]string) (string, bool) {
	var sb strings.Builder
	for {
		i := strings.IndexByte(cmd, '{')
		if i < 0 {
			sb.WriteString(cmd)
			return sb.String(), true
		}
		j := strings.IndexByte(cmd[i:], '}')
		if j < 0 {
			sb.WriteString(cmd)
			return sb.String(), true
		}
		name := cmd[i+1 : i+j]
		v, known := vals[name]
		if _, placeholder := placeholderNames[name]; !placeholder {
			sb.WriteString(cmd[:i+j+1]) // not ours: ${VAR}, a JSON body
			cmd = cmd[i+j+1:]
			continue
		}
		if !known || v == "" {
			return "", false
		}
		sb.WriteString(cmd[:i])
		sb.WriteString(shellCommand([]string{v}))
		cmd = cmd[i+j+1:]
	}
}

// placeholderNames are the names a runbook command may use.
var placeholderNames = map[string]struct{}{"namespace": {}, "pod": {}, "service": {}, "node": {}, "gpu": {}, "workload": {}, "component": {}}
