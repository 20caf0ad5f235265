package server

import (
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
	"github.com/hearth-dev/hearth/engine/jsonread"
)

// The bodies of POST /v1/pipes/run (and the beta runs), /v1/agent/run and
// /openai/v1/chat/completions are decoded by hand: encoding/json spends
// about twenty allocations and most of a request's decoding time on
// reflection. decodeFast gives the value json.Unmarshal would give into a
// zero value, or reports false, and the body then goes through
// encoding/json (which also makes every error): anything the hand path
// does not handle exactly, invalid JSON included (see package jsonread,
// which checks the syntax as it reads), cannot change behaviour.
// TestDecodeRunBodiesMatchEncodingJSON and FuzzDecodeRunBodies compare the
// two paths.

// decodeFast decodes b into v, which must be a zero value, when v is one of
// the run request types and the hand-written path handles b; on false v
// is reset to its zero value.
func decodeFast(b []byte, v any) bool {
	switch v := v.(type) {
	case *pipeRun:
		if r := jsonread.New(b); !readPipeRun(&r, v) || !r.End() {
			*v = pipeRun{}
			return false
		}
	case *agent.AgentRunRequest:
		if r := jsonread.New(b); !readAgentRun(&r, v, nil) || !r.End() {
			*v = agent.AgentRunRequest{}
			return false
		}
	case *agent.CompletionRequest:
		if r := jsonread.New(b); !readCompletion(&r, v) || !r.End() {
			*v = agent.CompletionRequest{}
			return false
		}
	default:
		return false
	}
	return true
}

var runBodyNames = []string{"name", "messages", "variables", "threadId", "stream", "json", "tools", "memory", "llmKey", "include_sources", "version"}

// readPipeRun decodes a pipe run body (runBody's fields) into b.
func readPipeRun(r *jsonread.Reader, b *pipeRun) bool {
	run := &b.run
	return r.Object(runBodyNames, func(k int) bool {
		switch k {
		case 0:
			return jsonread.ReadString(r, &run.Name)
		case 1:
			return readMessages(r, &run.Messages, b.msgRoom[:])
		case 2:
			return readVariables(r, (*engine.Variables)(&run.Variables))
		case 3:
			return jsonread.ReadString(r, &run.ThreadID)
		case 4:
			return jsonread.ReadBoolPtr(r, &b.stream)
		case 5:
			return jsonread.ReadBoolPtr(r, &run.JSON)
		case 6:
			return readTools(r, &run.Tools)
		case 7:
			return readMemoryRefs(r, &run.Memory)
		case 8:
			return jsonread.ReadString(r, &run.LLMKey)
		case 9:
			return jsonread.ReadBool(r, &b.includeSources)
		default:
			return jsonread.ReadInt(r, &run.Version)
		}
	})
}

var agentRunNames = []string{"model", "input", "instructions", "stream", "tools", "tool_choice", "parallel_tool_calls",
	"reasoning_effort", "temperature", "top_p", "max_tokens", "max_completion_tokens", "presence_penalty",
	"frequency_penalty", "stop", "response_format", "customModelParams", "mcp_servers", "fallback_models", "apiKey"}

// readAgentRun decodes an agent run body into a. With sh, the model, the
// input and the instructions are left in the body's bytes for sh.own
// (run_json_shared.go).
func readAgentRun(r *jsonread.Reader, a *agent.AgentRunRequest, sh *sharedAgentStrings) bool {
	return r.Object(agentRunNames, func(k int) bool {
		switch {
		case sh == nil:
		case k == 0:
			return sh.model.read(r, &a.Model)
		case k == 1:
			raw, ok := r.Raw()
			sh.input.set(raw)
			return ok
		case k == 2:
			return sh.instructions.readPtr(r, &a.Instructions)
		}
		switch k {
		case 0:
			return jsonread.ReadString(r, &a.Model)
		case 1:
			return jsonread.ReadRaw(r, &a.Input)
		case 2:
			return jsonread.ReadStringPtr(r, &a.Instructions)
		case 3:
			return jsonread.ReadBool(r, &a.Stream)
		case 4:
			return jsonread.ReadRaws(r, &a.Tools)
		case 5:
			return jsonread.ReadRaw(r, &a.ToolChoice)
		case 6:
			return jsonread.ReadBoolPtr(r, &a.ParallelToolCalls)
		case 7:
			return jsonread.ReadStringPtr(r, &a.ReasoningEffort)
		case 8:
			return jsonread.ReadFloatPtr(r, &a.Temperature)
		case 9:
			return jsonread.ReadFloatPtr(r, &a.TopP)
		case 10:
			return jsonread.ReadFloatPtr(r, &a.MaxTokens)
		case 11:
			return jsonread.ReadFloatPtr(r, &a.MaxCompletionTokens)
		case 12:
			return jsonread.ReadFloatPtr(r, &a.PresencePenalty)
		case 13:
			return jsonread.ReadFloatPtr(r, &a.FrequencyPenalty)
		case 14:
			return jsonread.ReadRaw(r, &a.Stop)
		case 15:
			return jsonread.ReadRaw(r, &a.ResponseFormat)
		case 16:
			return jsonread.ReadRawMap(r, &a.CustomModelParams)
		case 17:
			return readMCPServers(r, &a.MCPServers)
		case 18:
			return jsonread.ReadStrings(r, &a.FallbackModels)
		default:
			return jsonread.ReadString(r, &a.APIKey)
		}
	})
}

