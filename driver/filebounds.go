package driver

// maxSecretBytes bounds a --token-file or --basic-auth-file: a token or a
// user:password line, never megabytes (files a flag names are read with
// internal/boundedfile: regular files only, size-limited).
const maxSecretBytes = 64 << 10
