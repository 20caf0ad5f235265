package providers

import (
	"bytes"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// maxPooledBody is the largest buffer kept for reuse: a rare large answer
// is read into a buffer that is then left to the collector, so the pool
// never pins more than this per idle buffer.
const maxPooledBody = 1 << 20

// bodyPool holds the buffers upstream answers are read into. It lives in
// one process's memory and holds no state of any request between uses:
// with several Hearth nodes each has its own pool, and nothing about it is
// shared or needs to be.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readPooled reads the whole answer of call into a pooled buffer and closes
// the call. The caller decodes from buf.Bytes() (encoding/json copies every
// string it keeps) and hands the buffer back with releaseBody. A read
// error maps as decodeResponse maps a decode error.
func readPooled(provider string, call *upstreamCall) (*bytes.Buffer, error) {
	defer call.close()
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	if n := call.resp.ContentLength; n > 0 && n <= maxPooledBody {
		buf.Grow(int(n) + 1)
	}
	if _, err := buf.ReadFrom(call.resp.Body); err != nil {
		releaseBody(buf)
		if call.ctx.Err() != nil {
			return nil, transportError(provider, call.ctx, err)
		}
		return nil, call.redact(&engine.Error{Code: engine.CodeUpstream, Message: provider + " sent a response Hearth could not read", Err: err})
	}
	return buf, nil
}

// releaseBody returns buf to the pool unless it grew past maxPooledBody.
func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBody {
		bodyPool.Put(buf)
	}
}
