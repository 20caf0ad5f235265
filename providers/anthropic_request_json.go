package providers

import (
	"encoding/json"
	"strconv"

	"github.com/hearth-dev/hearth/engine/jsonwrite"
)

// The Anthropic Messages request body is written by hand too, to the
// bytes json.Marshal writes for the antRequest; custom model parameters
// and values the appender does not handle as encoding/json would go
// through marshalWithExtra (see encodeOpenAIRequest).

// encodeAnthropicRequest returns the body of r with extra merged in, as
// marshalWithExtra(r, extra) returns it.
func encodeAnthropicRequest(r *antRequest, extra map[string]json.RawMessage) ([]byte, error) {
	extra = anthropicExtra(extra)
	if len(r.SystemBlocks) > 0 {
		return marshalWithExtra(antRequestWithSystemBlocks{antRequest: r, System: r.SystemBlocks}, extra)
	}
	if len(extra) == 0 {
		if b, ok := appendAnthropicRequest(make([]byte, 0, anthropicRequestSize(r)), r); ok {
			return b, nil
		}
	}
	return marshalWithExtra(r, extra)
}

// anthropicRequestSize estimates the encoded size of r.
func anthropicRequestSize(r *antRequest) int {
	n := 256 + len(r.Model) + len(r.System)
	for _, m := range r.Messages {
		for i := range m.Content {
			bl := &m.Content[i]
			n += 64 + len(bl.raw) + len(bl.Text) + len(bl.Input) + len(bl.Content) + len(bl.ID)
			if bl.Source != nil {
				n += len(bl.Source.Data) + len(bl.Source.URL)
			}
		}
	}
	for _, t := range r.Tools {
		n += 64 + len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return n + n/16
}

// appendAnthropicRequest appends r as json.Marshal writes it; false when
// r needs encoding/json.
func appendAnthropicRequest(b []byte, r *antRequest) ([]byte, bool) {
	ok := true
	b = append(b, `{"model":`...)
	b = jsonwrite.String(b, r.Model, true)
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(r.MaxTokens), 10)
	b = jsonwrite.StringField(b, `,"system":`, r.System, true)
	b = append(b, `,"messages":`...)
	if r.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Messages {
			m := &r.Messages[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"role":`...)
			b = jsonwrite.String(b, m.Role, true)
			b = append(b, `,"content":`...)
			if b, ok = appendAntBlocks(b, m.Content); !ok {
				return b, false
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i := range r.Tools {
			t := &r.Tools[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonwrite.String(b, t.Name, true)
			b = jsonwrite.StringField(b, `,"description":`, t.Description, true)
			b = append(b, `,"input_schema":`...)
			if b, ok = jsonwrite.Raw(b, t.InputSchema, true); !ok {
				return b, false
			}
			if b, ok = jsonwrite.RawField(b, `,"cache_control":`, t.CacheControl, true); !ok {
				return b, false
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if tc := r.ToolChoice; tc != nil {
		b = append(b, `,"tool_choice":{"type":`...)
		b = jsonwrite.String(b, tc.Type, true)
		b = jsonwrite.StringField(b, `,"name":`, tc.Name, true)
		if tc.DisableParallelToolUse {
			b = append(b, `,"disable_parallel_tool_use":true`...)
		}
		b = append(b, '}')
	}
	if b, ok = jsonwrite.FloatField(b, `,"temperature":`, r.Temperature); !ok {
		return b, false
	}
	if b, ok = jsonwrite.FloatField(b, `,"top_p":`, r.TopP); !ok {
		return b, false
	}
	b = jsonwrite.StringsField(b, `,"stop_sequences":`, r.StopSequences, true)
	if r.Stream {
		b = append(b, `,"stream":true`...)
	}
	if th := r.Thinking; th != nil {
		b = append(b, `,"thinking":{"type":`...)
		b = jsonwrite.String(b, th.Type, true)
		if th.BudgetTokens != 0 {
			b = append(b, `,"budget_tokens":`...)
			b = strconv.AppendInt(b, int64(th.BudgetTokens), 10)
		}
		b = append(b, '}')
	}
	if oc := r.OutputConfig; oc != nil {
		b = append(b, `,"output_config":{`...)
		if oc.Effort != "" {
			b = append(b, `"effort":`...)
			b = jsonwrite.String(b, oc.Effort, true)
		}
		if f := oc.Format; f != nil {
			if oc.Effort != "" {
				b = append(b, ',')
			}
			b = append(b, `"format":{"type":`...)
			b = jsonwrite.String(b, f.Type, true)
			b = append(b, `,"schema":`...)
			if b, ok = jsonwrite.Raw(b, f.Schema, true); !ok {
				return b, false
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// appendAntBlocks appends blocks as encoding/json writes them through
// antBlock.MarshalJSON: a block's raw bytes compacted, else its fields.
func appendAntBlocks(b []byte, blocks []antBlock) ([]byte, bool) {
	if blocks == nil {
		return append(b, "null"...), true
	}
	ok := true
	b = append(b, '[')
	for i := range blocks {
		bl := &blocks[i]
		if i > 0 {
			b = append(b, ',')
		}
		if bl.raw != nil {
			if b, ok = jsonwrite.Raw(b, bl.raw, true); !ok {
				return b, false
			}
			continue
		}
		b = append(b, `{"type":`...)
		b = jsonwrite.String(b, bl.Type, true)
		b = jsonwrite.StringField(b, `,"text":`, bl.Text, true)
		if src := bl.Source; src != nil {
			b = append(b, `,"source":{"type":`...)
			b = jsonwrite.String(b, src.Type, true)
			b = jsonwrite.StringField(b, `,"media_type":`, src.MediaType, true)
			b = jsonwrite.StringField(b, `,"data":`, src.Data, true)
			b = jsonwrite.StringField(b, `,"url":`, src.URL, true)
			b = append(b, '}')
		}
		b = jsonwrite.StringField(b, `,"id":`, bl.ID, true)
		b = jsonwrite.StringField(b, `,"name":`, bl.Name, true)
		if b, ok = jsonwrite.RawField(b, `,"input":`, bl.Input, true); !ok {
			return b, false
		}
		b = jsonwrite.StringField(b, `,"tool_use_id":`, bl.ToolUseID, true)
		if b, ok = jsonwrite.RawField(b, `,"content":`, bl.Content, true); !ok {
			return b, false
		}
		if b, ok = jsonwrite.RawField(b, `,"cache_control":`, bl.CacheControl, true); !ok {
			return b, false
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}
