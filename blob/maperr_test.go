package blob

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/hearth-dev/hearth/engine"
)

// TestMapErrDiskFullAndReadOnly: a full or read-only disk, however the
// error reaches the store (wrapped errno, path error, Badger's text),
// becomes INSUFFICIENT_STORAGE or SERVICE_UNAVAILABLE with a message that
// says so, keeping the cause for the log.
func TestMapErrDiskFullAndReadOnly(t *testing.T) {
	cases := []struct {
		err  error
		code string
	}{
		{fmt.Errorf("write vlog: %w", syscall.ENOSPC), engine.CodeInsufficientStore},
		{&fs.PathError{Op: "write", Path: "/data/000001.vlog", Err: syscall.ENOSPC}, engine.CodeInsufficientStore},
		{errors.New("sync: no space left on device"), engine.CodeInsufficientStore},
		{&fs.PathError{Op: "open", Path: "/data/MANIFEST", Err: syscall.EROFS}, engine.CodeUnavailable},
		{badger.ErrBlockedWrites, engine.CodeUnavailable},
		{badger.ErrConflict, engine.CodeUnavailable},
		{badger.ErrTxnTooBig, engine.CodePayloadTooLarge},
	}
	for _, tc := range cases {
		got := mapErr(tc.err)
		var ee *engine.Error
		if !errors.As(got, &ee) || ee.Code != tc.code || ee.Message == "" || !errors.Is(got, tc.err) {
			t.Errorf("%v: %#v, want code %s wrapping the cause", tc.err, got, tc.code)
		}
	}
	if plain := errors.New("other"); mapErr(plain) != plain {
		t.Error("unknown errors pass through")
	}
}
