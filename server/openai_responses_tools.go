package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// refusedTools are the Responses tool types that need OpenAI's own
// servers or a sandbox Hearth does not have; a request offering one is
// refused by name.
const refusedTools = "file_search, code_interpreter, computer_use_preview, image_generation, mcp, local_shell, shell and apply_patch (the built-in one; Codex's freeform apply_patch is a custom tool and works)"

// droppedTools are the hosted tool types that are left out of the call:
// the model simply does not get them (Codex offers web_search on every
// request), as answering without a tool is always valid.
var droppedTools = map[string]bool{"web_search": true, "web_search_preview": true, "web_search_2025_08_26": true, "web_search_preview_2025_03_11": true}

// namespaceSep joins a namespace tool's name and a function of it into
// the chat function name the model sees.
const namespaceSep = "__"

// toolMap is how a request's Responses tools became chat functions, so
// the model's calls come back as the items the client offered: custom
// tools as custom_tool_call items, namespace functions with their
// namespace.
type toolMap struct {
	chat []json.RawMessage
	// custom holds the names of the custom (freeform) tools.
	custom map[string]bool
	// ns maps a chat function name to its namespace and own name.
	ns map[string][2]string
	// dropped names the hosted tools left out, for the lb-warning header.
	dropped []string
	seen    map[string]bool
}

// responsesTool is the union of the tool fields Hearth reads.
type responsesTool struct {
	Type        string            `json:"type"`
	Name        json.RawMessage   `json:"name"`
	Description json.RawMessage   `json:"description,omitempty"`
	Parameters  json.RawMessage   `json:"parameters,omitempty"`
	Strict      json.RawMessage   `json:"strict,omitempty"`
	Format      json.RawMessage   `json:"format,omitempty"`
	Tools       []json.RawMessage `json:"tools,omitempty"`
}

// responsesTools turns Responses tools into chat functions: function
// tools as they are, custom (freeform) tools as a function of one string
// argument "input" whose description carries the tool's grammar, and
// the functions of a namespace tool as "<namespace>__<name>". Hosted web
// search is dropped; the other built-in tools are refused by name.
func responsesTools(raws []json.RawMessage) (*toolMap, error) {
	tm := &toolMap{chat: make([]json.RawMessage, 0, len(raws)), custom: map[string]bool{}, ns: map[string][2]string{}, seen: map[string]bool{}}
	for i, raw := range raws {
		if err := tm.add(elemName("tools", i), raw, ""); err != nil {
			return nil, err
		}
	}
	return tm, nil
}

// add reads one tool; ns is the namespace it belongs to, if any.
func (tm *toolMap) add(f string, raw json.RawMessage, ns string) error {
	var t responsesTool
	if engine.JSONKind(raw) != "object" || json.Unmarshal(raw, &t) != nil {
		return engine.FieldError(f, "must be a tool object {type: function, name, description, parameters}")
	}
	name := ""
	if len(t.Name) > 0 && engine.JSONKind(t.Name) != "string" {
		return engine.FieldError(f+".name", "must be a string, got %s", engine.JSONKind(t.Name))
	}
	json.Unmarshal(t.Name, &name)
	fn := map[string]json.RawMessage{}
	for k, v := range map[string]json.RawMessage{"description": t.Description, "parameters": t.Parameters, "strict": t.Strict} {
		if len(v) > 0 && engine.JSONKind(v) != "null" {
			fn[k] = v
		}
	}
	switch {
	case t.Type == "function":
	case t.Type == "custom" && ns == "":
		tm.custom[name] = true
		fn = customFunction(t)
	case t.Type == "namespace" && ns == "":
		if name == "" {
			return engine.FieldError(f+".name", "is required on namespace tools")
		}
		for j, sub := range t.Tools {
			if err := tm.add(elemName(f+".tools", j), sub, name); err != nil {
				return err
			}
		}
		return nil
	case droppedTools[t.Type] && ns == "":
		tm.dropped = append(tm.dropped, t.Type)
		return nil
	case t.Type == "":
		return engine.FieldError(f+".type", "is required (function, custom or namespace)")
	case ns != "":
		return engine.FieldError(f+".type", "must be function inside a namespace tool, got %q", t.Type)
	default:
		return engine.FieldError(f+".type", "%q is a built-in tool of OpenAI's servers, which Hearth does not run: function, custom and namespace tools are supported, web_search is left out, and these are refused: %s", t.Type, refusedTools)
	}
	if ns != "" {
		full := ns + namespaceSep + name
		tm.ns[full] = [2]string{ns, name}
		name = full
	}
	// Names are checked here, where the field path is the request's own.
	if !engine.ValidToolName(name) {
		return engine.FieldError(f+".name", "must be 1-64 characters of a-z, A-Z, 0-9, '_' or '-' (a namespace function's as <namespace>__<name>), got %q", name)
	}
	if tm.seen[name] {
		return engine.FieldError(f+".name", "duplicates the tool name %q", name)
	}
	tm.seen[name] = true
	fn["name"], _ = json.Marshal(name)
	b, _ := json.Marshal(map[string]any{"type": "function", "function": fn})
	tm.chat = append(tm.chat, b)
	return nil
}

