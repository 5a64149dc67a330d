package hub

import "iter"

// smallSet is a set that holds its element inline while it has at most
// one, and a map only from two on. Most sets of the hub hold one element
// (a user's connections, the listeners of a user's own topics, the stars
// of a new user), and an empty map alone costs more than a connection's
// read buffer. The zero value is empty; the zero T is never an element.
type smallSet[T comparable] struct {
	one  T              // the element while many is nil
	many map[T]struct{} // the elements once there were two at once
}

func (s *smallSet[T]) add(x T) {
	var zero T
	switch {
	case s.many != nil:
		s.many[x] = struct{}{}
	case s.one == zero || s.one == x:
		s.one = x
	default:
		s.many = map[T]struct{}{s.one: {}, x: {}}
		s.one = zero
	}
}

func (s *smallSet[T]) remove(x T) {
	var zero T
	if s.many == nil {
		if s.one == x {
			s.one = zero
		}
		return
	}
	delete(s.many, x)
	if len(s.many) == 1 {
		for y := range s.many {
			s.one = y
		}
		s.many = nil
	}
}

func (s *smallSet[T]) has(x T) bool {
	var zero T
	if s.many == nil {
		return x != zero && s.one == x
	}
	_, ok := s.many[x]
	return ok
}

func (s *smallSet[T]) len() int {
	var zero T
	switch {
	case s.many != nil:
		return len(s.many)
	case s.one != zero:
		return 1
	}
	return 0
}

// all yields the elements in no particular order. The set must not change
// meanwhile.
func (s *smallSet[T]) all() iter.Seq[T] {
	return func(yield func(T) bool) {
		var zero T
		if s.many == nil {
			if s.one != zero {
				yield(s.one)
			}
			return
		}
		for x := range s.many {
			if !yield(x) {
				return
			}
		}
	}
}
