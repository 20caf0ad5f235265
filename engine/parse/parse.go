// Package parse turns uploaded document bytes into plain text for chunking:
// PDF, plain text (including code files), markdown, CSV, xlsx, xls, docx, pptx,
// odt, EPUB and RTF. It is pure:
// bytes in, text or an *engine.Error out, no I/O and no shared state, so it is
// safe to call from any number of goroutines.
//
// Every failure is an *engine.Error whose Message is fit for a document's
// status_message or a /v1/parser answer, such as "document is empty" or
// "PDF is encrypted". The size of an upload is bounded by the upload layer;
// the size of the text a document produces is bounded here (Options), so
// that a small file cannot expand into gigabytes of text.
package parse

import (
	"fmt"
	"mime"
	"path"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// The document content types Langbase accepts (SDK ContentType union).
const (
	TypePDF      = "application/pdf"
	TypeText     = "text/plain"
	TypeMarkdown = "text/markdown"
	TypeCSV      = "text/csv"
	TypeXLSX     = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	TypeXLS      = "application/vnd.ms-excel"
	TypeDOCX     = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	TypePPTX     = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	TypeODT      = "application/vnd.oasis.opendocument.text"
	TypeEPUB     = "application/epub+zip"
	TypeRTF      = "application/rtf"
	// TypeHTML is accepted for .html and .htm files besides text/plain:
	// text/plain keeps the markup as written, text/html renders the text.
	TypeHTML = "text/html"
)

// ContentTypes returns the allowed document content types.
func ContentTypes() []string {
	return []string{TypePDF, TypeText, TypeMarkdown, TypeCSV, TypeXLSX, TypeXLS, TypeDOCX, TypePPTX, TypeODT, TypeEPUB, TypeRTF, TypeHTML}
}

// typeByExt maps a lower-case extension to the one content type it must be
// sent with. Code and config files are all text/plain.
func typeByExt(ext string) (string, bool) {
	switch ext {
	case ".pdf":
		return TypePDF, true
	case ".md", ".markdown", ".mdx":
		return TypeMarkdown, true
	case ".csv":
		return TypeCSV, true
	case ".xlsx":
		return TypeXLSX, true
	case ".xls":
		return TypeXLS, true
	case ".docx":
		return TypeDOCX, true
	case ".pptx":
		return TypePPTX, true
	case ".odt":
		return TypeODT, true
	case ".epub":
		return TypeEPUB, true
	case ".rtf":
		return TypeRTF, true
	case ".txt", ".text", ".log", ".rst", ".tex",
		".go", ".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".java", ".kt", ".kts", ".scala",
		".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".m", ".mm", ".swift",
		".rb", ".php", ".pl", ".pm", ".lua", ".r", ".jl", ".dart", ".ex", ".exs", ".erl", ".hs",
		".clj", ".elm", ".ml", ".fs", ".vue", ".svelte", ".astro",
		".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd",
		".sql", ".graphql", ".gql", ".proto",
		".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".properties",
		".xml", ".html", ".htm", ".css", ".scss", ".sass", ".less", ".svg",
		".mk", ".cmake", ".gradle", ".tf", ".hcl", ".nix", ".dockerfile", ".gitignore":
		return TypeText, true
	}
	return "", false
}

// MediaType returns the lower-case media type of a Content-Type header value,
// without parameters such as "; charset=utf-8".
func MediaType(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// TypeForName returns the content type a document with this name must be
// sent with, judged by its extension: ".pdf" is application/pdf, ".md",
// ".markdown" and ".mdx" are text/markdown, ".csv" is text/csv, ".xlsx" and
// ".xls" are the spreadsheet types, ".txt" and code files are text/plain. A
// name with another extension, or none (such as "Makefile"), may only be sent
// as text/plain, and ok is false.
func TypeForName(documentName string) (contentType string, ok bool) {
	return typeByExt(strings.ToLower(path.Ext(documentName)))
}

// CheckContentType checks that contentType is an allowed document type and
// fits documentName's extension (see TypeForName), and returns the bare
// media type. Failures are UNSUPPORTED_MEDIA_TYPE errors on the
// Content-Type field whose message names the rule broken.
func CheckContentType(contentType, documentName string) (string, error) {
	mt := MediaType(contentType)
	if !allowed(mt) {
		if mt == "" {
			return "", mediaError("is missing; send one of %s", strings.Join(ContentTypes(), ", "))
		}
		return "", mediaError("%q is not supported; send one of %s", mt, strings.Join(ContentTypes(), ", "))
	}
	want, known := TypeForName(documentName)
	if !known {
		if mt != TypeText {
			return "", mediaError("%q does not match document %q: a file without a known extension must be sent as text/plain", mt, documentName)
		}
		return mt, nil
	}
	if mt == TypeHTML && isHTMLName(documentName) {
		return mt, nil
	}
	if mt != want {
		return "", mediaError("%q does not match document %q: %s files must be sent as %s", mt, documentName, strings.ToLower(path.Ext(documentName)), want)
	}
	return mt, nil
}

func allowed(mt string) bool {
	for _, t := range ContentTypes() {
		if mt == t {
			return true
		}
	}
	return false
}

func mediaError(format string, args ...any) *engine.Error {
	return &engine.Error{Code: engine.CodeUnsupportedMedia, Field: "Content-Type", Message: "Content-Type " + fmt.Sprintf(format, args...)}
}

// docError reports a document that cannot be turned into text.
func docError(format string, args ...any) *engine.Error {
	return &engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: fmt.Sprintf(format, args...)}
}

// Parse extracts the text of a document. contentType selects the parser and
// must fit documentName (see CheckContentType); when it is empty or
// application/octet-stream, as multipart uploads often send, it is taken
// from documentName's extension instead. The text uses "\n" line ends and
// is valid UTF-8. Empty, binary, corrupt, encrypted or text-less documents
// fail with a message that says which. The text is bounded by
// DefaultMaxOutput; ParseWith takes other bounds.
func Parse(contentType, documentName string, data []byte) (string, error) {
	return ParseWith(contentType, documentName, data, Options{})
}

// ParseWith is Parse with explicit bounds: a document whose text would
// pass opt.MaxOutput fails with ErrOutputTooLarge, and the parsers stop
// as soon as they pass it, so memory stays proportional to the limit.
func ParseWith(contentType, documentName string, data []byte, opt Options) (string, error) {
	limit := opt.maxOutput()
	mt, err := CheckContentType(defaultType(contentType, documentName), documentName)
	if err != nil {
		return "", err
	}
	if len(data) == 0 {
		return "", docError("document is empty")
	}
	switch mt {
	case TypePDF:
		return parsePDF(data, limit)
	case TypeMarkdown:
		return parseMarkdown(data, limit)
	case TypeCSV:
		return parseCSV(data, limit)
	case TypeXLSX:
		return parseXLSX(data, limit)
	case TypeDOCX:
		return parseDOCX(data, limit)
	case TypePPTX:
		return parsePPTX(data, limit)
	case TypeODT:
		return parseODT(data, limit)
	case TypeRTF:
		return parseRTF(data, limit)
	case TypeEPUB:
		return parseEPUB(data, limit)
	case TypeHTML:
		return parseHTML(data, limit)
	case TypeXLS:
		return parseXLS(data, limit)
	}
	return parseText(data, limit)
}

// defaultType returns contentType, or the type documentName's extension
// asks for when contentType is empty or application/octet-stream.
func defaultType(contentType, documentName string) string {
	if mt := MediaType(contentType); mt == "" || mt == "application/octet-stream" {
		if t, ok := TypeForName(documentName); ok {
			return t
		}
		return TypeText
	}
	return contentType
}

// EffectiveType returns the media type Parse would parse a document as,
// or "" when Parse would refuse the type.
func EffectiveType(contentType, documentName string) string {
	mt, err := CheckContentType(defaultType(contentType, documentName), documentName)
	if err != nil {
		return ""
	}
	return mt
}

// isHTMLName reports whether a document name has an HTML extension.
func isHTMLName(documentName string) bool {
	ext := strings.ToLower(path.Ext(documentName))
	return ext == ".html" || ext == ".htm"
}
