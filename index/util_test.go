package index

import (
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// fmtSscan parses the number of a chunk id made by chunkID.
func fmtSscan(id string, n *int) (int, error) {
	v, err := strconv.Atoi(strings.TrimPrefix(id, "c"))
	*n = v
	return 1, err
}
