package logtemplate

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Params are every parameter of the miner, with the values DefaultParams
// sets and why. A zero field takes its default.
type Params struct {
	// Depth is the depth of the parse tree's leaves, as in the paper: the
	// root, the token-count layer, Depth−3 layers that branch on a line's
	// leading tokens (never on its last token), and the leaves. 4 (one
	// leading token) is the paper's and Drain3's default.
	Depth int
	// SimThreshold is the least share of a template's non-wildcard tokens a
	// line must repeat, position by position, to join it. 0.4 is Drain3's
	// default; the paper uses 0.4–0.7 by dataset.
	SimThreshold float64
	// MaxChildren bounds the branches of a tree node; beyond it tokens take
	// the wildcard branch (Drain3: 100).
	MaxChildren int
	// MaxTemplates bounds the templates one miner keeps; a line that matches
	// none once the bound is reached is counted in the Other template
	// instead of starting a new one (memory stays bounded, and the outcome
	// stays a function of the input order only).
	MaxTemplates int
	// MaxTokens is the most tokens of a line that are mined; the rest of a
	// longer line is one wildcard token.
	MaxTokens int
	// CacheSize bounds the exact-match shortcut: a masked line seen before
	// goes straight to the template it joined then (new entries stop once
	// it is full). Its keys are 64-bit hashes of the masked line, never the
	// line itself, so its memory does not grow with line length.
	CacheSize int
	// MaxLeafTemplates bounds the templates of one leaf of the parse tree,
	// which every line reaching the leaf is compared with: a line that
	// matches none of a full leaf's templates joins the Other template.
	// Work per line is then at most MaxLeafTemplates × MaxTokens
	// comparisons, whatever the input (200: well above the leaves of real
	// services, which hold a few dozen).
	MaxLeafTemplates int
	// MaxTokenBytes is the longest token mined: a longer one is cut to its
	// first MaxTokenBytes bytes (at a character boundary) followed by
	// Wildcard, so a template's size is bounded by MaxTokens ×
	// MaxTokenBytes whatever the line length.
	MaxTokenBytes int
	// Budget, when non-nil, bounds the templates of several miners
	// together (the miners of all services of one input): a line that
	// would start a new template once the budget is spent joins its
	// miner's Other template. Nil means no bound beyond MaxTemplates.
	Budget *Budget
}

// DefaultParams returns the parameters used when a field is zero.
func DefaultParams() Params {
	return Params{Depth: 4, SimThreshold: 0.4, MaxChildren: 100, MaxTemplates: 2000, MaxTokens: 64, CacheSize: 1 << 16,
		MaxLeafTemplates: 200, MaxTokenBytes: 256}
}

func (p Params) withDefaults() Params {
	d := DefaultParams()
	if p.Depth < 3 {
		p.Depth = d.Depth
	}
	if p.SimThreshold <= 0 {
		p.SimThreshold = d.SimThreshold
	}
	if p.MaxChildren <= 1 {
		p.MaxChildren = d.MaxChildren
	}
	if p.MaxTemplates <= 0 {
		p.MaxTemplates = d.MaxTemplates
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = d.MaxTokens
	}
	if p.CacheSize <= 0 {
		p.CacheSize = d.CacheSize
	}
	if p.MaxLeafTemplates <= 0 {
		p.MaxLeafTemplates = d.MaxLeafTemplates
	}
	if p.MaxTokenBytes <= 0 {
		p.MaxTokenBytes = d.MaxTokenBytes
	}
	return p
}

// Other is the pattern of the template that collects the lines that match
// no template once a bound (MaxTemplates, MaxLeafTemplates, Budget) stops
// new ones.
const Other = "<other>"

// Template is one mined log template.
type Template struct {
	Pattern string // tokens joined by single spaces, variable positions as Wildcard
	Count   int    // lines that joined it
}

// cluster is a template being mined.
type cluster struct {
	tokens []string
	count  int
}

// node is a node of the parse tree: inner nodes branch on a token, leaves
// list clusters.
type node struct {
	children map[string]*node
	clusters []int32
}

