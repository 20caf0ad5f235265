package server

import (
	"io"
	"sync"
)

// sniffLen is how many bytes net/http's ReadFrom copies before it sends
// the header (http.DetectContentType reads at most that many).
const sniffLen = 512

// copyBufPool holds the buffers of ReadFrom's copies, as net/http's
// (per process: buffers only, nothing for nodes to share).
var copyBufPool = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// writerOnly hides a writer's ReadFrom from io.CopyBuffer.
type writerOnly struct{ io.Writer }

// ReadFrom copies src into the answer as net/http's response.ReadFrom
// does: the first 512 bytes through the buffers (so that a short source
// still gets a Content-Length and the header a sniffed Content-Type),
// then, unchunked, straight into the connection (sendfile for a file).
func (w *leanResponse) ReadFrom(src io.Reader) (n int64, err error) {
	bp := copyBufPool.Get().(*[32 << 10]byte)
	defer copyBufPool.Put(bp)
	buf := bp[:]
	rf, ok := w.c.rwc.(io.ReaderFrom)
	if !ok {
		return io.CopyBuffer(writerOnly{w}, src, buf)
	}
	if !w.cwWrote {
		n0, err := io.CopyBuffer(writerOnly{w}, io.LimitReader(src, sniffLen), buf)
		n += n0
		if err != nil || n0 < sniffLen {
			return n, err
		}
	}
	_ = w.w.Flush()
	if !w.cwWrote {
		w.writeHeader(nil)
	}
	_ = w.c.bufw.Flush()
	if !w.chunking && bodyAllowedForStatus(w.status) && w.req.Method != "HEAD" {
		w.c.clearLeftWriteDeadline()
		n0, err := rf.ReadFrom(src)
		n += n0
		w.written += n0
		return n, err
	}
	n0, err := io.CopyBuffer(writerOnly{w}, src, buf)
	return n + n0, err
}
