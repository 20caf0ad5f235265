#!/bin/sh
# Rebuilds the office fixtures with LibreOffice (Debian packages
# libreoffice-writer-nogui and libreoffice-impress-nogui), from
# sample.html (Writer formats) and slides.fodp (PowerPoint). Run it in
# this directory.
set -e
for f in 'docx:MS Word 2007 XML' odt rtf epub; do
	soffice --headless --infilter="HTML (StarWriter)" --convert-to "$f" sample.html
done
soffice --headless --convert-to pptx slides.fodp
