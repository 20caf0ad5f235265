package engine

import "encoding/json"

// cachedResponse is a stored ChatResponse with the fields its JSON form
// leaves out (the Messages surface needs them), keyed by choice position.
type cachedResponse struct {
	Response *ChatResponse             `json:"r"`
	Thinking map[int][]json.RawMessage `json:"thinking,omitempty"`
	Stop     map[int]string            `json:"stop,omitempty"`
}

// cachedChunk is a stored ChatChunk, like cachedResponse.
type cachedChunk struct {
	Chunk    *ChatChunk                `json:"c"`
	Thinking map[int][]json.RawMessage `json:"thinking,omitempty"`
	Stop     map[int]string            `json:"stop,omitempty"`
}

func encodeCachedResponse(r *ChatResponse) (json.RawMessage, error) {
	c := cachedResponse{Response: r}
	for i := range r.Choices {
		ch := &r.Choices[i]
		if len(ch.Message.Thinking) > 0 {
			if c.Thinking == nil {
				c.Thinking = map[int][]json.RawMessage{}
			}
			c.Thinking[i] = ch.Message.Thinking
		}
		if ch.StopSequence != "" {
			if c.Stop == nil {
				c.Stop = map[int]string{}
			}
			c.Stop[i] = ch.StopSequence
		}
	}
	return json.Marshal(c)
}

// decodeCachedResponse returns a stored response with zero usage.
func decodeCachedResponse(b []byte) (*ChatResponse, error) {
	var c cachedResponse
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	if c.Response == nil {
		return nil, errBadCacheEntry
	}
	r := c.Response
	for i := range r.Choices {
		r.Choices[i].Message.Thinking = c.Thinking[i]
		r.Choices[i].StopSequence = c.Stop[i]
	}
	r.Usage = Usage{}
	return r, nil
}

func encodeCachedChunk(ch *ChatChunk) (json.RawMessage, error) {
	c := cachedChunk{Chunk: ch}
	for i := range ch.Choices {
		cc := &ch.Choices[i]
		if len(cc.Delta.Thinking) > 0 {
			if c.Thinking == nil {
				c.Thinking = map[int][]json.RawMessage{}
			}
			c.Thinking[i] = cc.Delta.Thinking
		}
		if cc.StopSequence != "" {
			if c.Stop == nil {
				c.Stop = map[int]string{}
			}
			c.Stop[i] = cc.StopSequence
		}
	}
	return json.Marshal(c)
}

// decodeCachedChunk returns a stored chunk; a usage it carried is zeroed.
func decodeCachedChunk(b []byte) (*ChatChunk, error) {
	var c cachedChunk
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	if c.Chunk == nil {
		return nil, errBadCacheEntry
	}
	ch := c.Chunk
	for i := range ch.Choices {
		ch.Choices[i].Delta.Thinking = c.Thinking[i]
		ch.Choices[i].StopSequence = c.Stop[i]
	}
	if ch.Usage != nil {
		ch.Usage = &Usage{}
	}
	return ch, nil
}

// errBadCacheEntry reports a stored entry that holds no answer.
var errBadCacheEntry = Errorf(CodeInternal, "response cache: malformed entry")
