package providers

import (
	"testing"
	"time"
)

// TestCatalogueData: the catalogue is dated, lists current models, not
// retired ones, and every entry is priced as text or as image.
func TestCatalogueData(t *testing.T) {
	if _, err := time.Parse("2006-01-02", CatalogueAsOf()); err != nil {
		t.Errorf("as_of %q is not a date: %v", CatalogueAsOf(), err)
	}
	listed := func(p, m string) bool { _, ok := CatalogueEntry(p, m); return ok }
	for _, m := range []string{"claude-3-5-haiku-latest", "claude-3-7-sonnet-latest", "claude-sonnet-4-0"} {
		if listed("anthropic", m) {
			t.Errorf("retired anthropic:%s is listed", m)
		}
	}
	for _, pm := range [][2]string{{"anthropic", "claude-opus-4-7"}, {"anthropic", "claude-sonnet-4-6"}, {"openai", "gpt-5.2"},
		{"google", "gemini-3-pro-preview"}, {"xai", "grok-4-1-fast-reasoning"}, {"hearth", EchoModel}} {
		if !listed(pm[0], pm[1]) {
			t.Errorf("%s:%s is not listed", pm[0], pm[1])
		}
	}
	for _, bad := range []string{
		`{"providers":{"x":{"models":[{"model":"m","prompt":1}]}}}`,
		`{"providers":{"x":{"models":[{"model":"m","prompt":1,"completion":2,"image":0.1}]}}}`,
		`{"providers":{"x":{"models":[{"prompt":1,"completion":2}]}}}`,
	} {
		if _, _, _, err := loadCatalogue([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
