package server

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllSteps reads r with reads of step bytes, recording each result,
// and two more reads after the first error.
func readAllSteps(r io.Reader, step int) []string {
	var out []string
	buf := make([]byte, step)
	after := -1
	for i := 0; i < 10000 && after != 0; i++ {
		n, err := r.Read(buf)
		var mbe *http.MaxBytesError
		e := "nil"
		switch {
		case errors.As(err, &mbe):
			e = "max " + strconv.FormatInt(mbe.Limit, 10)
		case err != nil:
			e = err.Error()
		}
		out = append(out, string(buf[:n])+"|"+e)
		if err != nil && after < 0 {
			after = 3
		}
		if after > 0 {
			after--
		}
	}
	return out
}

// TestBodyLimitReaderMatchesMaxBytesReader: the limit put over guardIO's
// guard reads exactly as http.MaxBytesReader reads, for bodies under, at
// and over the limit, any read size, and readers that return data with
// their error.
func TestBodyLimitReaderMatchesMaxBytesReader(t *testing.T) {
	for _, size := range []int{0, 1, 9, 10, 11, 25} {
		for _, limit := range []int64{-1, 0, 1, 10} {
			for _, step := range []int{1, 3, 10, 11, 64} {
				for _, dataErr := range []bool{false, true} {
					body := func() io.ReadCloser {
						var r io.Reader = strings.NewReader(strings.Repeat("x", size))
						if dataErr {
							r = iotest.DataErrReader(r)
						}
						return io.NopCloser(r)
					}
					want := readAllSteps(http.MaxBytesReader(httptest.NewRecorder(), body(), limit), step)
					r := httptest.NewRequest("POST", "/", nil)
					gs := &ioGuards{}
					gs.body = slowBodyGuard{body: body(), spare: &gs.limit, done: true}
					r.Body = &gs.body
					if !limitGuarded(r, limit) || r.Body != &gs.limit {
						t.Fatal("the guard's limit reader was not used")
					}
					if limitGuarded(r, limit) {
						t.Fatal("a second limit took the guard's reader again")
					}
					got := readAllSteps(r.Body, step)
					if strings.Join(got, ",") != strings.Join(want, ",") {
						t.Fatalf("size %d limit %d step %d dataErr %v:\n got %q\nwant %q", size, limit, step, dataErr, got, want)
					}
				}
			}
		}
	}
}
