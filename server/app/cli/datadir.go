package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// checkDataDir makes sure the data directory exists and is writable before
// anything opens it, so a read-only disk or a directory owned by another
// user ends the start with one clear line instead of a failure deep in the
// store.
func checkDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s cannot be created: %w", dir, cause(err))
	}
	f, err := os.CreateTemp(dir, ".hearth-write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable (%w): check its owner and permissions, and that its disk is mounted read-write and not full", dir, cause(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// cause drops the path from a *fs.PathError (the message names the dir).
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
