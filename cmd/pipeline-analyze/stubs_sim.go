package main

import (
	"fmt"
	"io"
)

func runSimulate(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "simulate: not implemented yet")
	return 1
}
