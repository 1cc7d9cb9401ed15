package logtemplate

import (
	"strings"
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
	// it is full).
	CacheSize int
}

// DefaultParams returns the parameters used when a field is zero.
func DefaultParams() Params {
	return Params{Depth: 4, SimThreshold: 0.4, MaxChildren: 100, MaxTemplates: 2000, MaxTokens: 64, CacheSize: 1 << 16}
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
	return p
}

// Other is the pattern of the template that collects the lines that arrive
// after MaxTemplates templates exist and match none of them.
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
// MaxTemplates × MaxTokens tokens plus the cache.
type Miner struct {
	p        Params
	root     map[int]*node
	clusters []cluster
	other    int32 // index of the Other cluster, -1 until needed
	cache    map[string]int32
	buf      []byte
	toks     []string
}

// New returns an empty miner.
func New(p Params) *Miner {
	p = p.withDefaults()
	return &Miner{p: p, root: map[int]*node{}, other: -1, cache: make(map[string]int32, 256)}
}

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
	if id, ok := m.cache[string(masked)]; ok { // no allocation for the lookup
		m.clusters[id].count++
		return int(id)
	}
	toks := m.tokens(masked)
	id := m.search(toks)
	switch {
	case id >= 0:
		c := &m.clusters[id]
		c.count++
		for i, t := range toks {
			if c.tokens[i] != Wildcard && c.tokens[i] != t {
				c.tokens[i] = Wildcard
			}
		}
	case len(m.clusters) >= m.p.MaxTemplates:
		if m.other < 0 {
			m.other = int32(len(m.clusters))
			m.clusters = append(m.clusters, cluster{tokens: []string{Other}})
		}
		id = m.other
		m.clusters[id].count++
	default:
		id = int32(len(m.clusters))
		own := make([]string, len(toks))
		for i, t := range toks {
			own[i] = strings.Clone(t) // toks view m.buf
		}
		m.clusters = append(m.clusters, cluster{tokens: own, count: 1})
		m.insert(id, own)
	}
	if len(m.cache) < m.p.CacheSize {
		m.cache[string(masked)] = id
	}
	return int(id)
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
			m.toks = append(m.toks, s)
			break
		}
		if i > 0 {
			m.toks = append(m.toks, s[:i])
		}
		s = s[i+1:]
	}
	return m.toks
}

// branchKey is the tree key a token follows.
func branchKey(t string) string {
	if isPlaceholder(t) {
		return Wildcard
	}
	return t
}

// search walks the tree and returns the best cluster, or -1.
func (m *Miner) search(toks []string) int32 {
	n := m.root[len(toks)]
	if n == nil {
		return -1
	}
	for d := 0; d < m.p.Depth-3 && d < len(toks)-1; d++ {
		next := n.children[branchKey(toks[d])]
		if next == nil {
			next = n.children[Wildcard]
		}
		if next == nil {
			return -1
		}
		n = next
	}
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
		return -1
	}
	return best
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
