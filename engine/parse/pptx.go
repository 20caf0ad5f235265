package parse

import (
	"encoding/xml"
	"fmt"
)

// parsePPTX reads the slides in presentation order (ppt/presentation.xml
// and its relationships): each starts with a "## Slide N" line followed by
// its text paragraphs; tables are rows of cells joined by " | ". Speaker
// notes and masters are left out.
func parsePPTX(data []byte, max int) (string, error) {
	z, err := openZipDoc("pptx", data, max)
	if err != nil {
		return "", err
	}
	var pres struct {
		Slides []struct {
			RID string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sldIdLst>sldId"`
	}
	if err := z.decode("ppt/presentation.xml", &pres); err != nil {
		return "", err
	}
	targets, err := z.relTargets("ppt/_rels/presentation.xml.rels", "ppt")
	if err != nil {
		return "", err
	}
	n := 0
	for _, s := range pres.Slides {
		part, ok := targets[s.RID]
		if !ok || z.parts[part] == nil {
			continue
		}
		n++
		if err := z.write(fmt.Sprintf("## Slide %d\n\n", n)); err != nil {
			return "", err
		}
		p := &paragraphs{z: z}
		err := z.walk(part, func(tok xml.Token, path []string) error {
			switch t := tok.(type) {
			case xml.StartElement:
				switch t.Name.Local {
				case "br":
					return p.text("\n")
				case "tbl":
					p.inTable++
				}
			case xml.EndElement:
				switch {
				case t.Name.Local == "p" && t.Name.Space == drawingNS:
					return p.endParagraph()
				case t.Name.Local == "tc" && p.inTable > 0:
					return p.endCell()
				case t.Name.Local == "tr" && p.inTable > 0:
					return p.endRow()
				case t.Name.Local == "tbl" && p.inTable > 0:
					return p.endTable()
				}
			case xml.CharData:
				if under(path, "r", "t") || under(path, "fld", "t") {
					return p.text(string(t))
				}
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return z.result()
}

// drawingNS is DrawingML's namespace, whose <a:p> are text paragraphs.
const drawingNS = "http://schemas.openxmlformats.org/drawingml/2006/main"