// Miner is a Drain log template miner (He, Zhu, Zheng and Lyu, "Drain: An
// Online Log Parsing Approach with Fixed Depth Tree", ICWS 2017):
//
//  1. a line is masked (Mask) and split into tokens;
//  2. the parse tree's first layer chooses the lines with the same number
//     of tokens, the next Depth−3 layers follow its leading tokens (a
//     placeholder follows the wildcard branch, and so does any token once a
//     node has MaxChildren branches);
//  3. in the leaf, the template with the highest similarity — the share of
//     positions where the template's token equals the line's, wildcards not
//     counting; ties to the template with more wildcards, then the older —
//     is chosen if the similarity reaches SimThreshold;
//  4. a chosen template turns every position where the line differs into a
//     wildcard; otherwise the line starts a new template.
//
// A Miner is deterministic — the same lines in the same order give the same
// templates and IDs — and not safe for concurrent use. Memory is bounded by
// MaxTemplates × MaxTokens × MaxTokenBytes plus the cache (CacheSize
// hashes); an empty miner costs a few hundred bytes, so one per service
// stays cheap with many services.
type Miner struct {
	p        Params
	root     map[int]*node
	clusters []cluster
	other    int32 // index of the Other cluster, -1 until needed
	cache    map[uint64]int32
	buf      []byte
	toks     []string
	stats    Stats
}

// Stats count what the bounds of a miner cut.
type Stats struct {
	OtherTemplates int // lines sent to Other because MaxTemplates templates exist
	OtherLeaf      int // lines sent to Other because their leaf held MaxLeafTemplates
	OtherBudget    int // lines sent to Other because the shared Budget was spent
	LongTokens     int // tokens cut to MaxTokenBytes
}

// Budget is a bound on the templates of several miners together (see
// Params.Budget). Not safe for concurrent use.
type Budget struct {
	max, used int
}

// NewBudget returns a budget of max templates (max <= 0: no bound).
func NewBudget(max int) *Budget { return &Budget{max: max} }

// take spends one template; false when none is left.
func (b *Budget) take() bool {
	if b == nil || b.max <= 0 {
		return true
	}
	if b.used >= b.max {
		return false
	}
	b.used++
	return true
}

// New returns an empty miner.
func New(p Params) *Miner {
	p = p.withDefaults()
	return &Miner{p: p, root: map[int]*node{}, other: -1}
}

// Stats returns what the miner's bounds cut so far.
func (m *Miner) Stats() Stats { return m.stats }

// Add masks line, mines it and returns the ID of the template it joined
// (IDs are dense from 0, in order of creation).
func (m *Miner) Add(line string) int {
	m.buf = Mask(m.buf[:0], line)
	return m.add(m.buf)
}

// AddMasked mines an already masked line or a template pattern (tokens
// separated by spaces; placeholders and wildcards are kept as they are).
// Merging the templates of several miners is AddMasked of their patterns,
// in a fixed order, into a fresh miner.
func (m *Miner) AddMasked(content string) int {
	m.buf = append(m.buf[:0], content...)
	return m.add(m.buf)
}

func (m *Miner) add(masked []byte) int {
	key := hash64(masked)
	if id, ok := m.cache[key]; ok {
		m.clusters[id].count++
		return int(id)
	}
	toks := m.tokens(masked)
	id, leafFull := m.search(toks)
	switch {
	case id >= 0:
		c := &m.clusters[id]
		c.count++
		for i, t := range toks {
			if c.tokens[i] != Wildcard && c.tokens[i] != t {
				c.tokens[i] = Wildcard
			}
		}
	case len(m.clusters)-m.otherCount() >= m.p.MaxTemplates:
		m.stats.OtherTemplates++
		id = m.toOther()
	case leafFull:
		m.stats.OtherLeaf++
		id = m.toOther()
	case !m.p.Budget.take():
		m.stats.OtherBudget++
		id = m.toOther()
	default:
		id = int32(len(m.clusters))
		own := make([]string, len(toks))
		for i, t := range toks {
			own[i] = strings.Clone(t) // toks view m.buf
		}
		m.clusters = append(m.clusters, cluster{tokens: own, count: 1})
		m.insert(id, own)
	}
	if m.cache == nil {
		m.cache = map[uint64]int32{}
	}
	if len(m.cache) < m.p.CacheSize {
		m.cache[key] = id
	}
	return int(id)
}

// otherCount is 1 when the Other template exists, else 0.
func (m *Miner) otherCount() int {
	if m.other >= 0 {
		return 1
	}
	return 0
}

