// Package sandbox parses untrusted documents in a child process of the
// hearth binary. The PDF library can loop forever on some malformed files
// (objects truncated inside compressed object streams, which no guard in
// engine/parse can reach) and a crafted file can recurse deeply enough to
// exhaust the stack, which Go cannot recover from. In a child process, a
// wall-clock timeout kills such a parse, a memory watchdog and a small
// stack limit stop runaway parses, and a crash takes down only the child.
//
// The child is the same binary started with the hidden subcommand
// "internal-parse" (Subcommand). It reads one request on stdin (a JSON
// header line, then the document bytes) and writes one JSON answer on
// stdout. Test binaries act as the child when a TestMain hook sees the
// subcommand (see IsChild). PDFs and xlsx workbooks go to a child: an xlsx
// is a zip, whose parts inflate about a thousandfold, so its parse is not
// linear in the upload even though its text is bounded. Text, markdown and
// CSV are parsed in process: their text is linear in their input and
// bounded by the output limit (engine/parse tests measure both).
package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/parse"
)

// Subcommand is the hidden argument that makes the hearth binary a parser
// child: "hearth internal-parse".
const Subcommand = "internal-parse"

// IsChild reports whether args (os.Args[1:]) ask for the parser child. The
// subcommand is the last argument, so a test binary can be started with
// "-test.run=^$ internal-parse": with a TestMain hook it acts as the child,
// without one it runs no test and the parent reports a failed child.
func IsChild(args []string) bool { return len(args) > 0 && args[len(args)-1] == Subcommand }

// Defaults of Config.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMemoryLimit = 1 << 30
	DefaultMaxStack    = 64 << 20
)

// exitMemory is the child's exit code when its memory watchdog fires.
const exitMemory = 3

// answerLimit bounds the child's answer: the parser's text limit with room
// for JSON escaping (at most six bytes per byte, "\u0001").
func answerLimit(maxOutput int) int { return 6*maxOutput + 64<<10 }

// Config configures a Parser. Zero fields take the defaults.
type Config struct {
	// Command is the child's argv. Default: this executable and Subcommand.
	Command []string
	// Env is the child's whole environment (default: empty, so no secret
	// of the server's environment reaches the code parsing untrusted files).
	Env []string
	// Timeout bounds one parse, wall clock (default 60 s).
	Timeout time.Duration
	// MemoryLimit is the most memory a child may use, in bytes (default
	// 1 GiB); past it the child stops and the document fails.
	MemoryLimit int64
	// MaxStack bounds each goroutine's stack in the child (default 64 MiB),
	// so deep recursion ends the child soon instead of using 1 GiB first.
	MaxStack int
	// Concurrency bounds the children running at once (default: the number
	// of CPUs, at least 2); more parses wait for a slot. The bound is per
	// process: each node of a cluster sharing one database runs its own
	// children under its own bound.
	Concurrency int
	// MaxOutput bounds the text of one document, in bytes, for every
	// format (default parse.DefaultMaxOutput; HEARTH_PARSE_MAX_OUTPUT).
	MaxOutput int
	// Extract, when set, reads the documents the parsers fail with an error
	// parse.NeedsExtractor accepts (PDFs without a text layer) through an
	// external extractor (HEARTH_EXTRACTOR_URL,
	// docs/memories-and-retrieval.md#external-extractor); its text or its
	// error is the answer.
	Extract func(ctx context.Context, contentType, name string, data []byte) (string, error)
	Logger  *slog.Logger
}

// Parser parses documents like parse.ParseWith, PDFs and xlsx workbooks in
// a child process.
type Parser struct {
	cfg  Config
	slot chan struct{}
}

