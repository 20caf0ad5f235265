package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// putKeys stores each key with itself as the value, in one transaction.
func putKeys(t *testing.T, s engine.Store, keys []string) {
	t.Helper()
	kv := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		kv = append(kv, k, k)
	}
	put(t, s, kv...)
}

func checkScan(t *testing.T, s engine.Store, prefix, after string, want []string) {
	t.Helper()
	got := scan(t, s, prefix, after, 0)
	if !slices.Equal(got, want) {
		t.Errorf("Scan(%q, after %q) = %q, want %q", prefix, after, got, want)
	}
}

// testScanBytewiseOrder uses keys that a collation (en_US and the like)
// orders differently from bytes: punctuation, case, non-ASCII.
func testScanBytewiseOrder(t *testing.T, s engine.Store) {
	in := []string{"a_b", "a-b", "a.b", "a/b", "aB", "ab", "a", "a~", "a\u00e9", "a\x7f", "A", "a b", "`z", "b"}
	putKeys(t, s, in)
	var want []string
	for _, k := range in {
		if len(k) > 0 && k[0] == 'a' {
			want = append(want, k)
		}
	}
	sort.Strings(want)
	checkScan(t, s, "a", "", want)
	checkScan(t, s, "a-", "", []string{"a-b"})
	checkScan(t, s, "a_", "", []string{"a_b"})
	checkScan(t, s, "a-b", "", []string{"a-b"})
	all := slices.Clone(in)
	sort.Strings(all)
	checkScan(t, s, "", "", all)
}

// testScanAllByteValues stores keys ending in every byte 0x00..0xff and
// checks the order and the prefix bound next to 0xff.
func testScanAllByteValues(t *testing.T, s engine.Store) {
	var keys []string
	for b := 255; b >= 0; b-- {
		keys = append(keys, "k/"+string([]byte{byte(b)}))
	}
	keys = append(keys, "k/\xff\xff", "k/\xff\x00", "k/", "k0", "k.", "k/\x00\x00")
	putKeys(t, s, keys)
	var want []string
	for _, k := range keys {
		if len(k) >= 2 && k[:2] == "k/" {
			want = append(want, k)
		}
	}
	sort.Strings(want)
	if len(want) != 260 {
		t.Fatalf("test setup: %d keys", len(want))
	}
	checkScan(t, s, "k/", "", want)
	checkScan(t, s, "k/\xff", "", []string{"k/\xff", "k/\xff\x00", "k/\xff\xff"})
	checkScan(t, s, "k/\xff", "k/\xff", []string{"k/\xff\x00", "k/\xff\xff"})
	checkScan(t, s, "k/\x00", "", []string{"k/\x00", "k/\x00\x00"})
	checkScan(t, s, "k/\xfe", "", []string{"k/\xfe"})
}

func testScanAfterCursor(t *testing.T, s engine.Store) {
	putKeys(t, s, []string{"p/3", "p/1", "p/2", "p/", "o/9", "q/1", "p0"})
	all := []string{"p/", "p/1", "p/2", "p/3"}
	cases := []struct {
		after string
		want  []string
	}{
		{"", all},
		{"p/1", all[2:]},
		{"p/15", all[2:]}, // a cursor between keys
		{"p/2\x00", all[3:]},
		{"p/3", nil},
		{"p/", all[1:]}, // the cursor equals the prefix, which is a key
		{"o", all},      // a cursor before the prefix
		{"o/9", all},
		{"q", nil}, // a cursor past the prefix
	}
	for _, c := range cases {
		checkScan(t, s, "p/", c.after, c.want)
	}
}

// testScanPaging walks a large prefix a few keys at a time with the last key
// seen as the cursor, as list endpoints do.
func testScanPaging(t *testing.T, s engine.Store) {
	var keys []string
	for i := 999; i >= 0; i-- {
		keys = append(keys, fmt.Sprintf("pg/%04d", i))
	}
	putKeys(t, s, append(keys, "ph", "pf"))
	sort.Strings(keys)
	checkScan(t, s, "pg/", "", keys)
	var paged []string
	after := ""
	for pages := 0; pages < 200; pages++ {
		page := scan(t, s, "pg/", after, 7)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[len(page)-1]
	}
	if !slices.Equal(paged, keys) {
		t.Fatalf("paged scan returned %d keys, want the %d in order", len(paged), len(keys))
	}
}

func testScanStopAndErrors(t *testing.T, s engine.Store) {
	putKeys(t, s, []string{"e/1", "e/2", "e/3"})
	if got := scan(t, s, "e/", "", 2); !slices.Equal(got, []string{"e/1", "e/2"}) {
		t.Errorf("scan stopped after 2 = %q", got)
	}
	boom := errors.New("boom")
	calls := 0
	err := s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("e/", "", func(string, []byte) error { calls++; return boom })
	})
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("scan whose fn fails: err %v after %d calls, want boom after 1", err, calls)
	}
	// Reads inside the scan callback work (the engine loads records it lists).
	must(t, s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("e/", "", func(k string, _ []byte) error {
			b, err := tx.GetRaw(k)
			if err != nil || string(b) != k {
				return fmt.Errorf("GetRaw(%s) inside Scan = %q, %v", k, b, err)
			}
			return nil
		})
	}))
}

func testScanSeesOwnWrites(t *testing.T, s engine.Store) {
	put(t, s, "s/1", "one", "s/3", "three", "s/5", "five")
	type kv struct{ k, v string }
	var got []kv
	must(t, s.Update(context.Background(), func(tx engine.Tx) error {
		for _, err := range []error{tx.PutRaw("s/2", []byte("two")), tx.Delete("s/3"), tx.PutRaw("s/6", []byte("six")), tx.PutRaw("s/1", []byte("uno"))} {
			if err != nil {
				return err
			}
		}
		return tx.Scan("s/", "", func(k string, v []byte) error {
			got = append(got, kv{k, string(v)})
			return nil
		})
	}))
	want := []kv{{"s/1", "uno"}, {"s/2", "two"}, {"s/5", "five"}, {"s/6", "six"}}
	if !slices.Equal(got, want) {
		t.Fatalf("scan inside Update = %v, want %v", got, want)
	}
}
