package server

import "github.com/hearth-dev/hearth/engine"

// sourceView is one memory chunk a run used, answered when the run asks
// with include_sources (see docs/pipes-and-threads.md#sources).
type sourceView struct {
	Memory   string  `json:"memory"`
	Document string  `json:"document"`
	Chunk    string  `json:"chunk"`
	Score    float64 `json:"score"`
	Text     string  `json:"text"`
	// Heading and Section: docs/memories-and-retrieval.md#structure-aware-chunking.
	Heading string `json:"heading,omitempty"`
	Section string `json:"section,omitempty"`
}

// sourcesEvent is the extra stream event carrying a run's sources, sent
// once before [DONE]. It is shaped like the usage chunk (choices: []) and
// repeats the last chunk's id, model and created: the langbase SDK's
// getRunner starts a new completion when the id changes, and with the same
// id it merges sources into its final completion.
type sourcesEvent struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []struct{}   `json:"choices"`
	Sources []sourceView `json:"sources"`
}

// sourcesTrailer returns the trailer of an eventWriter that sends sources.
func sourcesTrailer(chunks []engine.RAGChunk) func(last *engine.ChatChunk) any {
	return func(last *engine.ChatChunk) any {
		ev := sourcesEvent{Object: "chat.completion.chunk", Choices: []struct{}{}, Sources: sourcesOf(chunks)}
		if last != nil {
			ev.ID, ev.Created, ev.Model = last.ID, last.Created, last.Model
		}
		return ev
	}
}

// sourcesOf converts retrieved chunks to their answer form; never nil, so
// a run that asked for sources always gets the array.
func sourcesOf(chunks []engine.RAGChunk) []sourceView {
	out := make([]sourceView, len(chunks))
	for i, c := range chunks {
		out[i] = sourceView{Memory: c.Memory, Document: c.DocName, Chunk: c.ChunkID, Score: c.Score, Text: c.Text,
			Heading: c.Heading, Section: c.Section}
	}
	return out
}
