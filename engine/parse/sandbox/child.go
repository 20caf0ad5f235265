package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/parse"
)

// protocol is the version of the request and answer shapes; a child of
// another version (the binary was replaced under a running server) is
// refused rather than misread.
const protocol = 2

// request is the JSON header line of a child's stdin; the document bytes
// follow it up to the end of the input.
type request struct {
	V           int    `json:"v"`
	Type        string `json:"type"`
	Name        string `json:"name"`
	MemoryLimit int64  `json:"memory_limit"`
	MaxStack    int    `json:"max_stack"`
	MaxOutput   int    `json:"max_output"`
}

// answer is the child's one JSON object on stdout.
type answer struct {
	V     int          `json:"v"`
	Text  string       `json:"text,omitempty"`
	Error *answerError `json:"error,omitempty"`
}

type answerError struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Serve is the parser child: it reads one request from in, applies its
// limits, parses, and writes the answer to out. It returns the process exit
// code: 0 when an answer was written, 3 when the memory watchdog stopped
// the parse (it exits the process itself), 1 on a malformed request.
func Serve(in io.Reader, out io.Writer) int {
	br := bufio.NewReaderSize(in, 64<<10)
	line, err := br.ReadSlice('\n')
	var req request
	if err != nil || json.Unmarshal(line, &req) != nil || req.V != protocol {
		fmt.Fprintln(os.Stderr, "hearth internal-parse: malformed request (this subcommand is run by the server, not by hand)")
		return 1
	}
	if req.MaxStack > 0 {
		debug.SetMaxStack(req.MaxStack)
	}
	if req.MemoryLimit > 0 {
		// The soft limit makes the collector work harder near the cap; the
		// watchdog enforces it.
		debug.SetMemoryLimit(req.MemoryLimit / 4 * 3)
		go watchdog(req.MemoryLimit)
	}
	data, err := io.ReadAll(br)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hearth internal-parse: reading the document:", err)
		return 1
	}
	text, err := parseSafely(req.Type, req.Name, data, parse.Options{MaxOutput: req.MaxOutput})
	ans := answer{V: protocol, Text: text}
	if err != nil {
		e, ok := err.(*engine.Error)
		if !ok {
			e = &engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: "could not read the document: the file is corrupt or unsupported"}
		}
		ans = answer{V: protocol, Error: &answerError{Code: e.Code, Field: e.Field, Message: e.Message}}
	}
	if err := json.NewEncoder(out).Encode(&ans); err != nil {
		fmt.Fprintln(os.Stderr, "hearth internal-parse: writing the answer:", err)
		return 1
	}
	return 0
}

// parseSafely runs the parser, turning a panic into a document error.
func parseSafely(contentType, name string, data []byte, opt parse.Options) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", &engine.Error{Code: engine.CodeBadRequest, Field: "document", Message: "could not read the document: the file is corrupt or unsupported"}
		}
	}()
	return parse.ParseWith(contentType, name, data, opt)
}

// watchdog ends the process with exitMemory once the memory the runtime
// holds from the system, less what it returned, passes limit.
func watchdog(limit int64) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(samples)
		used := int64(samples[0].Value.Uint64()) - int64(samples[1].Value.Uint64())
		if used > limit {
			fmt.Fprintf(os.Stderr, "hearth internal-parse: memory limit of %d bytes exceeded (%d)\n", limit, used)
			os.Exit(exitMemory)
		}
	}
}
