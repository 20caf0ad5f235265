package providers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// recordedLines returns the lines of a JSON Lines file under testdata.
func recordedLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// checkDecodeSameAsJSON fails when a hand-written decoder and
// json.Unmarshal into a new T disagree on data: both must fail with the
// same error, or both give the same value.
func checkDecodeSameAsJSON[T any](t *testing.T, data []byte, decode func([]byte) (*T, error)) {
	t.Helper()
	want := new(T)
	wantErr := json.Unmarshal(data, want)
	got, err := decode(data)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, encoding/json %v", data, err, wantErr)
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Fatalf("%s: error %q, encoding/json %q", data, err, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("%s:\n got %s\nwant %s\n(%#v)", data, g, w, got)
	}
}

// checkGolden fails unless got is the content of file, line by line;
// update rewrites file with got first.
func checkGolden(t *testing.T, file string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("%s line %d:\n got %s\nwant %s", file, i+1, gl[i], wl[i])
		}
	}
	if len(gl) != len(wl) {
		t.Fatalf("%s: %d lines, want %d", file, len(gl), len(wl))
	}
}
