//go:build no_ui

package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStudioLeftOut runs with -tags no_ui: /studio explains that the UI
// was left out, as a JSON error, and the API is unaffected.
func TestStudioLeftOut(t *testing.T) {
	ts := servertest.Start(t)
	for _, p := range []string{"/studio", "/studio/pipes/admin/x", "/studio/assets/js/app.js"} {
		r := ts.Do(http.MethodGet, p, "", nil)
		if r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), "no_ui") {
			t.Errorf("%s: %d %s", p, r.Status, r.Body)
		}
	}
	if r := ts.Do(http.MethodGet, "/health", "", nil); r.Status != http.StatusOK {
		t.Fatalf("health: %d", r.Status)
	}
}
