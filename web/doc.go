// Package web embeds the studio, Hearth's web UI: plain HTML, CSS and ES
// modules with no build step, served by the server at /studio/. The UI
// makes no request outside its own origin (no CDN fonts or scripts).
//
// Build with -tags no_ui to leave the UI out of the binary (headless
// installs); FS is then nil and /studio answers a short notice instead.
package web

// Notice is the answer of /studio in a build without the UI.
const Notice = "the studio (web UI) was left out of this build (built with -tags no_ui); the API is unaffected"
