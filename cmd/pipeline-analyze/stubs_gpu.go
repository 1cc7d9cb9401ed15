package main

import (
	"fmt"
	"io"
)

func runRecordGPU(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "record-gpu: not implemented yet")
	return 1
}
