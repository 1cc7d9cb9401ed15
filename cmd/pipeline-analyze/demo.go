package main

import "errors"

// writeDemo writes the embedded demo incident into dir.
func writeDemo(dir string) (fault string, seed uint64, err error) {
	return "", 0, errors.New("the simulator is not built yet")
}
