package store

import "strings"

// wordMatcher tells whether a text holds any of a set of words, in one pass
// over the text's bytes (Aho–Corasick): a reader who filters 100 words pays
// about what one word costs, where a search for each word in turn made the
// filter most of a home page's CPU (BenchmarkHomeLens).
type wordMatcher struct {
	// root is the root's transitions by byte, dense since most bytes of a
	// text are read at the root (0: stay there).
	root  [256]int32
	nodes []matchNode // nodes[0] is the root
}

// matchNode is one state: a prefix of some word.
type matchNode struct {
	keys  string  // the bytes that lead on from here, one each
	next  []int32 // the node each of keys leads to
	fail  int32   // the node of the longest proper suffix that is a prefix of a word
	match bool    // a word ends here or at a node of its fail chain
}

// newWordMatcher builds the matcher of words (bytes compared as they are).
func newWordMatcher(words []string) *wordMatcher {
	m := &wordMatcher{nodes: make([]matchNode, 1, 64)}
	for _, w := range words {
		n := int32(0)
		for i := 0; i < len(w); i++ {
			next := m.child(n, w[i])
			if next == 0 {
				next = int32(len(m.nodes))
				m.nodes = append(m.nodes, matchNode{})
				m.nodes[n].keys += w[i : i+1]
				m.nodes[n].next = append(m.nodes[n].next, next)
			}
			n = next
		}
		m.nodes[n].match = true
	}
	// Fail links breadth first: a node's parent's is done before it.
	queue := append([]int32(nil), m.nodes[0].next...)
	for j := range m.nodes[0].keys {
		m.root[m.nodes[0].keys[j]] = m.nodes[0].next[j]
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for j := 0; j < len(m.nodes[u].keys); j++ {
			c, v := m.nodes[u].keys[j], m.nodes[u].next[j]
			m.nodes[v].fail = m.step(m.nodes[u].fail, c)
			m.nodes[v].match = m.nodes[v].match || m.nodes[m.nodes[v].fail].match
			queue = append(queue, v)
		}
	}
	return m
}

// child is where byte c leads from node n, 0 when nowhere.
func (m *wordMatcher) child(n int32, c byte) int32 {
	if j := strings.IndexByte(m.nodes[n].keys, c); j >= 0 {
		return m.nodes[n].next[j]
	}
	return 0
}

// step is the state after reading c in state n.
func (m *wordMatcher) step(n int32, c byte) int32 {
	for n != 0 {
		if next := m.child(n, c); next != 0 {
			return next
		}
		n = m.nodes[n].fail
	}
	return m.root[c]
}

// in tells whether text holds one of the words.
func (m *wordMatcher) in(text string) bool {
	if m.nodes[0].match { // an empty word is in every text
		return true
	}
	n := int32(0)
	for i := 0; i < len(text); i++ {
		n = m.step(n, text[i])
		if m.nodes[n].match {
			return true
		}
	}
	return false
}
