package logtemplate

import "strings"

// Masking: before a line is mined, the values that vary between two
// executions of the same log statement are replaced by placeholders, as
// Drain3 does with its masking instructions. Masking is token-level (a
// token is a maximal run of non-space bytes): a token's core — the token
// without the brackets, quotes and punctuation around it — is classified
// as a whole, then, when it is not a value, its key=value / key:value tail
// and its path segments are. A token that merely contains a digit
// ("AssuranceController#75", "log4j2") is not a value: it is part of the
// statement.

// Placeholders written by Mask. Each is a token of its own kind; Drain's
// own wildcard is Wildcard.
const (
	PlaceNum  = "<NUM>"  // integers and decimals, with an optional size or percent unit
	PlaceDur  = "<DUR>"  // durations: 12ms, 1.5s, 2m30s, 250µs
	PlaceHex  = "<HEX>"  // 0x1f, and hex runs of 8+ characters with a digit (trace IDs, hashes)
	PlaceUUID = "<UUID>" // 8-4-4-4-12 hex
	PlaceIP   = "<IP>"   // IPv4 and IPv6 addresses, with an optional :port
	PlaceTS   = "<TS>"   // dates, times and RFC 3339 timestamps
	PlaceStr  = "<STR>"  // "double-quoted" and 'single-quoted' strings
	PlaceID   = "<ID>"   // long mixed letter+digit identifiers (16+ characters)
	Wildcard  = "<*>"    // a position where the mined lines differ
)

// maxQuoted is the longest quoted string masked as one <STR>. A quote that
// never closes is left alone (an apostrophe, a truncated line); one that
// closes beyond maxQuoted is dropped, so that it cannot pair with its closer
// once masking has shortened what lies between (Mask stays idempotent).
const maxQuoted = 512

// Mask appends to dst the masked form of line: placeholders for values,
// tokens separated by single spaces. It allocates only when dst is too small.
func Mask(dst []byte, line string) []byte {
	i := 0
	first := true
	var closes quoteCloser
tokens:
	for i < len(line) {
		for i < len(line) && byteKind[line[i]] == kindSpace {
			i++
		}
		if i >= len(line) {
			break
		}
		wasFirst := first
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		// A quoted string, possibly with spaces inside, is one <STR>. An
		// opener dropped for closing too far away leaves the next byte at
		// the token's start, where a quote opens too.
		opens := i == 0 || isSpace(line[i-1])
		for c := line[i]; c == '"' || c == '\'' && opens; c = line[i] {
			j := closes.after(line, i)
			if j < 0 {
				break // never closes: kept
			}
			if j-i <= maxQuoted+1 {
				k := j
				for k < len(line) && !isSpace(line[k]) { // whatever is glued after the quote
					k++
				}
				if k == j {
					dst = append(dst, PlaceStr...)
				} else {
					// Masked as the token it becomes, "<STR>=0" → "<STR>=<NUM>",
					// so that masking the result again changes nothing.
					dst = maskToken(dst, PlaceStr+line[j:k])
				}
				i = k
				continue tokens
			}
			i++ // closes too far away: dropped
			if i >= len(line) || isSpace(line[i]) {
				if !wasFirst {
					dst = dst[:len(dst)-1] // the separator written for it
				}
				first = wasFirst
				continue tokens
			}
			opens = true
		}
		j := i
		digit := false
		for j < len(line) {
			k := byteKind[line[j]]
			if k == kindSpace {
				break
			}
			digit = digit || k == kindDigit
			j++
		}
		if digit {
			dst = maskToken(dst, line[i:j])
		} else { // every value kind has a digit: most tokens are words
			dst = append(dst, line[i:j]...)
		}
		i = j
	}
	return dst
}

// byteKind marks spaces and digits for Mask's token scan.
const (
	kindNone uint8 = iota
	kindSpace
	kindDigit
)

var byteKind = func() (t [256]uint8) {
	for _, c := range " \t\n\r\v\f" {
		t[c] = kindSpace
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = kindDigit
	}
	return t
}()

// quoteCloser finds the quote closing the one at line[i]: the index after
// it, or -1. A single quote closes only before a space, punctuation or the
// end, so "don't" is not a quote; backslash escapes are skipped. It
// remembers its last scan per quote character: a scan from a later opener
// inside that span walks the same bytes to the same answer, so a line of n
// bytes costs O(n) however many quotes it holds.
type quoteCloser struct {
	from, to [2]int // per quote kind (0 double, 1 single): the last scan's opener and answer
	set      [2]bool
}

