package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// threadRoutes serve stored conversations. A thread belongs to an owner
// (runs with a pipe key create threads of the pipe's owner); another
// owner's thread answers 404.
func (s *Server) threadRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/threads", Auth: AuthOwner, Handler: s.handleThreadCreate,
			Doc: RouteDoc{Summary: "Create a thread", Request: threadCreateBody{}, Response: threadView{}}},
		{Method: http.MethodGet, Path: "/v1/threads", Auth: AuthOwner, Handler: s.handleThreadList,
			Doc: RouteDoc{Summary: "List threads, newest first, each with its pipe, message count and first message", Response: threadPage{}, Query: []string{"limit", "cursor"}}},
		{Method: http.MethodGet, Path: "/v1/threads/:id", Auth: AuthOwner, Handler: s.handleThreadGet,
			Doc: RouteDoc{Summary: "Get a thread", Response: threadView{}}},
		{Method: http.MethodPost, Path: "/v1/threads/:id", Auth: AuthOwner, Handler: s.handleThreadUpdate,
			Doc: RouteDoc{Summary: "Update a thread's metadata", Request: threadUpdateBody{}, Response: threadView{}}},
		{Method: http.MethodDelete, Path: "/v1/threads/:id", Auth: AuthOwner, Handler: s.handleThreadDelete,
			Doc: RouteDoc{Summary: "Delete a thread", Response: successView{}}},
		{Method: http.MethodPost, Path: "/v1/threads/:id/messages", Auth: AuthOwner, Handler: s.handleThreadAppend,
			Doc: RouteDoc{Summary: "Append messages (an array, or {messages: [...]})", Request: threadAppendBody{}, Response: []engine.ThreadMessage{}}},
		{Method: http.MethodGet, Path: "/v1/threads/:id/messages", Auth: AuthOwner, Handler: s.handleThreadMessages,
			Doc: RouteDoc{Summary: "List a thread's messages, oldest first (?limit pages, lb-next-cursor continues, ?order=desc reverses)",
				Response: []engine.ThreadMessage{}, Query: []string{"limit", "order", "cursor"}}},
	}
}

// threadView is the thread object of the API.
type threadView struct {
	ID        string            `json:"id"`
	Object    string            `json:"object"`
	CreatedAt int64             `json:"created_at"`
	Metadata  map[string]string `json:"metadata"`
	// Pipe and PipeID name the pipe whose run created the thread (Hearth's
	// fields, absent for threads made through /v1/threads); see pipeOf.
	Pipe   string `json:"pipe,omitempty"`
	PipeID string `json:"pipe_id,omitempty"`
}

func viewThread(t *engine.Thread) threadView {
	md := t.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return threadView{ID: t.ID, Object: "thread", CreatedAt: t.CreatedAt.Unix(), Metadata: md, Pipe: t.Pipe, PipeID: t.PipeID}
}

func threadID(c echo.Context) (string, error) {
	id, err := pathParam(c, "id")
	if err != nil {
		return "", err
	}
	if err := engine.ValidateThreadID("threadId", id); err != nil {
		return "", err
	}
	return id, nil
}

func (s *Server) handleThreadCreate(c echo.Context) error {
	var b struct {
		ThreadID string                      `json:"threadId"`
		Metadata map[string]string           `json:"metadata"`
		Messages []engine.ThreadMessageInput `json:"messages"`
	}
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	t, err := s.deps.Threads.Create(c.Request().Context(), principal(c).Owner,
		engine.ThreadCreate{ID: b.ThreadID, Metadata: b.Metadata, Messages: b.Messages})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewThread(t))
}

