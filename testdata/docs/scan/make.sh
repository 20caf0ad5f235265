#!/bin/sh
# Rebuilds the image-only PDF fixtures with Chromium from pages mk.go
# writes: scanned-image.pdf (a page image, no text), scanned-pagenum.pdf
# (the image and a page number) and photo-caption.pdf (the image and a
# paragraph of text). Run it in this directory.
set -e
go run mk.go
for p in scan:scanned-image scan-pagenum:scanned-pagenum photo-caption:photo-caption; do
	chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer --print-to-pdf="../${p#*:}.pdf" "${p%%:*}.html"
done
rm -f scan.html scan-pagenum.html photo-caption.html
