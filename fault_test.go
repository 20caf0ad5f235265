package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/providers/fake"
)

// Fault tests against the real binary: built once with go build, run as a
// subprocess on a temp data dir with a fake upstream on loopback, killed
// with SIGKILL mid-work and restarted on the same data dir.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// hearthBinary builds the server binary once per test run.
func hearthBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hearth-fault-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hearth")
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

const faultKey = "hth_user_faulttestkey00000000000000000"

// proc is one run of the binary.
type proc struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	// key is the API key requests send ("" = faultKey).
	key string
}

// startBinary runs "hearth serve" and waits until /health answers.
func startBinary(t *testing.T, bin string, env []string, addr string) *proc {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, url: "http://" + addr, stderr: &stderr}
	t.Cleanup(func() { p.kill() })
	for range 200 {
		if resp, err := http.Get(p.url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("server did not come up: %s", stderr.String())
	return nil
}

// kill sends SIGKILL and reaps the process.
func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
	}
}

// do sends a request with the test key; it never fails the test, so it is
// safe from goroutines racing the kill.
func (p *proc) do(method, path string, body any) (int, []byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, p.url+path, rd)
	key := faultKey
	if p.key != "" {
		key = p.key
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

func (p *proc) must(t *testing.T, method, path string, body any) []byte {
	t.Helper()
	status, b, _, err := p.do(method, path, body)
	if err != nil || status != 200 {
		t.Fatalf("%s %s: %d %v %s", method, path, status, err, b)
	}
	return b
}

func faultEnv(t *testing.T, upstream string) ([]string, string) {
	addr := freeAddr(t)
	return []string{"HEARTH_DATA=" + t.TempDir(), "HEARTH_ADDR=" + addr, "HEARTH_ADMIN_KEY=" + faultKey,
		"HEARTH_LOG_LEVEL=error", "HEARTH_OPENAI_BASE_URL=" + upstream, "HEARTH_OPENAI_API_KEY=sk-test"}, addr
}

// TestFaultKill9DuringWritesAndStream kills the server while pipes are
// being created and a run is streaming. After the restart every write that
// was acknowledged is there, every record reads back (no half-written
// JSON: list endpoints decode every record they scan), and the server
// runs pipes again.
func TestFaultKill9DuringWritesAndStream(t *testing.T) {
	bin := hearthBinary(t)
	up := fake.NewOpenAI()
	defer up.Close()
	env, addr := faultEnv(t, up.BaseURL())
	p := startBinary(t, bin, env, addr)

	p.must(t, "POST", "/v1/pipes", map[string]any{"name": "base"})
	type threadWant struct {
		id   string
		msgs int
	}
	var threads []threadWant
	for i := range 3 {
		status, b, h, err := p.do("POST", "/v1/pipes/run", map[string]any{"name": "base", "messages": []any{map[string]any{"role": "user", "content": fmt.Sprint("question ", i)}}})
		if err != nil || status != 200 {
			t.Fatalf("run: %d %v %s", status, err, b)
		}
		threads = append(threads, threadWant{h.Get("lb-thread-id"), 2})
	}

	// Writers race the kill: record which creates were acknowledged.
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				if status, _, _, err := p.do("POST", "/v1/pipes", map[string]any{"name": name, "description": strings.Repeat("d", 200)}); err == nil && status == 200 {
					mu.Lock()
					acked[name] = true
					mu.Unlock()
				}
			}
		}()
	}
	// A streaming run, killed after its first content arrives.
	streamText := strings.Repeat("word ", 200)
	up.SetDefault(fake.Reply{Text: streamText, ChunkDelay: 20 * time.Millisecond})
	req, _ := http.NewRequest("POST", p.url+"/v1/pipes/run", strings.NewReader(`{"name":"base","stream":true,"messages":[{"role":"user","content":"stream please"}]}`))
	key := faultKey
	if p.key != "" {
		key = p.key
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	streamThread := resp.Header.Get("lb-thread-id")
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended early: %v", err)
		}
		if strings.Contains(line, `"content":"word`) {
			break
		}
	}
	time.Sleep(100 * time.Millisecond) // let the writers get going
	p.kill()
	close(stop)
	wg.Wait()
	resp.Body.Close()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged before the kill")
	}

	up.SetDefault(fake.Reply{})
	p = startBinary(t, bin, env, addr)
	var pipes []struct {
		Name string `json:"name"`
	}
	json.Unmarshal(p.must(t, "GET", "/v1/pipes", nil), &pipes)
	have := map[string]bool{}
	for _, pp := range pipes {
		have[pp.Name] = true
	}
	for name := range acked {
		if !have[name] {
			t.Errorf("acknowledged pipe %s lost", name)
		}
	}
	for _, tw := range threads {
		var msgs []json.RawMessage
		json.Unmarshal(p.must(t, "GET", "/v1/threads/"+tw.id+"/messages", nil), &msgs)
		if len(msgs) != tw.msgs {
			t.Errorf("thread %s: %d messages, want %d", tw.id, len(msgs), tw.msgs)
		}
	}
	checkInterruptedThread(t, p, streamThread, "stream please", streamText)
	p.must(t, "GET", "/v1/threads", nil)
	p.must(t, "GET", "/v1/runs", nil)
	p.must(t, "GET", "/v1/keys", nil)
	p.must(t, "POST", "/v1/pipes/run", map[string]any{"name": "base", "messages": []any{map[string]any{"role": "user", "content": "again"}}})
	t.Logf("%d acknowledged pipe creates survived the kill", len(acked))
}

