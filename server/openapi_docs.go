package server

import (
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
)

// RouteDoc documents one route in /openapi.json (Route.Doc, in the route
// table next to its handler). Request and Response are
// zero values of the types the handler decodes and encodes; their schemas
// are reflected from the JSON tags.
type RouteDoc struct {
	Summary     string
	Description string
	Request     any
	Response    any
	// Query lists the query parameters the route reads.
	Query []string
	// Stream marks routes that answer text/event-stream when asked.
	Stream bool
	// RawType is the content type of a non-JSON success body.
	RawType string
	// RequestType is the content type of a non-JSON request body.
	RequestType string
}

// Doc-only shapes of small bodies the handlers decode inline.
type (
	keyCreateView struct {
		Key  string  `json:"key"`
		Info keyView `json:"info"`
	}
	keysetSetBody struct {
		Key string `json:"key"`
	}
	successView struct {
		Success bool `json:"success"`
	}
	meView struct {
		Login   string            `json:"login"`
		Kind    string            `json:"kind"`
		Members []string          `json:"members"`
		Key     map[string]string `json:"key"`
	}
	threadCreateBody struct {
		ThreadID string                      `json:"threadId"`
		Metadata map[string]string           `json:"metadata"`
		Messages []engine.ThreadMessageInput `json:"messages"`
	}
	threadUpdateBody struct {
		Metadata map[string]string `json:"metadata"`
	}
	threadAppendBody struct {
		Messages []engine.ThreadMessageInput `json:"messages"`
	}
	traceCreateView struct {
		Success bool   `json:"success"`
		ID      string `json:"id"`
	}
	memorySetsView struct {
		MemorySets []memoryItem `json:"memorySets"`
	}
	uploadURLBody struct {
		MemoryName   string            `json:"memoryName"`
		DocumentName string            `json:"documentName"`
		FileName     string            `json:"fileName"`
		Meta         map[string]string `json:"meta"`
		Chunking     *chunk.Settings   `json:"chunking,omitempty"`
	}
	uploadURLView struct {
		SignedURL string    `json:"signedUrl"`
		ExpiresAt time.Time `json:"expiresAt"`
	}
	uploadView struct {
		OK             bool   `json:"ok"`
		Status         int    `json:"status"`
		StatusText     string `json:"statusText"`
		MemoryName     string `json:"memoryName"`
		DocumentName   string `json:"documentName"`
		Size           int64  `json:"size"`
		ContentType    string `json:"contentType"`
		DocumentStatus string `json:"documentStatus"`
	}
	retryView struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
	}
	embedBody struct {
		Chunks         []string `json:"chunks"`
		EmbeddingModel string   `json:"embeddingModel"`
	}
	chunkerBody struct {
		Content        string `json:"content"`
		ChunkMaxLength int    `json:"chunkMaxLength"`
		ChunkOverlap   int    `json:"chunkOverlap"`
	}
	parserView struct {
		DocumentName string `json:"documentName"`
		Content      string `json:"content"`
	}
	routesView struct {
		Success bool        `json:"success"`
		Message string      `json:"message"`
		Routes  []routeInfo `json:"routes"`
	}
)
