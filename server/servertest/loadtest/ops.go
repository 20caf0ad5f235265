package main

import (
	"fmt"
	"strings"
	"time"
)

// operation is one kind of request of the mix; do(worker, i) runs one.
type operation struct {
	name string
	do   func(worker, i int) error
}

var words = strings.Fields("hearth keeps pipes memories threads and agents in one binary with badger hnsw and bleve inside")

// document returns a few kilobytes of text that differ per (worker, i).
func document(worker, i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Load document %d-%d\n\n", worker, i)
	for j := range 300 {
		b.WriteString(words[(worker*7+i*3+j)%len(words)])
		b.WriteByte(' ')
		if j%25 == 24 {
			b.WriteString("\n\n")
		}
	}
	return []byte(b.String())
}

// upload runs both steps of a document upload.
func upload(c *client, memory, name string, body []byte) error {
	var step1 struct {
		SignedURL string `json:"signedUrl"`
	}
	if err := c.json("POST", "/v1/memory/documents", map[string]any{"memoryName": memory, "fileName": name}, &step1); err != nil {
		return err
	}
	resp, err := c.send("PUT", step1.SignedURL, body, "text/markdown")
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// setup creates the pipe and a memory with a few completed documents.
func setup(c *client) error {
	if err := c.json("POST", "/v1/pipes", map[string]any{"name": "load", "model": "openai:gpt-4o-mini",
		"messages": []any{map[string]any{"role": "system", "content": "You answer {{style}}."}}, "variables": map[string]string{"style": "briefly"}}, nil); err != nil {
		return err
	}
	if err := c.json("POST", "/v1/memory", map[string]any{"name": "kb", "embedding_model": "openai:text-embedding-3-small", "chunk_size": 1000, "chunk_overlap": 100}, nil); err != nil {
		return err
	}
	for i := range 5 {
		if err := upload(c, "kb", fmt.Sprintf("seed-%d.md", i), document(99, i)); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var docs []struct{ Status string }
		if err := c.json("GET", "/v1/memory/kb/documents", nil, &docs); err != nil {
			return err
		}
		done := 0
		for _, d := range docs {
			switch d.Status {
			case "completed":
				done++
			case "failed":
				return fmt.Errorf("a seed document failed to ingest")
			}
		}
		if done == len(docs) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("seed documents not ingested in time")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func operations(c *client) []operation {
	run := func(stream bool) map[string]any {
		return map[string]any{"name": "load", "stream": stream, "messages": []any{map[string]any{"role": "user", "content": "How does hearth store memories?"}}}
	}
	return []operation{
		{"run json", func(int, int) error {
			var out struct {
				Completion string `json:"completion"`
			}
			if err := c.json("POST", "/v1/pipes/run", run(false), &out); err != nil {
				return err
			}
			if out.Completion == "" {
				return fmt.Errorf("empty completion")
			}
			return nil
		}},
		{"run stream", func(int, int) error { return c.stream("/v1/pipes/run", run(true)) }},
		{"retrieve", func(int, int) error {
			var hits []struct {
				Text string `json:"text"`
			}
			if err := c.json("POST", "/v1/memory/retrieve", map[string]any{"query": "pipes and memories in one binary", "memory": []map[string]string{{"name": "kb"}}, "topK": 5}, &hits); err != nil {
				return err
			}
			if len(hits) == 0 {
				return fmt.Errorf("no chunks retrieved")
			}
			return nil
		}},
		{"upload", func(w, i int) error { return upload(c, "kb", fmt.Sprintf("doc-%d-%d.md", w, i), document(w, i)) }},
	}
}