func (s *Server) handleThreadGet(c echo.Context) error {
	id, err := threadID(c)
	if err != nil {
		return err
	}
	t, err := s.deps.Threads.Get(c.Request().Context(), principal(c).Owner, id)
	if err != nil {
		return err
	}
	v := viewThread(t)
	if err := s.pipeOf(c.Request().Context(), &v); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// handleThreadUpdate merges metadata (a null value removes its key).
func (s *Server) handleThreadUpdate(c echo.Context) error {
	id, err := threadID(c)
	if err != nil {
		return err
	}
	var b struct {
		Metadata map[string]*string `json:"metadata"`
	}
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	t, err := s.deps.Threads.UpdateMetadata(c.Request().Context(), principal(c).Owner, id, b.Metadata)
	if err != nil {
		return err
	}
	v := viewThread(t)
	if t.Pipe == "" {
		// A thread first written by this update (docs/pipes-and-threads.md#threads) names
		// its pipe by id only.
		if err := s.pipeOf(c.Request().Context(), &v); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, v)
}

func (s *Server) handleThreadDelete(c echo.Context) error {
	id, err := threadID(c)
	if err != nil {
		return err
	}
	if err := s.deps.Threads.Delete(c.Request().Context(), principal(c).Owner, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}

// handleThreadAppend accepts the SDK's bare array and the documented
// {"messages": [...]}; it answers with the messages it created.
func (s *Server) handleThreadAppend(c echo.Context) error {
	id, err := threadID(c)
	if err != nil {
		return err
	}
	raw, err := readBody(c)
	if err != nil {
		return err
	}
	var msgs []engine.ThreadMessageInput
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		err = decodeBytes(t, &msgs)
	} else {
		var b struct {
			Messages *[]engine.ThreadMessageInput `json:"messages"`
		}
		err = decodeBytes(t, &b)
		if err == nil && b.Messages == nil {
			err = engine.FieldError("messages", "is required: send an array of messages, or {\"messages\": [...]}")
		} else if err == nil {
			msgs = *b.Messages
		}
	}
	if err != nil {
		return err
	}
	out, err := s.deps.Threads.Append(c.Request().Context(), principal(c).Owner, id, msgs)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// HeaderNextCursor carries the cursor of the next page of a thread's
// messages; it is absent on the last page.
const HeaderNextCursor = "lb-next-cursor"

// Page sizes of GET /v1/threads/{id}/messages. A page asked for with
// ?limit is built in memory up to maxMessagePageBytes; the whole list (no
// limit: the SDK's call) is read and written streamPageMessages at a time,
// so a long thread never sits whole in memory.
const (
	maxMessagePageBytes = 8 << 20
	streamPageMessages  = 100
	streamPageBytes     = 1 << 20
)

// handleThreadMessages lists a thread's messages as a plain JSON array,
// oldest first (the SDK's shape). ?limit=N (1-1000) returns one page and
// the lb-next-cursor header when more follow; ?order=desc lists newest
// first; ?cursor= continues after a previous page (docs/pipes-and-threads.md#threads).
func (s *Server) handleThreadMessages(c echo.Context) error {
	id, err := threadID(c)
	if err != nil {
		return err
	}
	o, paged, err := messagePageParams(c)
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), principal(c).Owner
	if paged {
		o.MaxBytes = maxMessagePageBytes
		page, err := s.deps.Threads.MessagePage(ctx, owner, id, o)
		if err != nil {
			return err
		}
		if page.Next != "" {
			setHeader(c.Response().Header(), HeaderNextCursor, page.Next)
		}
		return c.JSON(http.StatusOK, page.Messages)
	}
	o.Limit, o.MaxBytes = streamPageMessages, streamPageBytes
	page, err := s.deps.Threads.MessagePage(ctx, owner, id, o)
	if err != nil {
		return err
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(http.StatusOK)
	sep := []byte("[")
	for {
		for _, m := range page.Messages {
			b, err := json.Marshal(m)
			if err != nil {
				return s.abortStream(c, err)
			}
			if _, err := w.Write(append(sep, b...)); err != nil {
				return nil
			}
			sep = []byte(",")
		}
		if page.Next == "" {
			break
		}
		o.Cursor = page.Next
		if page, err = s.deps.Threads.MessagePage(ctx, owner, id, o); engine.IsNotFound(err) {
			break // deleted while listed: end the list here
		} else if err != nil {
			return s.abortStream(c, err)
		}
	}
	if len(sep) == 1 && sep[0] == '[' {
		_, _ = w.Write([]byte("[]"))
	} else {
		_, _ = w.Write([]byte("]"))
	}
	return nil
}

// abortStream logs a failure after a 200 was sent and cuts the connection,
// so the client sees a broken answer rather than a short list.
func (s *Server) abortStream(c echo.Context, err error) error {
	s.log.Error("thread messages stopped", "request_id", headerValue(c.Response().Header(), HeaderRequestID), "err", err)
	panic(http.ErrAbortHandler)
}

// messagePageParams reads ?limit, ?order and ?cursor; paged reports
// whether a limit was given.
func messagePageParams(c echo.Context) (o engine.MessagePageOptions, paged bool, err error) {
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > engine.MaxMessagePageLimit {
			return o, false, engine.FieldError("limit", "must be a whole number from 1 to %d", engine.MaxMessagePageLimit)
		}
		o.Limit, paged = n, true
	}
	switch c.QueryParam("order") {
	case "", "asc":
	case "desc":
		o.Desc = true
	default:
		return o, false, engine.FieldError("order", "must be asc (oldest first) or desc (newest first)")
	}
	o.Cursor = c.QueryParam("cursor")
	return o, paged, nil
}

// threadPage is a page of threads, newest first.
type threadPage struct {
	Data       []threadListItem `json:"data"`
	NextCursor *string          `json:"next_cursor"`
}

// handleThreadList lists the caller's threads, newest first (?limit, ?cursor).
func (s *Server) handleThreadList(c echo.Context) error {
	limit, cursor, err := pageParams(c)
	if err != nil {
		return err
	}
	page, err := s.deps.Threads.List(c.Request().Context(), principal(c).Owner, limit, cursor)
	if err != nil {
		return err
	}
	out := threadPage{Data: make([]threadListItem, 0, len(page.Threads))}
	for _, t := range page.Threads {
		it, err := s.listItem(c.Request().Context(), t)
		if err != nil {
			return err
		}
		out.Data = append(out.Data, it)
	}
	if page.Next != "" {
		out.NextCursor = &page.Next
	}
	return c.JSON(http.StatusOK, out)
}