// New returns a Parser. It starts nothing until a PDF is parsed.
func New(cfg Config) (*Parser, error) {
	if len(cfg.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: cannot find this executable to run the parser: %w", err)
		}
		cfg.Command = []string{exe, Subcommand}
	}
	if cfg.Env == nil {
		cfg.Env = []string{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MemoryLimit <= 0 {
		cfg.MemoryLimit = DefaultMemoryLimit
	}
	if cfg.MaxStack <= 0 {
		cfg.MaxStack = DefaultMaxStack
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = parse.DefaultMaxOutput
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = max(2, runtime.NumCPU())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Parser{cfg: cfg, slot: make(chan struct{}, cfg.Concurrency)}, nil
}

// Parse has the contract of parse.Parse with Config.MaxOutput as the
// output limit: text, or an *engine.Error whose message is fit for a
// document's status. PDFs, xlsx, xls, docx, pptx, odt, EPUB and HTML (sent as
// text/html) files are parsed in a child process; a child that runs out of time or memory, or crashes, is a
// document error (BAD_REQUEST) that says so. A child that cannot be
// started is an INTERNAL error, which ingestion retries. With
// Config.Extract, a PDF without a text layer goes to the external
// extractor.
func (p *Parser) Parse(ctx context.Context, contentType, name string, data []byte) (string, error) {
	text, err := p.parse(ctx, contentType, name, data)
	if err != nil && p.cfg.Extract != nil && parse.NeedsExtractor(err) {
		p.cfg.Logger.Info("document has no text Hearth can read; sending it to the external extractor", "document", name, "reason", err)
		return p.cfg.Extract(ctx, contentType, name, data)
	}
	return text, err
}

// parse is Parse without the external extractor.
func (p *Parser) parse(ctx context.Context, contentType, name string, data []byte) (string, error) {
	if !inChild(parse.EffectiveType(contentType, name)) || len(data) == 0 {
		return parse.ParseWith(contentType, name, data, parse.Options{MaxOutput: p.cfg.MaxOutput})
	}
	select {
	case p.slot <- struct{}{}:
		defer func() { <-p.slot }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return p.run(ctx, request{V: protocol, Type: contentType, Name: name,
		MemoryLimit: p.cfg.MemoryLimit, MaxStack: p.cfg.MaxStack, MaxOutput: p.cfg.MaxOutput}, data)
}

// childKinds names, in messages, the documents parsed in a child process:
// PDFs, the zip-based formats, whose text is not linear in their size, and
// HTML pages (an HTML tree builder has no bound on its work per byte), and
// xls workbooks (binary records read by new code: a crash stays in the
// child).
var childKinds = map[string]string{
	parse.TypePDF: "PDF", parse.TypeXLSX: "xlsx file", parse.TypeDOCX: "docx file",
	parse.TypePPTX: "pptx file", parse.TypeODT: "odt file", parse.TypeEPUB: "EPUB", parse.TypeXLS: "xls file",
	parse.TypeHTML: "HTML page",
}

// inChild reports whether documents of this media type are parsed in a
// child process.
func inChild(mediaType string) bool { return childKinds[mediaType] != "" }

// kind names a document of this media type in messages.
func kind(mediaType string) string { return childKinds[mediaType] }

func (p *Parser) run(parent context.Context, req request, data []byte) (string, error) {
	ctx, cancel := context.WithTimeout(parent, p.cfg.Timeout)
	defer cancel()
	head, _ := json.Marshal(req)
	cmd := exec.CommandContext(ctx, p.cfg.Command[0], p.cfg.Command[1:]...)
	cmd.Env = p.cfg.Env
	cmd.Stdin = io.MultiReader(bytes.NewReader(head), strings.NewReader("\n"), bytes.NewReader(data))
	out := &capped{max: answerLimit(req.MaxOutput)}
	what := kind(parse.EffectiveType(req.Type, req.Name))
	stderr := &capped{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case parent.Err() != nil:
		return "", parent.Err()
	case ctx.Err() != nil:
		p.cfg.Logger.Warn("parser process timed out and was killed", "document", req.Name, "timeout", p.cfg.Timeout, "bytes", len(data))
		return "", docError("parsing timed out after %s: the %s may be malformed", p.cfg.Timeout, what)
	case errors.As(err, &exit) && exit.ExitCode() == exitMemory:
		p.cfg.Logger.Warn("parser process ran out of memory", "document", req.Name, "limit_bytes", p.cfg.MemoryLimit, "took", took)
		return "", docError("could not read %s: parsing needed more than %d MiB of memory; the %s may be malformed", what, p.cfg.MemoryLimit>>20, what)
	case errors.As(err, &exit):
		p.cfg.Logger.Warn("parser process failed", "document", req.Name, "exit", exit.ExitCode(), "took", took, "stderr", stderr.tail())
		return "", docError("could not read %s: the parser stopped unexpectedly; the %s may be malformed", what, what)
	case err != nil:
		p.cfg.Logger.Error("cannot run the parser process", "command", p.cfg.Command[0], "err", err)
		return "", engine.Wrap(err, engine.CodeInternal, "cannot run the parser process")
	case out.over:
		return "", parse.ErrOutputTooLarge(req.MaxOutput)
	}
	var ans answer
	if jerr := json.Unmarshal(out.b.Bytes(), &ans); jerr != nil || ans.V != protocol {
		p.cfg.Logger.Error("the parser process answered something else", "command", p.cfg.Command, "stdout", truncate(out.b.String(), 200), "stderr", stderr.tail())
		return "", engine.Errorf(engine.CodeInternal, "the parser process gave no answer")
	}
	if ans.Error != nil {
		return "", &engine.Error{Code: ans.Error.Code, Field: ans.Error.Field, Message: ans.Error.Message}
	}
	return ans.Text, nil
}

func docError(format string, args ...any) *engine.Error {
	return &engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: fmt.Sprintf(format, args...)}
}

// capped keeps the first max bytes written and discards the rest, so a
// child is never blocked on a full pipe.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room < len(p) {
		c.over = true
		c.b.Write(p[:max(0, room)])
		return len(p), nil
	}
	return c.b.Write(p)
}

func (c *capped) tail() string { return truncate(c.b.String(), 2000) }

func truncate(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
