package driver

import "testing"

// TestMCPRunError checks how a run's stderr becomes one line.
func TestMCPRunError(t *testing.T) {
	for in, want := range map[string]string{
		"pipeline-analyze: --target \"x\": no such service (see pipeline-analyze --help)\n":  `--target "x": no such service`,
		"pipeline-analyze compare: BEFORE: a.json: bad\n":                                    "BEFORE: a.json: bad",
		"pipeline-analyze: live: prometheus: 401\npipeline-analyze: live: nothing fetched\n": "live: prometheus: 401; live: nothing fetched",
		"": "the run failed without saying why",
	} {
		if got := runError(in).Error(); got != want {
			t.Errorf("runError(%q) = %q, want %q", in, got, want)
		}
	}
}
