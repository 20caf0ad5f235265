package server

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// Documents of readable memories are read-only MCP resources named
// hearth://memory/<memory>/<document> (each part path-escaped). Reading
// one returns the text Hearth indexed, chunk after chunk, separated by a
// blank line; overlapping chunks repeat their overlap.
const mcpDocScheme = "hearth://memory/"

// mcpResource is one entry of resources/list.
type mcpResource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// mcpTemplate is one entry of resources/templates/list.
type mcpTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// documentURI is the resource URI of a memory's document.
func documentURI(mem, doc string) string {
	return mcpDocScheme + url.PathEscape(mem) + "/" + url.PathEscape(doc)
}

// parseDocumentURI splits a document URI into its memory and document.
func parseDocumentURI(uri string) (mem, doc string, ok bool) {
	rest, found := strings.CutPrefix(uri, mcpDocScheme)
	if !found {
		return "", "", false
	}
	m, d, found := strings.Cut(rest, "/")
	if !found || m == "" || d == "" || strings.Contains(d, "/") {
		return "", "", false
	}
	mem, err1 := url.PathUnescape(m)
	doc, err2 := url.PathUnescape(d)
	return mem, doc, err1 == nil && err2 == nil
}

func mcpTemplates() map[string]any {
	return map[string]any{"resourceTemplates": []mcpTemplate{{URITemplate: mcpDocScheme + "{memory}/{document}", Name: "document",
		Title: "Memory document", MimeType: "text/plain", Description: "The indexed text of a document of a memory this key may read."}}}
}

// mcpResourcePage is the most resources one resources/list page holds.
const mcpResourcePage = 500

type mcpListParams struct {
	Cursor string `json:"cursor"`
}

// mcpResourcesList answers resources/list: every document of every
// memory the key may read (none for a pipe key), mcpResourcePage at a
// time; nextCursor is the position of the next page.
func (s *Server) mcpResourcesList(c echo.Context, params json.RawMessage) (any, error) {
	var lp mcpListParams
	if err := unmarshalParams(params, &lp); err != nil {
		return nil, err
	}
	all, err := s.documentResources(c)
	if err != nil {
		return nil, err
	}
	page, next, err := pageOf(all, lp.Cursor, mcpResourcePage)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"resources": page}
	if next != "" {
		out["nextCursor"] = next
	}
	return out, nil
}

// pageOf returns the page of list starting at cursor (a position, "" for
// the first page) and the cursor of the next page ("" after the last).
func pageOf[T any](list []T, cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 || n > len(list) {
			return nil, "", &rpcError{Code: rpcInvalidParams, Message: "cursor is not one this server gave", Data: &rpcErrorData{Code: engine.CodeBadRequest, Field: "cursor"}}
		}
		start = n
	}
	end := min(start+size, len(list))
	next := ""
	if end < len(list) {
		next = strconv.Itoa(end)
	}
	return list[start:end], next, nil
}

// documentResources lists the documents of the memories the key may read.
func (s *Server) documentResources(c echo.Context) ([]mcpResource, error) {
	ctx, p := c.Request().Context(), principal(c)
	out := []mcpResource{}
	if !p.IsOwnerKey() {
		return out, nil
	}
	mems, err := s.readableMemories(ctx, p)
	if err != nil {
		return nil, err
	}
	for _, m := range mems {
		_, docs, err := s.deps.Memory.Documents(ctx, p.Owner, m.Name)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			out = append(out, mcpResource{URI: documentURI(m.Name, d.Name), Name: d.Name, Title: m.Name + "/" + d.Name,
				MimeType: "text/plain", Description: "Document " + d.Name + " of memory " + m.Name + " (" + d.Status + ")"})
		}
	}
	return out, nil
}

type mcpReadParams struct {
	URI string `json:"uri"`
}

// mcpResourcesRead answers resources/read with a document's indexed
// text. A document outside the key's scope is invalid params, one that
// does not exist MCP's resource-not-found; each read is in the run log.
func (s *Server) mcpResourcesRead(c echo.Context, params json.RawMessage) (any, error) {
	var rp mcpReadParams
	if err := unmarshalParams(params, &rp); err != nil {
		return nil, err
	}
	mem, doc, ok := parseDocumentURI(rp.URI)
	if !ok {
		return nil, &rpcError{Code: rpcInvalidParams, Message: "uri must be " + mcpDocScheme + "<memory>/<document>",
			Data: &rpcErrorData{Code: engine.CodeBadRequest, Field: "uri"}}
	}
	ctx, p := c.Request().Context(), principal(c)
	start := time.Now()
	text, err := s.documentText(c, p, mem, doc)
	var res *mcpToolResult
	if err != nil {
		res, _ = toolResult(nil, err)
	}
	s.mcpRecord(ctx, p, start, "resources/read", "hearth", res)
	if err != nil {
		return nil, rpcFromEngine(err, rpcResourceNotFound)
	}
	return map[string]any{"contents": []mcpContent{{URI: rp.URI, MimeType: "text/plain", Text: text}}}, nil
}

// documentText reads a document's live chunks, page by page.
func (s *Server) documentText(c echo.Context, p *engine.Principal, mem, doc string) (string, error) {
	if !p.IsOwnerKey() {
		return "", &engine.Error{Code: engine.CodeForbidden, Field: "scope", Message: "a pipe key can only run its pipe; use a user or org key to read documents"}
	}
	if err := p.Scope.CheckMemory(mem); err != nil {
		return "", err
	}
	var b strings.Builder
	for offset := 0; ; {
		page, err := s.deps.Memory.DocumentChunks(c.Request().Context(), p.Owner, mem, doc, offset, memory.MaxChunkPage)
		if err != nil {
			return "", err
		}
		for _, ch := range page.Chunks {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(ch.Text)
		}
		offset += len(page.Chunks)
		if len(page.Chunks) == 0 || offset >= page.Total {
			return b.String(), nil
		}
	}
}
