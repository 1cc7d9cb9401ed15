// Package clihelp is the presentation of the commands' flags: the help
// text's flag groups (SetGroup, the Group constants), each flag with its
// value placeholder, wrapped description and default (PrintFlags, WrapWords,
// Width), "did you mean" for an unknown flag (FlagSuggestion), and the bash,
// zsh and fish completion scripts (WriteBash, WriteFish) of a command table
// the caller supplies (Command, FlagValues).
//
// It prints flag sets and never parses one: parsing, the command table and
// the values a flag completes to stay in package driver, the flag wiring.
package clihelp