var completionNames = []string{"model", "messages", "stream", "stream_options", "tools", "tool_choice",
	"parallel_tool_calls", "response_format", "n", "temperature", "top_p", "max_tokens", "max_completion_tokens",
	"stop", "seed", "presence_penalty", "frequency_penalty", "user", "reasoning_effort", "cache"}

var streamOptionNames = []string{"include_usage"}

func readCompletion(r *jsonread.Reader, c *agent.CompletionRequest) bool {
	return r.Object(completionNames, func(k int) bool {
		switch k {
		case 0:
			return jsonread.ReadString(r, &c.Model)
		case 1:
			return jsonread.ReadRaw(r, &c.Messages)
		case 2:
			return jsonread.ReadBool(r, &c.Stream)
		case 3:
			if r.Null() {
				return true
			}
			c.StreamOptions = new(agent.StreamOptions)
			return r.Object(streamOptionNames, func(int) bool { return jsonread.ReadBool(r, &c.StreamOptions.IncludeUsage) })
		case 4:
			return jsonread.ReadRaws(r, &c.Tools)
		case 5:
			return jsonread.ReadRaw(r, &c.ToolChoice)
		case 6:
			return jsonread.ReadBoolPtr(r, &c.ParallelToolCalls)
		case 7:
			return jsonread.ReadRaw(r, &c.ResponseFormat)
		case 8:
			return jsonread.ReadFloatPtr(r, &c.N)
		case 9:
			return jsonread.ReadFloatPtr(r, &c.Temperature)
		case 10:
			return jsonread.ReadFloatPtr(r, &c.TopP)
		case 11:
			return jsonread.ReadFloatPtr(r, &c.MaxTokens)
		case 12:
			return jsonread.ReadFloatPtr(r, &c.MaxCompletionTokens)
		case 13:
			return jsonread.ReadRaw(r, &c.Stop)
		case 14:
			return jsonread.ReadFloatPtr(r, &c.Seed)
		case 15:
			return jsonread.ReadFloatPtr(r, &c.PresencePenalty)
		case 16:
			return jsonread.ReadFloatPtr(r, &c.FrequencyPenalty)
		case 17:
			return jsonread.ReadString(r, &c.User)
		case 18:
			return jsonread.ReadStringPtr(r, &c.ReasoningEffort)
		default:
			return jsonread.ReadString(r, &c.Cache)
		}
	})
}

var mcpServerNames = []string{"name", "type", "url", "authorization_token", "tool_configuration", "custom_headers"}

var mcpToolConfigNames = []string{"allowed_tools", "enabled"}

func readMCPServers(r *jsonread.Reader, out *[]engine.MCPServer) bool {
	return jsonread.ReadSlice(r, out, func(s *engine.MCPServer) bool {
		return r.Object(mcpServerNames, func(k int) bool {
			switch k {
			case 0:
				return jsonread.ReadString(r, &s.Name)
			case 1:
				return jsonread.ReadString(r, &s.Type)
			case 2:
				return jsonread.ReadString(r, &s.URL)
			case 3:
				return jsonread.ReadString(r, &s.AuthorizationToken)
			case 4:
				if r.Null() {
					return true
				}
				s.ToolConfiguration = new(engine.MCPToolConfig)
				return r.Object(mcpToolConfigNames, func(k int) bool {
					if k == 0 {
						return jsonread.ReadStrings(r, &s.ToolConfiguration.AllowedTools)
					}
					return jsonread.ReadBoolPtr(r, &s.ToolConfiguration.Enabled)
				})
			default:
				return jsonread.ReadStringMap(r, &s.CustomHeaders)
			}
		})
	})
}
