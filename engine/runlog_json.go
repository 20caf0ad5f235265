package engine

import (
	"encoding/json"
	"strconv"
)

// AppendJSON appends the record as json.Marshal writes it (every run
// writes one, so it is encoded without reflection). A value encoding/json
// would refuse or needs its own checks for (a NaN cost, a year past 9999)
// goes through it, with its result.
func (r *RunRecord) AppendJSON(b []byte) ([]byte, error) {
	out, err := r.appendJSON(b)
	if err == errJSONFallback {
		var std []byte
		if std, err = json.Marshal((*runRecordFields)(r)); err != nil {
			return b, err
		}
		return append(b, std...), nil
	}
	return out, err
}

// runRecordFields has RunRecord's fields without its methods.
type runRecordFields RunRecord

func (r *RunRecord) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = appendJSONString(b, r.ID)
	b = append(b, `,"owner_login":`...)
	b = appendJSONString(b, r.Owner)
	b = append(b, `,"pipe_id":`...)
	b = appendJSONString(b, r.PipeID)
	b = append(b, `,"pipe":`...)
	b = appendJSONString(b, r.Pipe)
	if r.PipeVersion != 0 {
		b = append(b, `,"pipe_version":`...)
		b = strconv.AppendInt(b, int64(r.PipeVersion), 10)
	}
	b = append(b, `,"model":`...)
	b = appendJSONString(b, r.Model)
	if r.Deployment != "" {
		b = append(b, `,"deployment":`...)
		b = appendJSONString(b, r.Deployment)
	}
	b = append(b, `,"thread_id":`...)
	b = appendJSONString(b, r.ThreadID)
	b = append(b, `,"endpoint":`...)
	b = appendJSONString(b, r.Endpoint)
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, r.Stream)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, r.Status)
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, r.Error)
	}
	b = append(b, `,"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(r.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(r.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(r.TotalTokens), 10)
	if r.CachedTokens != 0 {
		b = append(b, `,"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(r.CachedTokens), 10)
	}
	if r.CacheWriteTokens != 0 {
		b = append(b, `,"cache_write_tokens":`...)
		b = strconv.AppendInt(b, int64(r.CacheWriteTokens), 10)
	}
	if r.CacheWrite1hTokens != 0 {
		b = append(b, `,"cache_write_1h_tokens":`...)
		b = strconv.AppendInt(b, int64(r.CacheWrite1hTokens), 10)
	}
	b = append(b, `,"latency_ms":`...)
	b = strconv.AppendInt(b, r.LatencyMs, 10)
	if r.FirstTokenMs != nil {
		b = append(b, `,"first_token_ms":`...)
		b = strconv.AppendInt(b, *r.FirstTokenMs, 10)
	}
	b = append(b, `,"cost_usd":`...)
	if r.CostUSD == nil {
		b = append(b, "null"...)
	} else if b, err = appendJSONFloat(b, *r.CostUSD); err != nil {
		return b, err
	}
	b = append(b, `,"created_at":`...)
	if b, err = appendJSONTime(b, r.CreatedAt); err != nil {
		return b, err
	}
	if r.Cache != "" {
		b = append(b, `,"cache":`...)
		b = appendJSONString(b, r.Cache)
	}
	if r.KeyID != "" {
		b = append(b, `,"key_id":`...)
		b = appendJSONString(b, r.KeyID)
	}
	if r.Kind != "" {
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, r.Kind)
	}
	if len(r.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, c := range r.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, c.Name)
			b = append(b, `,"server":`...)
			b = appendJSONString(b, c.Server)
			b = append(b, `,"duration_ms":`...)
			b = strconv.AppendInt(b, c.DurationMs, 10)
			if c.Error != "" {
				b = append(b, `,"error":`...)
				b = appendJSONString(b, c.Error)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.Images != 0 {
		b = append(b, `,"images":`...)
		b = strconv.AppendInt(b, int64(r.Images), 10)
	}
	if r.ContentStored {
		b = append(b, `,"content_stored":true`...)
	}
	if len(r.Guard) > 0 {
		g, err := json.Marshal(r.Guard)
		if err != nil {
			return b, err
		}
		b = append(append(b, `,"guard":`...), g...)
	}
	return append(b, '}'), nil
}
