//go:build no_ui

package web

import "io/fs"

// FS is nil: this binary was built with -tags no_ui, without the studio.
var FS fs.FS
