package blob

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// backupMagic starts every backup stream (inside the zstd frame).
const backupMagic = "HEARTH-BACKUP 1\n"

// Backup writes a consistent, zstd-compressed snapshot of the whole store
// to w. It reads one Badger snapshot, so it is safe while the server runs.
func (s *Store) Backup(ctx context.Context, w io.Writer) error {
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return err
	}
	if _, err := io.WriteString(zw, backupMagic); err != nil {
		zw.Close()
		return err
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.db.Backup(ctxWriter{ctx, zw}, 0)
		done <- err
	}()
	if err := <-done; err != nil {
		zw.Close()
		return fmt.Errorf("backup: %w", err)
	}
	return zw.Close()
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// ErrNotEmpty is returned by Restore into a data dir that already holds data.
var ErrNotEmpty = errors.New("data dir is not empty")

// Restore loads a backup made by Backup into dir, which must be empty or
// missing. A dir held by a running server is refused (ErrLocked).
func Restore(dir string, r io.Reader) error { return RestoreWith(Options{Dir: dir}, r) }

// RestoreWith is Restore into opts.Dir, written with the store options
// opts (the ones the server opens the data dir with).
func RestoreWith(opts Options, r io.Reader) error {
	dir := opts.Dir
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			s := New(Options{Dir: dir, ReadOnly: true})
			if err := s.Open(); errors.Is(err, ErrLocked) {
				return err
			} else if err == nil {
				s.Close()
			}
		}
	}
	for _, e := range entries {
		if e.Name() != "secret.key" {
			return fmt.Errorf("%w: %s holds %s", ErrNotEmpty, dir, e.Name())
		}
	}
	zr, err := zstd.NewReader(r)
	if err != nil {
		return fmt.Errorf("restore: not a Hearth backup: %w", err)
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 1<<20)
	head := make([]byte, len(backupMagic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != backupMagic {
		return errors.New("restore: not a Hearth backup (bad header)")
	}
	s := New(opts)
	if err := s.Open(); err != nil {
		return err
	}
	if err := s.db.Load(br, 64); err != nil {
		s.Close()
		return fmt.Errorf("restore: %w", err)
	}
	return s.Close()
}
