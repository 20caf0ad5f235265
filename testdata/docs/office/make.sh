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
# Excel 97-2003 workbooks (Debian package libreoffice-calc-nogui): sheet.fods
# is a flat OpenDocument spreadsheet; small.csv makes a workbook small
# enough for the compound file's mini stream.
soffice --headless --convert-to 'xls:MS Excel 97' sheet.fods
soffice --headless --convert-to 'xls:MS Excel 97' small.csv
