package providers

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
)

// net/http's Transport asks for gzip on its own when a request names no
// encoding (https://pkg.go.dev/net/http#Transport, DisableCompression)
// and then decompresses a gzip answer transparently; to add the header it
// makes a header map and a value for every request. The caller adds the
// same header with a shared value instead, and decompresses what it asked
// for as the transport would (the answer's Content-Encoding and
// Content-Length removed, Uncompressed set): the upstream sees the same
// request, the adapters the same answer.

// gzipAccept is the shared Accept-Encoding value (len == cap, so an Add
// copies instead of writing into it).
var gzipAccept = []string{"gzip"}

// askGzip adds Accept-Encoding: gzip to req when the client's transport
// would add it itself: an *http.Transport with compression on (a client
// without a transport of its own goes through Client.Do, caller.do, and
// its transport asks), and a request with no Accept-Encoding or Range of its
// own that is not a HEAD. It reports whether it did.
func (c *caller) askGzip(req *http.Request) bool {
	t, _ := c.client.Transport.(*http.Transport)
	if t == nil || t.DisableCompression || req.Method == http.MethodHead {
		return false
	}
	if _, ok := req.Header["Accept-Encoding"]; ok {
		return false
	}
	if _, ok := req.Header["Range"]; ok {
		return false
	}
	req.Header["Accept-Encoding"] = gzipAccept
	return true
}

// ungzip decompresses resp's body when the upstream answered the gzip
// askGzip asked for.
func ungzip(resp *http.Response) {
	if !strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		return
	}
	resp.Body = &gzipBody{body: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

// gzipReaders keeps gzip readers between answers. A pool of one process:
// it holds no request's data between uses, and with several Hearth nodes
// each has its own.
var gzipReaders sync.Pool

// putGzip returns zr to the pool, first pointed at an empty reader so the
// pool holds no answer's body (a flate.Reader: Reset then allocates no
// buffer).
func putGzip(zr *gzip.Reader) {
	_ = zr.Reset(emptyReader{})
	gzipReaders.Put(zr)
}

// emptyReader is at its end at once.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyReader) ReadByte() (byte, error)  { return 0, io.EOF }

var (
	errGzipConcurrentRead = errors.New("http: concurrent read on a decompressed response body")
	errGzipReadAfterClose = errors.New("http: read on closed response body")
)

// gzipBody is a gzip answer's body, decompressed on the fly. Its reader
// is taken from the pool at the first Read and returned at Close; a Close
// during a Read (a stream closed from another goroutine) returns it once
// that Read ends.
type gzipBody struct {
	body io.ReadCloser
	mu   sync.Mutex
	zr   *gzip.Reader
	// err is sticky: the reader's first error, errGzipConcurrentRead
	// while a Read holds zr, errGzipReadAfterClose once closed.
	err error
}

func (g *gzipBody) acquire() (*gzip.Reader, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return nil, g.err
	}
	if g.zr == nil {
		zr, _ := gzipReaders.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(g.body)
		} else {
			err = zr.Reset(g.body)
		}
		if err != nil {
			g.err = err
			return nil, err
		}
		g.zr = zr
	}
	zr := g.zr
	g.zr, g.err = nil, errGzipConcurrentRead
	return zr, nil
}

func (g *gzipBody) release(zr *gzip.Reader) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == errGzipConcurrentRead {
		g.zr, g.err = zr, nil
		return
	}
	putGzip(zr)
}

// Read reads decompressed bytes.
func (g *gzipBody) Read(p []byte) (int, error) {
	zr, err := g.acquire()
	if err != nil {
		return 0, err
	}
	defer g.release(zr)
	return zr.Read(p)
}

// Close returns the reader to the pool (or lets the Read in progress do
// it) and closes the upstream body.
func (g *gzipBody) Close() error {
	g.mu.Lock()
	if g.zr != nil {
		putGzip(g.zr)
		g.zr = nil
	}
	g.err = errGzipReadAfterClose
	g.mu.Unlock()
	return g.body.Close()
}
