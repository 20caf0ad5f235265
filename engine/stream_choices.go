package engine

// choiceSet is a set of choice indexes of one stream: a bit mask for
// indexes 0 to 63 (streams seen in practice have choice 0 only), a map
// for any other, so a stream's bookkeeping allocates nothing.
type choiceSet struct {
	low  uint64
	more map[int]bool
}

func (c *choiceSet) has(i int) bool {
	if i >= 0 && i < 64 {
		return c.low&(1<<uint(i)) != 0
	}
	return c.more[i]
}

func (c *choiceSet) add(i int) {
	if i >= 0 && i < 64 {
		c.low |= 1 << uint(i)
		return
	}
	if c.more == nil {
		c.more = map[int]bool{}
	}
	c.more[i] = true
}

func (c *choiceSet) empty() bool { return c.low == 0 && len(c.more) == 0 }

// indexes lists the set's members, those below 64 in order.
func (c *choiceSet) indexes() []int {
	var out []int
	for i := 0; i < 64; i++ {
		if c.low&(1<<uint(i)) != 0 {
			out = append(out, i)
		}
	}
	for i := range c.more {
		out = append(out, i)
	}
	return out
}