func (c *quoteCloser) after(line string, i int) int {
	q := line[i]
	k := 0
	if q == '\'' {
		k = 1
	}
	if c.set[k] && i > c.from[k] && (c.to[k] < 0 || i < c.to[k]-1) {
		return c.to[k]
	}
	to := -1
	for j := i + 1; j < len(line); j++ {
		if line[j] == '\\' {
			j++
			continue
		}
		if line[j] == q {
			if q == '\'' && j+1 < len(line) && !isSpace(line[j+1]) && !isPunct(line[j+1]) {
				continue
			}
			to = j + 1
			break
		}
	}
	c.from[k], c.to[k], c.set[k] = i, to, true
	return to
}

func isSpace(c byte) bool { return byteKind[c] == kindSpace }

// isPunct reports the punctuation trimmed around a token's core.
func isPunct(c byte) bool {
	switch c {
	case '(', ')', '[', ']', '{', '}', ',', ';', '"', '\'', '`', '.', ':', '!', '?', '|':
		return true
	}
	return false
}

// isPlaceholder reports whether tok is one of the placeholders (or Drain's
// wildcard); masking is idempotent on them.
func isPlaceholder(tok string) bool {
	if len(tok) < 3 || tok[0] != '<' || tok[len(tok)-1] != '>' {
		return false
	}
	switch tok {
	case PlaceNum, PlaceDur, PlaceHex, PlaceUUID, PlaceIP, PlaceTS, PlaceStr, PlaceID, Wildcard:
		return true
	}
	return false
}

// maskToken appends tok with its value parts replaced.
func maskToken(dst []byte, tok string) []byte {
	if !hasDigit(tok) { // every value kind has a digit: most tokens are words
		return append(dst, tok...)
	}
	if isPlaceholder(tok) {
		return append(dst, tok...)
	}
	if p := classify(tok); p != "" { // "[::1]:9090" before its '[' is trimmed
		return append(dst, p...)
	}
	// Trim punctuation around the core (but not the '-' of a negative number,
	// the '.' of ".5" or the '/' of a path).
	lo, hi := 0, len(tok)
	for lo < hi && isPunct(tok[lo]) && !(tok[lo] == '.' && lo+1 < hi && isDigit(tok[lo+1])) {
		lo++
	}
	for hi > lo && isPunct(tok[hi-1]) {
		hi--
	}
	if lo == 0 && hi == len(tok) {
		return maskParts(dst, tok, 0) // tok itself was classified above
	}
	dst = append(dst, tok[:lo]...)
	dst = maskCore(dst, tok[lo:hi], 0)
	return append(dst, tok[hi:]...)
}

// maskCore appends core masked: a value as its placeholder; else key=value
// and key:value with the value masked; else a path with its segments
// masked; else as it is. depth bounds the recursion.
func maskCore(dst []byte, core string, depth int) []byte {
	if core == "" || isPlaceholder(core) {
		return append(dst, core...)
	}
	if p := classify(core); p != "" {
		return append(dst, p...)
	}
	return maskParts(dst, core, depth)
}

// maskParts appends core, which is not a value itself, with the value of
// its key=value or key:value tail, or its path segments, masked.
func maskParts(dst []byte, core string, depth int) []byte {
	if depth < 2 {
		for k := 0; k < len(core); k++ {
			if c := core[k]; (c == '=' || c == ':') && k > 0 && k+1 < len(core) {
				dst = append(dst, core[:k+1]...)
				return maskCore(dst, core[k+1:], depth+1)
			}
		}
		if strings.IndexByte(core, '/') >= 0 {
			return maskPath(dst, core)
		}
	}
	return append(dst, core...)
}

// maskPath masks each '/'-separated segment of a path or URL that is a
// value ("/api/orders/8812/items" → "/api/orders/<NUM>/items").
func maskPath(dst []byte, p string) []byte {
	start := 0
	for k := 0; k <= len(p); k++ {
		if k == len(p) || p[k] == '/' {
			seg := p[start:k]
			if ph := classify(seg); ph != "" {
				dst = append(dst, ph...)
			} else {
				dst = append(dst, seg...)
			}
			if k < len(p) {
				dst = append(dst, '/')
			}
			start = k + 1
		}
	}
	return dst
}