// customFunction is the chat function standing for a custom tool: its
// free text goes in the one argument "input", and its format (a Lark or
// regex grammar) is told to the model in the description.
func customFunction(t responsesTool) map[string]json.RawMessage {
	var desc string
	json.Unmarshal(t.Description, &desc)
	var format struct {
		Type       string `json:"type"`
		Syntax     string `json:"syntax"`
		Definition string `json:"definition"`
	}
	json.Unmarshal(t.Format, &format)
	input := "The tool's input, as free text (not JSON)."
	if format.Type == "grammar" && format.Definition != "" {
		input += " It must follow this " + format.Syntax + " grammar:\n" + format.Definition
	}
	params, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"input": map[string]string{"type": "string", "description": input}},
		"required": []string{"input"}, "additionalProperties": false})
	d, _ := json.Marshal(desc)
	return map[string]json.RawMessage{"description": d, "parameters": params}
}

// outputCustomCall is a custom_tool_call output item.
type outputCustomCall struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Input  string `json:"input"`
}

// customInput is the free text of a custom tool call: the "input"
// argument, or the arguments as sent when the model wrote no JSON.
func customInput(args string) string {
	var a struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Input != nil {
		return *a.Input
	}
	return args
}

// callItem is the output item of a finished tool call, by the kind of
// tool the client offered.
func (tm *toolMap) callItem(ctx context.Context, id, status string, tc *engine.ToolCall) any {
	name := tc.Function.Name
	if tm != nil && tm.custom[name] {
		if id == "" {
			id = engine.NewPrefixedID(ctx, "ctc_", 24)
		}
		return outputCustomCall{ID: id, Type: "custom_tool_call", Status: status, CallID: tc.ID, Name: name, Input: customInput(tc.Function.Arguments)}
	}
	if id == "" {
		id = engine.NewPrefixedID(ctx, "fc_", 24)
	}
	item := outputCall{ID: id, Type: "function_call", Status: status, CallID: tc.ID, Name: name, Arguments: tc.Function.Arguments}
	if tm != nil {
		if nn, ok := tm.ns[name]; ok {
			item.Namespace, item.Name = nn[0], nn[1]
		}
	}
	return item
}

// isCustom reports whether name is a custom tool of the request.
func (tm *toolMap) isCustom(name string) bool { return tm != nil && tm.custom[name] }

// chatToolName is the chat function name of a function_call item:
// "<namespace>__<name>" when it names a namespace.
func chatToolName(namespace, name string) string {
	if namespace == "" || strings.HasPrefix(name, namespace+namespaceSep) {
		return name
	}
	return namespace + namespaceSep + name
}
