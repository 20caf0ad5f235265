package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// runBody is the body of POST /v1/pipes/run and of the beta runs, as the
// API reference and encoding/json see it (pipeRun is what the handlers
// decode it into). SDK-only keys (apiKey, rawResponse, runTools) are
// ignored.
type runBody struct {
	Name      string             `json:"name"`
	Messages  []engine.Message   `json:"messages"`
	Variables engine.Variables   `json:"variables"`
	ThreadID  string             `json:"threadId"`
	Stream    *bool              `json:"stream"`
	JSON      *bool              `json:"json"`
	Tools     []engine.Tool      `json:"tools"`
	Memory    []engine.MemoryRef `json:"memory"`
	LLMKey    string             `json:"llmKey"`
	// IncludeSources asks for the memory chunks the run used: a sources
	// array in the JSON answer, or one extra event before [DONE].
	IncludeSources bool `json:"include_sources"`
	// Version runs that version of the pipe (docs/pipes-and-threads.md#pipe-versions);
	// absent or 0 runs the latest.
	Version int `json:"version"`
}

// pipeRun is the memory of one pipe run request, allocated once: the
// decoded body, whose fields the engine's run request holds (decoded
// straight into run instead of into a runBody copied over), the
// admitter, the answer and the engine's prepared run. The prepared run's
// record (its id among them) is written after the handler returns, so
// pipeRun is never reused.
type pipeRun struct {
	// run holds the body's name, messages, variables, threadId, json,
	// tools, memory, llmKey and version; request fills in the rest.
	run            engine.RunRequest
	stream         *bool
	includeSources bool
	// admit is run's Admit: kept here, it costs no allocation of its own.
	admit pipeAdmitter
	// answer is completeRun's memory for the non-stream answer, and
	// prepared the engine's prepared run (Runner.PrepareIn).
	answer   runAnswer
	prepared engine.PreparedRun
}

// UnmarshalJSON decodes a pipe run body through runBody.
func (b *pipeRun) UnmarshalJSON(data []byte) error {
	var rb runBody
	if err := json.Unmarshal(data, &rb); err != nil {
		return err
	}
	b.run.Name, b.run.Messages, b.run.Variables, b.run.ThreadID = rb.Name, rb.Messages, rb.Variables, rb.ThreadID
	b.run.JSON, b.run.Tools, b.run.Memory, b.run.LLMKey, b.run.Version = rb.JSON, rb.Tools, rb.Memory, rb.LLMKey, rb.Version
	b.stream, b.includeSources = rb.Stream, rb.IncludeSources
	return nil
}

// runAnswer is the memory of a run's answer: the non-stream answer handed
// to the writer (a pointer, not an interface value of its own) and the
// lb-thread-id and lb-model header values (stream or not). It is kept in
// the run's memory (pipeRun), which is on the heap already.
type runAnswer struct {
	out     runResponse
	headers [2]string
}

// runResponse is the non-stream answer: the SDK merges raw into its result.
type runResponse struct {
	Success    bool    `json:"success"`
	Completion string  `json:"completion"`
	Raw        rawView `json:"raw"`
	// Sources is present when the run asked for it (include_sources).
	Sources *[]sourceView `json:"sources,omitempty"`
}