// Byte classes for classify's one-pass shape of a token.
const (
	clOther uint8 = iota
	clDigit
	clHexLetter // a-f, A-F
	clLetter    // the other ASCII letters
	clColon
	clDot
	clDash
	clUnderscore
	clSlash
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= '0' && c <= '9':
			t[c] = clDigit
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			t[c] = clHexLetter
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = clLetter
		case c == ':':
			t[c] = clColon
		case c == '.':
			t[c] = clDot
		case c == '-':
			t[c] = clDash
		case c == '_':
			t[c] = clUnderscore
		case c == '/':
			t[c] = clSlash
		}
	}
	return t
}()

// classify returns the placeholder for a value, or "" when s is not one.
// One pass counts the token's byte classes; only the kinds its shape allows
// are then checked.
func classify(s string) string {
	if s == "" {
		return ""
	}
	var n [9]int
	for i := 0; i < len(s); i++ {
		n[byteClass[s[i]]]++
	}
	digit, hexl, letter := n[clDigit], n[clHexLetter], n[clLetter]
	if digit == 0 {
		return ""
	}
	c := s[0]
	if isDigit(c) && len(s) >= 8 && (n[clColon] >= 2 || n[clDash] >= 2 || n[clSlash] >= 2) && isTimestamp(s) {
		return PlaceTS
	}
	if len(s) == 36 && n[clDash] == 4 && isUUID(s) {
		return PlaceUUID
	}
	if n[clDot] == 3 && letter+hexl == 0 && isIPv4(s) || n[clColon] >= 2 && letter == 0 && isIPv6(s) {
		return PlaceIP
	}
	hexOnly := digit+hexl == len(s)
	switch {
	case len(s) > 2 && c == '0' && (s[1] == 'x' || s[1] == 'X') && allHex(s[2:]):
		return PlaceHex
	case len(s) >= 16 && hexOnly: // IDs, even when all their digits are decimal
		return PlaceHex
	}
	if c == '-' || c == '+' || isDigit(c) || c == '.' && len(s) > 1 && isDigit(s[1]) {
		if p := classifyNumber(s); p != "" {
			return p
		}
	}
	if len(s) >= 8 && hexOnly {
		return PlaceHex
	}
	if len(s) >= 16 && digit >= 2 && letter+hexl >= 2 && digit+hexl+letter+n[clDash]+n[clUnderscore] == len(s) {
		return PlaceID
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func allHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// hasDigit reports whether s holds a decimal digit.
func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

// digits returns the length of the run of decimal digits at s[i:].
func digits(s string, i int) int {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j - i
}

// classifyNumber: [+-]digits[.digits][e[+-]digits][unit], or a Go-style
// compound duration (1h2m3.5s).
func classifyNumber(s string) string {
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	n := digits(s, i)
	i += n
	if i < len(s) && s[i] == '.' {
		f := digits(s, i+1)
		if f == 0 && n == 0 {
			return ""
		}
		i += 1 + f
		n += f
	}
	if n == 0 {
		return ""
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if e := digits(s, j); e > 0 {
			i = j + e
		}
	}
	if i == len(s) {
		return PlaceNum
	}
	unit := s[i:]
	if isDurationUnit(unit) {
		return PlaceDur
	}
	if isDurationRest(unit) {
		return PlaceDur
	}
	switch unit {
	case "%", "x", "B", "b", "KB", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "k", "K", "M", "G":
		return PlaceNum
	}
	// Ordinals, and numbers followed by ',' in lists, were trimmed already.
	return ""
}

// isDurationUnit reports Go's and common duration units.
func isDurationUnit(u string) bool {
	switch u {
	case "ns", "us", "µs", "μs", "ms", "s", "m", "h", "d", "sec", "secs", "min", "mins":
		return true
	}
	return false
}

// isDurationRest accepts the tail of a compound Go duration after its first
// number: "h2m3.5s" of "1h2m3.5s" (unit, number, unit, ...).
func isDurationRest(s string) bool {
	parts := 0
	for len(s) > 0 {
		u := 0
		for u < len(s) && !isDigit(s[u]) && s[u] != '.' {
			u++
		}
		if u == 0 || !isDurationUnit(s[:u]) {
			return false
		}
		parts++
		s = s[u:]
		if s == "" {
			break
		}
		n := digits(s, 0)
		if n < len(s) && s[n] == '.' {
			n += 1 + digits(s, n+1)
		}
		if n == 0 {
			return false
		}
		s = s[n:]
	}
	return parts >= 2
}

// isUUID: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

// isIPv4: d.d.d.d (0–255) with an optional :port.
func isIPv4(s string) bool {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if digits(s, i+1) != len(s)-i-1 || i+1 == len(s) {
			return false
		}
		s = s[:i]
	}
	parts := 0
	for len(s) > 0 {
		n := digits(s, 0)
		if n == 0 || n > 3 {
			return false
		}
		v := 0
		for k := 0; k < n; k++ {
			v = v*10 + int(s[k]-'0')
		}
		if v > 255 {
			return false
		}
		parts++
		s = s[n:]
		if s == "" {
			break
		}
		if s[0] != '.' || len(s) == 1 {
			return false
		}
		s = s[1:]
	}
	return parts == 4
}

// isIPv6: hex groups and colons, with "::" or at least 5 colons (so a
// time "16:42:10" is not one), optionally bracketed with a :port, optionally
// ending in a dotted IPv4 part.
func isIPv6(s string) bool {
	if len(s) > 2 && s[0] == '[' {
		end := strings.LastIndexByte(s, ']')
		if end < 0 {
			return false
		}
		if rest := s[end+1:]; rest != "" && (rest[0] != ':' || digits(rest, 1) != len(rest)-1 || len(rest) == 1) {
			return false
		}
		s = s[1:end]
	}
	if len(s) < 2 || len(s) > 45 {
		return false
	}
	colons, hexes := 0, 0
	double := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':':
			colons++
			if i+1 < len(s) && s[i+1] == ':' {
				double = true
			}
		case isHex(c):
			hexes++
		case c == '.':
		default:
			return false
		}
	}
	return colons >= 2 && (double || colons >= 5) && colons <= 8 && (hexes > 0 || s == "::")
}

