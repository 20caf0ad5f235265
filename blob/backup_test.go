package blob

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestBackupRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := openT(t, Options{Dir: t.TempDir()})
	must(t, src.Update(ctx, func(tx engine.Tx) error {
		for i := 0; i < 500; i++ {
			if err := tx.Put("rec/"+string(rune('a'+i%26))+"/"+string(rune('0'+i%10))+"/"+itoa(i), rec{"r", i}); err != nil {
				return err
			}
		}
		return nil
	}))
	doc := bytes.Repeat([]byte("document bytes "), 100000)
	_, err := src.PutBlob(ctx, "doc", bytes.NewReader(doc))
	must(t, err)

	var buf bytes.Buffer
	must(t, src.Backup(ctx, &buf)) // taken while the store is open and writable

	dir := filepath.Join(t.TempDir(), "restored")
	must(t, Restore(dir, bytes.NewReader(buf.Bytes())))
	dst := openT(t, Options{Dir: dir})
	n := 0
	must(t, dst.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("rec/", "", func(string, []byte) error { n++; return nil })
	}))
	got, err := dst.GetBlob(ctx, "doc")
	must(t, err)
	if n != 500 || !bytes.Equal(got, doc) {
		t.Fatalf("restored %d records, blob equal %v", n, bytes.Equal(got, doc))
	}
	// Restoring over data is refused.
	if err := Restore(dir, bytes.NewReader(buf.Bytes())); !errors.Is(err, ErrLocked) && !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("restore over live data: %v", err)
	}
	if err := Restore(filepath.Join(t.TempDir(), "x"), bytes.NewReader([]byte("garbage"))); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestRestoreRefusesLiveDir(t *testing.T) {
	dir := t.TempDir()
	live := openT(t, Options{Dir: dir})
	var buf bytes.Buffer
	must(t, live.Backup(context.Background(), &buf))
	if err := Restore(dir, &buf); !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}
