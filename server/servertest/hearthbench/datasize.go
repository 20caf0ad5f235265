package main

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// dataSizes returns the bytes of a closed server's data dir: Badger's
// files (its tables, value log and manifest, at the top of the dir) and
// everything else (the keyword and vector indexes below it).
func dataSizes(dir string) (store, other int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		name := d.Name()
		top := filepath.Dir(path) == dir
		if top && (strings.HasSuffix(name, ".sst") || strings.HasSuffix(name, ".vlog") || strings.HasSuffix(name, ".mem") || name == "MANIFEST") {
			store += info.Size()
		} else {
			other += info.Size()
		}
		return nil
	})
	return store, other, err
}
