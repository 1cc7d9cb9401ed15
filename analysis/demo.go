package analysis

import "github.com/pipeline-analyze/pipeline-analyze/fixtures"

// writeDemo writes the embedded demo incident (a simulated fault with a
// fixed seed, generated deterministically) into dir.
func writeDemo(dir string) (fault string, seed uint64, err error) {
	ds := fixtures.DemoSpec()
	if _, err := fixtures.Write(dir, ds); err != nil {
		return "", 0, err
	}
	return ds.Fault, ds.Seed, nil
}
