package servertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"
)

// Crash stops the server as a SIGKILL would, so that StartDir on the same
// data dir shows what a restart after a crash recovers. Nothing is flushed
// or closed before the crash point: the HTTP server stops taking requests
// and the ingestion workers are halted without putting their jobs back in
// the queue (they stay marked running); then the files of the data dir are
// copied as they are on disk at that instant, which is what a killed
// process leaves (Badger writes its log through a shared mapping, so the
// bytes are in the page cache, not in the process). The copy holds
// Badger's write-ahead log (.mem) not flushed to tables, no vector
// snapshot (the index writes one on close), the keyword indexes as far as
// Bleve persisted them, and no run record still queued in the run log.
//
// The server's run log, index and store are then closed in the old dir,
// which the copy replaces: an open Badger holds a lock on its folder and
// writes on in the background, so abandoning it in this process would
// keep the dir locked and let it write under the restarted server.
func (s *Server) Crash() {
	if s.HTTP == nil {
		return
	}
	s.t.Helper()
	s.Server.CloseConnections()
	s.HTTP.CloseClientConnections()
	s.HTTP.Close()
	s.HTTP = nil
	if s.Memory != nil {
		s.Memory.Halt()
	}
	dir := s.dir
	image := dir + ".crash-image"
	if err := os.RemoveAll(image); err != nil {
		s.t.Fatal(err)
	}
	copyErr := copyCrashImage(dir, image)
	s.RunLog.Close()
	if s.Index != nil {
		s.Index.Close()
	}
	s.closeCluster()
	s.Store.Close()
	if copyErr != nil {
		s.t.Fatalf("crash image of %s: %v", dir, copyErr)
	}
	if err := os.RemoveAll(dir); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Rename(image, dir); err != nil {
		s.t.Fatal(err)
	}
}

// copyCrashImage copies the files under src to dst as they stood at one
// instant. Badger's MANIFEST and Bleve's root.bolt name the table and
// segment files that make up the data; a file they name is complete
// before it is named and deleted only after they change. So a copy taken
// while they stay the same is one a kill could leave: it is retried until
// they do. Runs of zero bytes become holes (Badger preallocates its logs).
func copyCrashImage(src, dst string) error {
	for attempt := 0; ; attempt++ {
		before, err := pointerFiles(src)
		if err != nil {
			return err
		}
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := copyTree(src, dst); err != nil {
			return err
		}
		after, err := pointerFiles(src)
		if err != nil {
			return err
		}
		if maps.Equal(before, after) && !hasEmptyLog(dst) {
			return nil
		}
		if attempt == 100 {
			return errors.New("the data dir kept changing while it was copied")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hasEmptyLog reports a Badger log file (.mem or .vlog) of zero bytes: one
// caught between its creation and its preallocation, which Badger refuses
// to open ("Create a new file"). The copy is taken again a moment later.
func hasEmptyLog(dir string) bool {
	empty := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if ext := filepath.Ext(path); ext == ".mem" || ext == ".vlog" {
			if info, err := d.Info(); err == nil && info.Size() == 0 {
				empty = true
			}
		}
		return nil
	})
	return empty
}

// pointerFiles reads the files under dir that name others: Badger's
// MANIFEST and Bleve's root.bolt.
func pointerFiles(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && (d.Name() == "MANIFEST" || d.Name() == "root.bolt") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] = string(b)
		}
		return nil
	})
	return out, err
}

// copyTree copies every folder and regular file under src to dst; a file
// deleted after the listing is left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path != src {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		case d.Type().IsRegular():
			if err := copySparse(path, filepath.Join(dst, rel)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
		return nil
	})
}

// copySparse copies one file: only its data ranges, and within them runs
// of zero bytes are skipped too, so that holes stay holes; the copy gets
// the source's length.
func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	zero := make([]byte, len(buf))
	for _, r := range dataRanges(in, fi.Size()) {
		for off := r[0]; off < r[1]; {
			n, err := in.ReadAt(buf[:min(int64(len(buf)), r[1]-off)], off)
			if n > 0 && !bytes.Equal(buf[:n], zero[:n]) {
				if _, werr := out.WriteAt(buf[:n], off); werr != nil {
					out.Close()
					return werr
				}
			}
			off += int64(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				out.Close()
				return err
			}
		}
	}
	if err := out.Truncate(fi.Size()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
