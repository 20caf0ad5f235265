package engine

import (
	"github.com/hearth-dev/hearth/engine/guard"

	"context"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Runner runs pipes: it resolves the pipe and the thread, assembles the
// messages, resolves the provider key, moderates, calls the model (whole or
// streamed), then appends to the thread and records the run.
type Runner struct {
	pipes     *Pipes
	threads   *Threads
	keysets   *Keysets
	providers Providers
	memories  MemoryLookup
	retriever Retriever
	runs      *RunLog
	guards    *Guards
	log       *slog.Logger
	now       func() time.Time
}

// RunnerConfig holds the dependencies of a Runner. Retriever and RunLog
// are optional: without a retriever runs skip RAG; without a run log runs
// are not recorded.
type RunnerConfig struct {
	Pipes     *Pipes
	Threads   *Threads
	Keysets   *Keysets
	Providers Providers
	Memories  MemoryLookup
	Retriever Retriever
	RunLog    *RunLog
	Logger    *slog.Logger
	// Guards, when set, applies the guardrails to runs (the server's
	// policy merged with the key's and the pipe's).
	Guards *Guards
}

// NewRunner returns the pipe runner.
func NewRunner(cfg RunnerConfig) *Runner {
	r := &Runner{pipes: cfg.Pipes, threads: cfg.Threads, keysets: cfg.Keysets, providers: cfg.Providers,
		memories: cfg.Memories, retriever: cfg.Retriever, runs: cfg.RunLog, guards: cfg.Guards, log: cfg.Logger, now: time.Now}
	if r.memories == nil && cfg.Pipes != nil {
		r.memories = cfg.Pipes.memories
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	return r
}

// RunLog returns the runner's run log (nil when runs are not recorded).
func (r *Runner) RunLog() *RunLog { return r.runs }

// RunRequest is one run of a pipe, from any of the run endpoints.
type RunRequest struct {
	Principal *Principal
	// Name names the pipe; required with a user/org key, optional with a
	// pipe key (where it must name the key's own pipe).
	Name      string
	Messages  []Message
	Variables []Variable
	ThreadID  string
	// Tools, when non-empty, replace the pipe's tools.
	Tools []Tool
	// Memory, when non-empty, replaces the pipe's memories.
	Memory []MemoryRef
	// JSON, when set, turns JSON mode on or off for this run.
	JSON *bool
	// LLMKey is the caller's provider key (LB-LLM-Key header or llmKey).
	LLMKey string
	// FallbackModels, when non-nil, replace the pipe's fallback models
	// (the OpenAI surface's LB-Fallback-Models header, already parsed).
	FallbackModels []ModelRef
	// Endpoint and Stream are recorded with the run.
	Endpoint string
	Stream   bool
	// Version, when > 0, runs that version of the pipe's configuration
	// instead of the latest (docs/pipes-and-threads.md#pipe-versions).
	Version int
	// Admit, when set, is called with the resolved pipe before any other
	// work (thread load, retrieval, key resolution): the per-pipe rate
	// limit refuses there, so a refused request costs no store reads or
	// embedding calls.
	Admit Admitter
}

// PreparedRun is a run that passed every check and is ready to call the
// model. Exactly one of Complete or Stream is called on it.
type PreparedRun struct {
	r        *Runner
	Pipe     *Pipe
	ThreadID string
	// Request is what the model receives (APIKey included; never log it).
	Request *ChatRequest
	Ref     ModelRef
	// Sources are the memory chunks retrieved for the run, best first
	// (empty without memories or when nothing matched).
	Sources []RAGChunk
	thread  *Thread
	chat    ChatModel
	newMsgs []Message
	start   time.Time
	// runID and created are drawn from the request's IDSource in Prepare.
	runID    string
	created  time.Time
	endpoint string
	stream   bool
	once     sync.Once
	keyID    string // the run's API key, recorded for budgets
	// readOnly runs (read-only keys) write no thread (run_readonly.go).
	readOnly bool
	// parsedRef and modelID are Ref as prepare parsed it and its string
	// (run_model.go).
	parsedRef ModelRef
	modelID   string
	// ichat is the instrumentation wrapper of chat (run_chat.go).
	ichat instrumentedChat
	// detached is the context finish writes with (run_persist.go).
	detached detachedCtx
	// signedThread: ThreadID is a new signed id, written by nothing
	// (threads_virtual.go).
	signedThread bool
	// content and secret hold the logged content of the run's record and
	// the key redacted from it (record).
	content RunContentSlot
	secret  [1]string
	// msgs is room for the messages the model receives (prepare): a
	// pipe's prompt slots, a few-shot pair and the request's message;
	// chatReq is the request built from them (Request points into it).
	msgs    [6]Message
	chatReq pipeChatRequest
	// idBuf holds runID's bytes, and threadIDBuf a new signed ThreadID's.
	idBuf       RunIDBuf
	threadIDBuf threadIDBuf
	// note receives the deployment that served the run, when its model
	// may be served by several (deployment.go).
	note *DeploymentNote
	// guard is the run's compiled guardrail policy (nil: none) and
	// guardRep the actions it took (run_guard.go).
	guard    *guard.Guard
	guardRep *guard.Report
	// cache is the request's response cache ticket (nil without one).
	cache *CacheTicket
}

const maxRunMessages = MaxRunMessages

// MaxRunMessages bounds the messages of one run or completion request.
const MaxRunMessages = 1000

// Prepare does everything before the model call. Every error it returns is
// a normal JSON error (nothing has been written to the client yet).
func (r *Runner) Prepare(ctx context.Context, in *RunRequest) (*PreparedRun, error) {
	return r.PrepareIn(ctx, in, nil)
}

// PrepareIn is Prepare with the prepared run kept in pr (nil: a new one),
// for a caller that keeps it with its request. pr is used for one run
// only, and not copied.
func (r *Runner) PrepareIn(ctx context.Context, in *RunRequest, pr *PreparedRun) (*PreparedRun, error) {
	start := r.now()
	p, err := r.resolvePipe(ctx, in)
	if err != nil {
		return nil, err
	}
	if in.Version < 0 {
		return nil, FieldError("version", "must be a version number (1 or more), got %d", in.Version)
	}
	if p, err = r.pipes.AtVersion(ctx, p, in.Version); err != nil {
		return nil, err
	}
	if err := validateRunRequest(in); err != nil {
		return nil, err
	}
	if in.Admit != nil {
		if err := in.Admit.AdmitPipe(p); err != nil {
			return nil, err
		}
	}
	created := NowFrom(ctx, func() time.Time { return start })
	if pr == nil {
		pr = new(PreparedRun)
	}
	*pr = PreparedRun{r: r, Pipe: p, start: start, created: created,
		endpoint: in.Endpoint, stream: in.Stream, keyID: in.Principal.KeyID}
	pr.runID = NewRunIDIn(ctx, created, &pr.idBuf)
	pr.cache = CacheTicketFrom(ctx)
	if p.Cache {
		pr.cache.Default(CacheOn)
	}
	if err := pr.prepare(ctx, in); err != nil {
		pr.recordRejected(err)
		return nil, err
	}
	return pr, nil
}

// prepare resolves the thread, retrieves, assembles the messages, resolves
// the model and its key, and moderates: the checks of a run that was
// accepted (its pipe found and the key allowed to run it).
func (pr *PreparedRun) prepare(ctx context.Context, in *RunRequest) error {
	r, p := pr.r, pr.Pipe
	var err error
	var history []Message
	if pr.readOnly, err = readOnlyRun(in); err != nil {
		return err
	}
	if in.ThreadID != "" {
		if pr.thread, history, err = r.threads.history(ctx, in.Principal, p, in.ThreadID); err != nil {
			return err
		}
		pr.ThreadID = in.ThreadID
	} else if !pr.readOnly {
		pr.ThreadID = pr.newThreadID(ctx)
	}
	memories := p.Memory
	if len(in.Memory) > 0 {
		if err := checkRunMemory(in.Principal, p, in.Memory); err != nil {
			return err
		}
		for i, m := range in.Memory {
			ok, err := r.memories.MemoryExists(ctx, p.Owner, m.Name)
			if err != nil {
				return err
			}
			if !ok {
				return FieldError(fieldIndex("memory", i)+".name", "memory %q not found", m.Name)
			}
		}
		memories = dedupMemory(in.Memory)
	}
	if err := in.Principal.Scope.CheckMemories(memories); err != nil {
		return err
	}
	in, err = pr.guardInput(ctx, in)
	if err != nil {
		return err
	}
	var chunks []RAGChunk
	noMatch := false
	if r.retriever != nil && len(memories) > 0 {
		if q := lastUserText(history, in.Messages); q != "" {
			if chunks, err = r.retriever.RetrieveForRun(ctx, p.Owner, memories, q); err != nil {
				return err
			}
			noMatch = len(chunks) == 0 && hasMinScore(memories)
		}
	}
	if chunks, err = pr.guardChunks(ctx, chunks); err != nil {
		return err
	}
	pr.Sources = chunks
	jsonMode := p.JSON
	if in.JSON != nil {
		jsonMode = *in.JSON
	}
	vars := MergeVariables(p.Variables, in.Variables)
	msgs := AssembleMessagesIn(pr.msgs[:0], p, jsonMode, RAGContext{Chunks: chunks, NoMatch: noMatch}, history, in.Messages, vars)
	if !hasNonSystem(msgs) {
		return FieldError("messages", "is required: the pipe has no messages of its own to run")
	}
	pr.newMsgs = msgs[len(msgs)-len(in.Messages):]
	if p.Store && !pr.readOnly {
		if err := r.threads.checkRunAppend(pr.thread, pr.ThreadID, pr.newMsgs); err != nil {
			return err
		}
	}
	if pr.Ref, err = ParseModelID("model", p.Model); err != nil {
		return err
	}
	pr.parsedRef, pr.modelID = pr.Ref, ModelIDOf(pr.Ref, p.Model)
	if err := in.Principal.Scope.CheckModels(pr.Ref); err != nil {
		return err
	}
	if r.providers == nil {
		return Errorf(CodeUnavailable, "no model providers are configured on this server")
	}
	if pr.chat, err = pr.chatModel(); err != nil {
		return err
	}
	key, err := r.keysets.Resolve(ctx, pr.Ref.Provider, in.LLMKey, p.ID, p.Owner)
	if err != nil {
		return err
	}
	if p.Moderate {
		if err := r.moderate(ctx, pr.Ref.Provider, key, pr.newMsgs, in.Variables); err != nil {
			return err
		}
	}
	pr.Request, err = buildChatRequestIn(&pr.chatReq, p, pr.Ref, msgs, in.Tools, jsonMode, key)
	if err != nil {
		return err
	}
	if err := pr.useFallbacks(in); err != nil {
		return err
	}
	return nil
}

// resolvePipe finds the pipe a run names and checks the key may run it.
func (r *Runner) resolvePipe(ctx context.Context, in *RunRequest) (*Pipe, error) {
	who := in.Principal
	if who.Kind == KeyPipe {
		p, err := r.pipes.GetByID(ctx, who.PipeID)
		if err != nil {
			return nil, err
		}
		if in.Name != "" && in.Name != p.Name {
			return nil, Errorf(CodeForbidden, "this pipe key runs the pipe %q only, not %q", p.Name, in.Name)
		}
		return p, nil
	}
	if err := who.Scope.CheckPipe(in.Name); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, FieldError("name", "is required when running a pipe with a user or org key (or use the pipe's own key)")
	}
	if err := ValidatePipeName("name", in.Name); err != nil {
		return nil, err
	}
	return r.pipes.Lookup(ctx, who.Owner, in.Name)
}

func validateRunRequest(in *RunRequest) error {
	if len(in.Messages) > maxRunMessages {
		return FieldError("messages", "at most %d messages", maxRunMessages)
	}
	for i, m := range in.Messages {
		if err := ValidateMessage(fieldIndex("messages", i), m); err != nil {
			return err
		}
	}
	if err := validateVariables("variables", in.Variables); err != nil {
		return err
	}
	if in.ThreadID != "" {
		if err := ValidateThreadID("threadId", in.ThreadID); err != nil {
			return err
		}
	}
	if err := ValidateTools("tools", in.Tools); err != nil {
		return err
	}
	return validateMemoryRefs("memory", in.Memory)
}

func hasNonSystem(msgs []Message) bool {
	for _, m := range msgs {
		if m.Role != "system" {
			return true
		}
	}
	return false
}

// lastUserText is the RAG query: the last user message of the request, or
// of the thread history when the request has none.
func lastUserText(history, request []Message) string {
	for _, list := range [][]Message{request, history} {
		for i := len(list) - 1; i >= 0; i-- {
			if list[i].Role == "user" {
				if s := strings.TrimSpace(list[i].Content.String()); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// moderate checks the run's new user input (its user messages and the
// values of its variables) with the provider's moderation endpoint.
// Providers without one (everything but openai and hearth) are not
// moderated.
func (r *Runner) moderate(ctx context.Context, provider, key string, msgs []Message, vars []Variable) error {
	mod, err := r.providers.Moderator(provider)
	if err != nil {
		r.log.Debug("moderation skipped: provider offers none", "provider", provider)
		return nil
	}
	var inputs []string
	for _, m := range msgs {
		if m.Role == "user" {
			if s := m.Content.String(); s != "" {
				inputs = append(inputs, s)
			}
		}
	}
	for _, v := range vars {
		if v.Value != "" {
			inputs = append(inputs, v.Value)
		}
	}
	if len(inputs) == 0 {
		return nil
	}
	res, err := mod.Moderate(ctx, key, inputs)
	if err != nil {
		return err
	}
	if res.Flagged {
		cats := append([]string(nil), res.Categories...)
		sort.Strings(cats)
		why := strings.Join(cats, ", ")
		if why == "" {
			why = "unspecified categories"
		}
		return Errorf(CodeBadRequest, "Content flagged by the %s moderation endpoint due to: %s", provider, why)
	}
	return nil
}

// buildChatRequestIn turns the pipe's parameters into the provider
// request, built in box (nil: a new one).
func buildChatRequestIn(box *pipeChatRequest, p *Pipe, ref ModelRef, msgs []Message, reqTools []Tool, jsonMode bool, key string) (*ChatRequest, error) {
	box = newPipeChatRequest(box, p, ref, msgs, key)
	req := &box.req
	if len(p.Stop) > 0 {
		req.Stop = append([]string(nil), p.Stop...)
	}
	tools := p.Tools
	if len(reqTools) > 0 {
		tools = reqTools
	}
	if len(tools) > 0 {
		req.Tools = tools
		tc := &box.toolChoice
		*tc = p.ToolChoice
		if tc.Function != "" && !HasToolNamed(tools, tc.Function) {
			return nil, FieldError("tools", "the pipe's tool_choice forces the function %q, which these tools do not define", tc.Function)
		}
		if tc.Mode == "" && tc.Function == "" {
			tc.Mode = "auto"
		}
		req.ToolChoice = tc
		box.parallel = p.ParallelToolCalls
		req.ParallelToolCalls = &box.parallel
	}
	switch {
	case p.ResponseFormat != nil && p.ResponseFormat.Type != "text":
		rf := *p.ResponseFormat
		req.ResponseFormat = &rf
	case jsonMode:
		req.ResponseFormat = &ResponseFormat{Type: "json_object"}
	}
	return req, nil
}

// HasToolNamed reports whether tools holds a function tool called name.
func HasToolNamed(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// Complete calls the model for the whole answer, then appends to the
// thread and records the run. The response is normalised to the OpenAI
// chat.completion shape.
func (pr *PreparedRun) Complete(ctx context.Context) (*ChatResponse, error) {
	ctx = pr.noteDeployment(ctx)
	ctx = pr.guardCtx(ctx)
	resp, err := pr.chat.Chat(ctx, pr.Request)
	pr.Ref = pr.answered()
	if err != nil {
		pr.finish(ctx, runResult{err: err})
		return nil, err
	}
	NormalizeResponse(ctx, resp, pr.Ref, pr.created)
	res := runResult{usage: &resp.Usage}
	if len(resp.Choices) > 0 {
		m := resp.Choices[0].Message
		if m.Content != nil {
			res.text = *m.Content
		}
		res.toolCalls = m.ToolCalls
	}
	if err := pr.finish(ctx, res); err != nil {
		return nil, err
	}
	return resp, nil
}

// Completion returns the text of the first choice ("" for tool calls).
func Completion(resp *ChatResponse) string {
	if len(resp.Choices) == 0 || resp.Choices[0].Message.Content == nil {
		return ""
	}
	return *resp.Choices[0].Message.Content
}

// NormalizeResponse fills what a provider may leave out of a chat
// completion (id, object, created, model, roles, empty lists), so every
// answer has the OpenAI chat.completion shape.
func NormalizeResponse(ctx context.Context, resp *ChatResponse, ref ModelRef, now time.Time) {
	if resp.ID == "" {
		resp.ID = "chatcmpl-" + NewID(ctx, 24)
	}
	resp.Object = "chat.completion"
	resp.Created = CreatedFrom(ctx, resp.Created, now)
	if resp.Model == "" {
		resp.Model = ref.Model
	}
	if resp.Choices == nil {
		resp.Choices = []Choice{}
	}
	for i := range resp.Choices {
		m := &resp.Choices[i].Message
		if m.Role == "" {
			m.Role = "assistant"
		}
		if m.Annotations == nil {
			m.Annotations = []any{}
		}
		for j := range m.ToolCalls {
			m.ToolCalls[j].Index = nil
			if m.ToolCalls[j].Type == "" {
				m.ToolCalls[j].Type = "function"
			}
		}
	}
}

// runResult is how a run ended, for the thread and the run record.
type runResult struct {
	text       string
	toolCalls  []ToolCall
	usage      *Usage
	err        error
	firstToken time.Duration
	streamed   bool
}

// finish appends the run to its thread (once) and records it. The thread
// gets the request messages and the assistant's answer when the run
// succeeded, or when a failed or abandoned stream had already produced
// output (the partial answer is kept, marked in its metadata). With the
// pipe's store off, no message is written; a new thread is still created,
// empty, so the returned thread id stays valid.
func (pr *PreparedRun) finish(ctx context.Context, res runResult) error {
	var ferr error
	pr.once.Do(func() {
		ctx = pr.detach(ctx)
		produced := res.text != "" || len(res.toolCalls) > 0
		status := RunSuccess
		if res.err != nil {
			status = RunError
			if errors.Is(res.err, context.Canceled) || errors.Is(res.err, ErrClientGone) {
				status = RunCancelled
			}
		}
		if (res.err == nil || produced) && !pr.readOnly {
			ferr = pr.persist(ctx, res, status)
		}
		pr.record(res, status, ferr)
	})
	return ferr
}

// ErrClientGone marks a stream the client abandoned.
var ErrClientGone = errors.New("client disconnected")

func (pr *PreparedRun) persist(ctx context.Context, res runResult, status string) error {
	var msgs []ThreadMessageInput
	if pr.Pipe.Store {
		msgs = make([]ThreadMessageInput, 0, len(pr.newMsgs)+1)
		for _, m := range pr.newMsgs {
			msgs = append(msgs, ThreadMessageInput{Message: m})
		}
		a := ThreadMessageInput{Message: Message{Role: "assistant", ToolCalls: res.toolCalls}}
		if res.text != "" || len(res.toolCalls) == 0 {
			a.Content = TextContent(res.text)
		}
		if res.err != nil {
			note := "client disconnected"
			if status != RunCancelled {
				note = "stopped by an error: " + publicMessage(res.err)
			}
			a.Metadata = map[string]string{threadPartialKey: "true", threadFinishNoteKey: note}
		}
		msgs = append(msgs, a)
	}
	if len(msgs) == 0 {
		if pr.thread != nil {
			return nil
		}
		return pr.createEmptyThread(ctx)
	}
	ts := pr.r.threads
	return ts.store.Update(ctx, func(tx Tx) error {
		var t *Thread
		var err error
		if pr.thread != nil {
			if t, err = ts.getThread(tx, pr.Pipe.Owner, pr.ThreadID); err != nil {
				return err
			}
			if err := ts.materialize(ctx, tx, t, pr.Pipe); err != nil {
				return err
			}
		} else {
			t = ts.newThread(ctx, pr.Pipe.Owner, pr.ThreadID, nil)
			t.Pipe, t.PipeID, t.unwritten = pr.Pipe.Name, pr.Pipe.ID, true
			if err := putNew(tx, threadIdxKey(t.Owner, t), ""); err != nil {
				return err
			}
		}
		if err := ts.checkRoom("threadId", t.ID, t.NextSeq, len(msgs)); err != nil {
			return err
		}
		return ts.putMessages(ctx, tx, t, msgs, nil)
	})
}

// noteDeployment returns ctx with a note of the serving deployment when
// the registry has deployments (ctx itself otherwise: no allocation).
func (pr *PreparedRun) noteDeployment(ctx context.Context) context.Context {
	if !HasDeployments(pr.r.providers) {
		return ctx
	}
	ctx, pr.note = WithDeploymentNote(ctx)
	return ctx
}

// publicMessage is an error's caller-safe message.
func publicMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return "internal error"
}

func (pr *PreparedRun) record(res runResult, status string, persistErr error) {
	if pr.r.runs == nil {
		return
	}
	rec := RunRecord{
		ID: pr.runID, Owner: pr.Pipe.Owner, PipeID: pr.Pipe.ID, Pipe: pr.Pipe.Name, PipeVersion: pr.Pipe.Version,
		Model: pr.ModelID(), Deployment: pr.note.Name(), ThreadID: pr.ThreadID, Endpoint: pr.endpoint, Stream: pr.stream, Kind: RunKindPipe,
		Status: status, LatencyMs: pr.r.now().Sub(pr.start).Milliseconds(), CreatedAt: pr.created.UTC(), KeyID: pr.keyID,
		Cache: pr.cache.Outcome(),
	}
	if res.usage != nil {
		rec.PromptTokens, rec.CompletionTokens, rec.TotalTokens = res.usage.PromptTokens, res.usage.CompletionTokens, res.usage.TotalTokens
		rec.CachedTokens = res.usage.CachedTokens()
		rec.CacheWriteTokens, rec.CacheWrite1hTokens = res.usage.CacheCreationTokens, res.usage.CacheCreation1hTokens
	}
	if res.streamed && res.firstToken > 0 {
		ms := res.firstToken.Milliseconds()
		rec.FirstTokenMs = &ms
	}
	switch {
	case res.err != nil:
		rec.Error = publicMessage(res.err)
	case persistErr != nil:
		rec.Error = "thread not saved: " + publicMessage(persistErr)
	}
	if pr.Request != nil {
		pr.secret[0] = pr.Request.APIKey
		rec.WithContentIn(&pr.content, pr.Request.Messages, res.text, res.toolCalls, pr.Pipe.LogContent, pr.secret[:]...)
	}
	rec.Guard = pr.guardRep.Events()
	pr.r.runs.Record(rec)
}
