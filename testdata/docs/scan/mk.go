// Command mk writes the pages make.sh prints to PDF with Chromium: a
// grey "scanned" page image (no text) alone, with a page number, and
// beside a paragraph of real text.
package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

func main() {
	img := image.NewGray(image.Rect(0, 0, 600, 800))
	for y := 0; y < 800; y++ {
		for x := 0; x < 600; x++ {
			v := uint8(235)
			if (y/20)%2 == 0 && y > 60 && y < 740 && x > 50 && x < 550 && (x*7+y*3)%11 < 6 {
				v = 40 // lines of "print"
			}
			img.SetGray(x, y, color.Gray{v})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	tag := `<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(b.Bytes()) + `" style="width:90%">`
	page := func(name, body string) {
		html := `<!doctype html><html><head><meta charset="utf-8"><style>@page{margin:0}body{margin:0}</style></head><body>` + body + `</body></html>`
		if err := os.WriteFile(name, []byte(html), 0o644); err != nil {
			panic(err)
		}
	}
	page("scan.html", tag)
	page("scan-pagenum.html", tag+`<p style="text-align:center">- 1 -</p>`)
	page("photo-caption.html", `<p>Bees collect nectar from flowers and turn it into honey inside the hive.</p>`+tag)
	fmt.Println("ok")
}
