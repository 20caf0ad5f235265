package servertest

import (
	"os"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/server/app"
)

// UploadSecret signs the upload URLs of test servers.
var UploadSecret = []byte("hearth-test-upload-secret-32-bytes-long")

// WithMemory adjusts the memory engine's config (workers, retry delays,
// clock) before it is built.
func WithMemory(f func(*memory.Config)) Option {
	return func(c *app.Config) { c.Overrides.Memory = append(c.Overrides.Memory, f) }
}

// FastRetries makes ingestion retry embedding failures after milliseconds.
func FastRetries() Option {
	return WithMemory(func(c *memory.Config) {
		c.RetryBaseDelay, c.RetryMaxDelay = time.Millisecond, 5*time.Millisecond
	})
}

// Main is the TestMain of every package whose tests use servertest:
//
//	func TestMain(m *testing.M) { servertest.Main(m) }
//
// Test servers parse PDFs the way hearth does, in a child process, and the
// child is the test binary itself: Main makes it act as the parser when it
// is started with the sandbox subcommand. Without the hook a PDF parse
// fails with an internal error ("the PDF parser process gave no answer").
func Main(m *testing.M) {
	if sandbox.IsChild(os.Args[1:]) {
		os.Exit(sandbox.Serve(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// parserCommand starts this test binary as the parser child (see Main).
func parserCommand() []string { return []string{os.Args[0], "-test.run=^$", sandbox.Subcommand} }

// NewParser returns the sandboxed parser of test servers: the child is this
// test binary, started so that it runs no test (see Main). Zero fields of
// cfg take sandbox's defaults; the logger is quiet unless set.
func NewParser(cfg sandbox.Config) (*sandbox.Parser, error) {
	if cfg.Command == nil {
		cfg.Command = parserCommand()
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	return sandbox.New(cfg)
}
