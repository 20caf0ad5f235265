package metrics

import "strconv"

// statusLabels are the code labels of the statuses 100 to 599, made once:
// strconv.Itoa allocates a new string for every status above 99, on every
// request. They are read-only after start: nothing changes with several
// Hearth nodes.
var statusLabels = func() (l [500]string) {
	for i := range l {
		l[i] = strconv.Itoa(100 + i)
	}
	return l
}()

// statusLabel is strconv.Itoa(status) without allocating for an HTTP
// status.
func statusLabel(status int) string {
	if status >= 100 && status < 600 {
		return statusLabels[status-100]
	}
	return strconv.Itoa(status)
}
