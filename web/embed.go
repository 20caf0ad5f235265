//go:build !no_ui

package web

import (
	"embed"
	"io/fs"
)

//go:embed all:static
var static embed.FS

// FS holds the studio: index.html at the root and the assets under
// assets/. It is nil in builds made with -tags no_ui.
var FS fs.FS = mustSub(static, "static")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
