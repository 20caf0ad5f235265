package parse

import (
	"strings"
	"testing"
)

// TestOfficeFormats parses files LibreOffice made (testdata/docs/office,
// make.sh): every format keeps the text, the headings and the table rows.
func TestOfficeFormats(t *testing.T) {
	table := []string{"Season | Task", "Spring | Add supers", "Autumn | Feed syrup"}
	for _, tc := range []struct {
		name, ct string
		want     []string
	}{
		{"sample.docx", TypeDOCX, append([]string{"# Beekeeping basics", "## Seasons", "Bees collect nectar from flowers and turn it into honey inside the hive.", "Café crème, naïve — ünïcödé.", "The end."}, table...)},
		{"sample.odt", TypeODT, append([]string{"# Beekeeping basics", "## Seasons", "Bees collect nectar from flowers", "Café crème, naïve — ünïcödé.", "The end."}, table...)},
		{"slides.pptx", TypePPTX, []string{"## Slide 1\n\nTides and the moon", "The moon pulls on the oceans.\n\nHigh tide comes twice a day.", "## Slide 2\n\nSpring tides", "Sun and moon in line make the biggest tides."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := Parse(tc.ct, tc.name, fixture(t, "office/"+tc.name))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			if strings.Contains(text, "\r") || strings.Contains(text, "\n\n\n") {
				t.Errorf("untidy text:\n%q", text)
			}
		})
	}
}