// TestFaultKill9DuringIngestion uploads several documents, kills the
// server while they are being embedded, and restarts it: every document
// whose upload was acknowledged ends completed, none is lost or stays in
// progress, and retrieval finds each one by a word only it contains.
func TestFaultKill9DuringIngestion(t *testing.T) {
	bin := hearthBinary(t)
	up := fake.NewOpenAI()
	defer up.Close()
	up.SetDefault(fake.Reply{FirstByteDelay: 300 * time.Millisecond})
	env, addr := faultEnv(t, up.BaseURL())
	env = append(env, "HEARTH_INGEST_WORKERS=2")
	p := startBinary(t, bin, env, addr)
	p.must(t, "POST", "/v1/memory", map[string]any{"name": "kb", "chunk_size": 500, "chunk_overlap": 50})
	docs := len(faultDocWords)
	for i := range docs {
		var step1 struct {
			SignedURL string `json:"signedUrl"`
		}
		json.Unmarshal(p.must(t, "POST", "/v1/memory/documents", map[string]any{"memoryName": "kb", "fileName": fmt.Sprintf("doc%d.md", i)}), &step1)
		body := fmt.Sprintf("# Doc %d\n\n%s", i, strings.Repeat(fmt.Sprintf("Fact number %d about the %s survives a crash. ", i, faultDocWords[i]), 60))
		req, _ := http.NewRequest("PUT", step1.SignedURL, strings.NewReader(body))
		req.Header.Set("Content-Type", "text/markdown")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("upload %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for up.Count() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no embedding request reached the provider")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.kill()

	up.SetDefault(fake.Reply{})
	p = startBinary(t, bin, env, addr)
	deadline = time.Now().Add(30 * time.Second)
	for {
		var list []struct{ Name, Status string }
		json.Unmarshal(p.must(t, "GET", "/v1/memory/kb/documents", nil), &list)
		if len(list) != docs {
			t.Fatalf("%d documents after the restart, want %d", len(list), docs)
		}
		done := 0
		for _, d := range list {
			if d.Status == "completed" || d.Status == "failed" {
				done++
			}
		}
		if done == docs {
			for _, d := range list {
				if d.Status != "completed" {
					t.Errorf("%s ended %s", d.Name, d.Status)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("documents still in progress: %+v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Each document is found by the word only it contains.
	for i, word := range faultDocWords {
		var hits []struct {
			Text         string `json:"text"`
			DocumentName string `json:"documentName"`
		}
		b := p.must(t, "POST", "/v1/memory/retrieve", map[string]any{"query": word, "memory": []map[string]string{{"name": "kb"}}})
		if err := json.Unmarshal(b, &hits); err != nil {
			t.Fatalf("retrieve %q: %v %s", word, err, b)
		}
		found := false
		for _, h := range hits {
			if strings.Contains(h.Text, word) {
				found = true
				if want := fmt.Sprintf("doc%d.md", i); h.DocumentName != want {
					t.Errorf("retrieve %q: a chunk of %s holds it, want only %s", word, h.DocumentName, want)
				}
			}
		}
		if !found {
			t.Errorf("retrieve %q: no chunk of doc%d.md after the restart: %s", word, i, b)
		}
	}
}

// faultDocWords are words unique to each document of the ingestion test.
var faultDocWords = []string{"aardvark", "bison", "caracal", "dugong", "echidna", "fossa"}

// checkInterruptedThread checks that the thread of a stream killed
// mid-answer is absent or whole: the thread and its messages were written
// in one transaction, so it either does not exist or holds the request's
// user message and an assistant message that is the whole answer, or a
// prefix of it marked partial (hearth_partial). A thread without its
// messages, or a cut answer that does not say so, fails.
func checkInterruptedThread(t *testing.T, p *proc, id, question, answer string) {
	t.Helper()
	status, b, _, err := p.do("GET", "/v1/threads/"+id+"/messages", nil)
	if err != nil {
		t.Fatalf("interrupted thread: %v", err)
	}
	tstatus, tb, _, _ := p.do("GET", "/v1/threads/"+id, nil)
	if status == 404 {
		if tstatus != 404 {
			t.Errorf("interrupted thread: its messages are gone but the thread answers %d %s", tstatus, tb)
		}
		return
	}
	if status != 200 || tstatus != 200 {
		t.Fatalf("interrupted thread: messages %d %s, thread %d %s", status, b, tstatus, tb)
	}
	var msgs []struct {
		Role     string            `json:"role"`
		Content  *string           `json:"content"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(b, &msgs); err != nil {
		t.Fatalf("interrupted thread: %v %s", err, b)
	}
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[0].Content == nil || *msgs[0].Content != question || msgs[1].Role != "assistant" {
		t.Fatalf("interrupted thread is not whole (want the user message and the answer): %s", b)
	}
	got := ""
	if msgs[1].Content != nil {
		got = *msgs[1].Content
	}
	partial := msgs[1].Metadata["hearth_partial"] == "true"
	switch {
	case got == answer && !partial:
	case partial && got != "" && strings.HasPrefix(answer, got):
	default:
		t.Errorf("interrupted thread: the answer is %d of %d bytes, partial=%v: %s", len(got), len(answer), partial, b)
	}
}

// TestFaultReadOnlyDataDir: a data dir the server cannot write ends the
// start with a clear message and exit status 1, not a panic. As root the
// server runs as nobody, for whom the 0555 directory is read-only.
func TestFaultReadOnlyDataDir(t *testing.T) {
	bin := hearthBinary(t)
	base, err := os.MkdirTemp("", "hearth-ro-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755)
	exe := filepath.Join(base, "hearth")
	if b, err := os.ReadFile(bin); err != nil || os.WriteFile(exe, b, 0o755) != nil {
		t.Fatal(err)
	}
	data := filepath.Join(base, "data")
	os.Mkdir(data, 0o555)
	cmd := exec.Command(exe, "serve", "-data", data, "-addr", "127.0.0.1:0")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v (%s)", err, out)
	}
	if !strings.Contains(string(out), "data directory "+data+" is not writable") || strings.Contains(string(out), "panic") {
		t.Fatalf("output %q", out)
	}
}

// TestMain lets this test binary be the PDF parser child that build()
// wires (the server runs its own executable with the hidden subcommand,
// which here is the test binary), and removes the binary the fault tests
// built.
func TestMain(m *testing.M) {
	if sandbox.IsChild(os.Args[1:]) {
		os.Exit(sandbox.Serve(os.Stdin, os.Stdout))
	}
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}