// isTimestamp: a date (2023-01-29, 2023/01/29), a time of day (16:42:10,
// 16:42:10.175, 16:42:10,175), or both joined by 'T' or '_' with an
// optional fraction and zone (Z, +08:00, +0800).
func isTimestamp(s string) bool {
	if len(s) < 8 || !isDigit(s[0]) {
		return false
	}
	i, ok := date(s)
	if ok {
		if i == len(s) {
			return true
		}
		if s[i] != 'T' && s[i] != '_' {
			return false
		}
		i++
	} else {
		i = 0
	}
	j, ok := clock(s[i:])
	if !ok {
		return false
	}
	i += j
	rest := s[i:]
	switch {
	case rest == "", rest == "Z", rest == "z":
		return true
	case rest[0] == '+' || rest[0] == '-':
		z := rest[1:]
		return len(z) == 4 && digits(z, 0) == 4 || len(z) == 5 && digits(z, 0) == 2 && z[2] == ':' && digits(z, 3) == 2 || len(z) == 2 && digits(z, 0) == 2
	}
	return false
}

// date matches yyyy-mm-dd or yyyy/mm/dd at the start of s.
func date(s string) (int, bool) {
	if len(s) < 10 || digits(s, 0) != 4 || (s[4] != '-' && s[4] != '/') || digits(s, 5) != 2 || s[7] != s[4] || digits(s, 8) != 2 {
		return 0, false
	}
	return 10, true
}

// clock matches hh:mm:ss with an optional .fraction or ,fraction.
func clock(s string) (int, bool) {
	if len(s) < 8 || digits(s, 0) != 2 || s[2] != ':' || digits(s, 3) != 2 || s[5] != ':' || digits(s, 6) != 2 {
		return 0, false
	}
	i := 8
	if i < len(s) && (s[i] == '.' || s[i] == ',') {
		if f := digits(s, i+1); f > 0 {
			i += 1 + f
		}
	}
	return i, true
}

// IsTimestamp reports whether s is a date, a time of day or a timestamp as
// Mask recognises them (it masks them as PlaceTS).
func IsTimestamp(s string) bool { return isTimestamp(s) }