// toOther counts a line in the Other template, creating it.
func (m *Miner) toOther() int32 {
	if m.other < 0 {
		m.other = int32(len(m.clusters))
		m.clusters = append(m.clusters, cluster{tokens: []string{Other}})
	}
	m.clusters[m.other].count++
	return m.other
}

// hash64 is the 64-bit FNV-1a hash of b (fixed, so the cache — and the
// miner — stay deterministic across runs).
func hash64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// tokens splits masked (single spaces) into at most MaxTokens tokens, the
// last one a wildcard standing for the rest. The tokens view masked.
func (m *Miner) tokens(masked []byte) []string {
	m.toks = m.toks[:0]
	s := unsafeString(masked)
	for len(s) > 0 {
		if len(m.toks) == m.p.MaxTokens-1 && strings.IndexByte(s, ' ') >= 0 {
			m.toks = append(m.toks, Wildcard)
			break
		}
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			m.toks = append(m.toks, m.cut(s))
			break
		}
		if i > 0 {
			m.toks = append(m.toks, m.cut(s[:i]))
		}
		s = s[i+1:]
	}
	return m.toks
}

// cut returns t, or its first MaxTokenBytes bytes (whole characters)
// followed by Wildcard when it is longer (a new string).
func (m *Miner) cut(t string) string {
	if len(t) <= m.p.MaxTokenBytes {
		return t
	}
	m.stats.LongTokens++
	n := m.p.MaxTokenBytes
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n] + Wildcard
}

// branchKey is the tree key a token follows.
func branchKey(t string) string {
	if isPlaceholder(t) {
		return Wildcard
	}
	return t
}

// search walks the tree and returns the best cluster, or -1; full reports
// that the leaf reached holds MaxLeafTemplates templates.
func (m *Miner) search(toks []string) (best int32, full bool) {
	n := m.root[len(toks)]
	if n == nil {
		return -1, false
	}
	for d := 0; d < m.p.Depth-3 && d < len(toks)-1; d++ {
		next := n.children[branchKey(toks[d])]
		if next == nil {
			next = n.children[Wildcard]
		}
		if next == nil {
			return -1, false
		}
		n = next
	}
	full = len(n.clusters) >= m.p.MaxLeafTemplates
	best, bestSim, bestWild := int32(-1), -1.0, -1
	for _, id := range n.clusters {
		c := &m.clusters[id]
		same, wild := 0, 0
		for i, t := range c.tokens {
			switch {
			case t == Wildcard:
				wild++
			case t == toks[i]:
				same++
			}
		}
		sim := 1.0
		if len(toks) > 0 {
			sim = float64(same) / float64(len(toks))
		}
		if sim > bestSim || sim == bestSim && wild > bestWild {
			best, bestSim, bestWild = id, sim, wild
		}
	}
	if bestSim < m.p.SimThreshold && len(toks) > 0 {
		return -1, full
	}
	return best, full
}

// insert adds cluster id with tokens toks to the tree.
func (m *Miner) insert(id int32, toks []string) {
	n := m.root[len(toks)]
	if n == nil {
		n = &node{}
		m.root[len(toks)] = n
	}
	for d := 0; d < m.p.Depth-3 && d < len(toks)-1; d++ {
		key := branchKey(toks[d])
		if n.children == nil {
			n.children = map[string]*node{}
		}
		next := n.children[key]
		if next == nil {
			if len(n.children) >= m.p.MaxChildren-1 && key != Wildcard {
				key = Wildcard // the last branch is reserved for the wildcard
				next = n.children[key]
			}
			if next == nil {
				next = &node{}
				n.children[key] = next
			}
		}
		n = next
	}
	n.clusters = append(n.clusters, id)
}

// Len returns the number of templates.
func (m *Miner) Len() int { return len(m.clusters) }

// Template returns template id as it stands now.
func (m *Miner) Template(id int) Template {
	c := &m.clusters[id]
	return Template{Pattern: strings.Join(c.tokens, " "), Count: c.count}
}

// Templates returns every template, indexed by ID.
func (m *Miner) Templates() []Template {
	out := make([]Template, len(m.clusters))
	for i := range m.clusters {
		out[i] = m.Template(i)
	}
	return out
}

// unsafeString views b as a string; b must not change while it is used.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
