package main

import "io"

func runAnalyze(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return 0 }