type rawView struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	Provider          string          `json:"provider"`
	Choices           []engine.Choice `json:"choices"`
	Usage             engine.Usage    `json:"usage"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	// Sources repeats runResponse.Sources: the langbase SDK returns only
	// completion and the fields of raw, so this is where its users see them.
	Sources *[]sourceView `json:"sources,omitempty"`
}

// request completes the decoded run request: the caller, the endpoint,
// stream and admit, and the provider key of the LB-LLM-Key header over
// the body's llmKey.
func (b *pipeRun) request(c echo.Context, endpoint string, stream bool, admit engine.Admitter) *engine.RunRequest {
	if key := llmKey(c.Request().Header); key != "" {
		b.run.LLMKey = key
	}
	b.run.Principal, b.run.Endpoint, b.run.Stream, b.run.Admit = principal(c), endpoint, stream, admit
	return &b.run
}

// handlePipeRun serves POST /v1/pipes/run. It streams only when the body
// says "stream": true — the SDK reads any other answer as JSON, whatever
// the pipe's own stream setting.
func (s *Server) handlePipeRun(c echo.Context) error {
	b := new(pipeRun)
	if err := decodeJSON(c, b); err != nil {
		return err
	}
	stream := b.stream != nil && *b.stream
	if _, err := s.useCache(c, principal(c).Owner, "cache", ""); err != nil {
		return err
	}
	pr, err := s.deps.Runner.PrepareIn(c.Request().Context(), b.request(c, "/v1/pipes/run", stream, s.admitPipe(c, &b.admit)), &b.prepared)
	if err != nil {
		return err
	}
	if stream {
		setThreadHeaderIn(c.Response().Header(), pr.ThreadID, &b.answer.headers)
		w := newSSEWriter(c)
		if b.includeSources {
			w.trailer = sourcesTrailer(pr.Sources)
		}
		return s.streamRun(c, pr, w, &b.answer.headers)
	}
	return s.completeRun(c, pr, b.includeSources, &b.answer)
}

// handleBetaRun serves the beta runs. They stream when the body's stream
// is true, or when it is absent and the pipe streams; the stream is one
// JSON chunk per line (application/octet-stream, as the beta API
// describes it), or SSE when the client asks with Accept: text/event-stream.
func (s *Server) handleBetaRun(endpoint string) echo.HandlerFunc {
	return func(c echo.Context) error {
		b := new(pipeRun)
		if err := decodeJSON(c, b); err != nil {
			return err
		}
		if _, err := s.useCache(c, principal(c).Owner, "cache", ""); err != nil {
			return err
		}
		pr, err := s.deps.Runner.PrepareIn(c.Request().Context(), b.request(c, endpoint, false, s.admitPipe(c, &b.admit)), &b.prepared)
		if err != nil {
			return err
		}
		stream := pr.Pipe.Stream
		if b.stream != nil {
			stream = *b.stream
		}
		if !stream {
			return s.completeRun(c, pr, false, &b.answer)
		}
		setThreadHeaderIn(c.Response().Header(), pr.ThreadID, &b.answer.headers)
		if strings.Contains(c.Request().Header.Get("Accept"), "text/event-stream") {
			return s.streamRun(c, pr, newSSEWriter(c), &b.answer.headers)
		}
		return s.streamRun(c, pr, newNDJSONWriter(c, "application/octet-stream"), &b.answer.headers)
	}
}

// completeRun runs pr to its whole answer and writes it; room holds the
// answer and its header values.
func (s *Server) completeRun(c echo.Context, pr *engine.PreparedRun, withSources bool, room *runAnswer) error {
	resp, err := pr.Complete(c.Request().Context())
	setRunHeadersIn(c.Response().Header(), pr.ThreadID, pr.ModelID(), &room.headers)
	if err != nil {
		return err
	}
	out := &room.out
	*out = runResponse{Success: true, Completion: engine.Completion(resp), Raw: rawView{
		ID: resp.ID, Object: resp.Object, Created: resp.Created, Model: resp.Model, Provider: pr.Ref.Provider,
		Choices: resp.Choices, Usage: resp.Usage, SystemFingerprint: resp.SystemFingerprint,
	}}
	if withSources {
		src := sourcesOf(pr.Sources)
		out.Sources, out.Raw.Sources = &src, &src
	}
	return answerJSON(c, http.StatusOK, out)
}

// streamRun streams a prepared run to the client; headers holds the
// lb-model value (setModelHeaderIn).
func (s *Server) streamRun(c echo.Context, pr *engine.PreparedRun, w *eventWriter, headers *[2]string) error {
	rs, err := pr.Stream(c.Request().Context())
	setModelHeaderIn(c.Response().Header(), pr.ModelID(), headers)
	if err != nil {
		return err
	}
	return s.relay(c, rs, w, "pipe", pr.Pipe.Name)
}

// chunkStream is a normalised stream of chat chunks (engine.RunStream, and
// any other generation endpoint's stream). Close records how it ended.
type chunkStream interface {
	Recv() (*engine.ChatChunk, error)
	Close(cause error)
}

// relay writes a chunk stream to the client. An error before the first
// chunk is a normal JSON error; after it, an error event, then the end of
// the body. A client that goes away cancels the request context, which
// cancels the upstream call; Close then records the stream as abandoned.
// logAttrs are added to the log line of a failed stream.
func (s *Server) relay(c echo.Context, rs chunkStream, w *eventWriter, logAttrs ...any) error {
	ctx := c.Request().Context()
	for {
		if err := w.flushUnlessReady(rs); err != nil {
			rs.Close(errors.Join(engine.ErrClientGone, err))
			return nil
		}
		chunk, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rs.Close(err)
			if ctx.Err() != nil {
				return nil
			}
			if !w.Started() {
				return err
			}
			ee, status := toEngineError(err)
			log := s.log.With("request_id", headerValue(c.Response().Header(), HeaderRequestID)).With(logAttrs...)
			if status >= 500 {
				log.Error("stream failed", "code", ee.Code, "err", err)
			} else {
				log.Info("stream stopped", "code", ee.Code, "err", err)
			}
			_ = w.Error(ee.Message)
			return nil
		}
		w.last = chunk
		if err := w.Append(chunk); err != nil {
			rs.Close(errors.Join(engine.ErrClientGone, err))
			return nil
		}
	}
	rs.Close(nil)
	_ = w.Done()
	return nil
}
