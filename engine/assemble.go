package engine

import (
	"regexp"
	"strings"
)

// Default prompts of a pipe run (https://langbase.com/docs/api-reference/pipe/create).
const (
	DefaultJSONPrompt = "Output should be in JSON format."
	DefaultRAGPrompt  = "Below is some CONTEXT for you to answer the questions. ONLY answer from the CONTEXT. CONTEXT consists of multiple information chunks. Each chunk has a source mentioned at the end.\n\nFor each piece of response you provide, cite the source in brackets like so: [1].\n\nAt the end of the answer, always list each source with its corresponding number and provide the document name. like so [1] Filename.doc.\n\nIf you don't know the answer, just say that you don't know. Ask for more context and better questions if needed."
	// NoMatchRAGPrompt replaces the CONTEXT block when a memory's min_score
	// dropped every retrieved chunk (docs/memories-and-retrieval.md#score-thresholds).
	NoMatchRAGPrompt = "No information in the attached memories matched this question closely enough: every retrieved chunk scored below the pipe's min_score. Say that the documents do not cover the question; do not make up an answer from them."
)

// ComposeSystemPrompt builds the one system message of a run from the
// pipe's prompt slots, in order: the system prompt, the safety guideline,
// the JSON instruction (when JSON mode is on) and the RAG block (only when
// memory returned chunks). The formatting follows Langbase's own
// implementation byte for byte. It returns "" when nothing composes: Hearth
// then sends no system message rather than inventing one.
func ComposeSystemPrompt(p *Pipe, jsonMode bool, chunks []RAGChunk) string {
	s := p.SystemPrompt()
	if safety := p.Prompt(PromptSafety); safety != "" {
		s = strings.TrimSpace(s + " \n " + `"""SAFETY GUIDELINE: ` + safety + `"""`)
	}
	if jsonMode {
		jp := p.Prompt(PromptJSON)
		if jp == "" {
			jp = DefaultJSONPrompt
		}
		s = s + "\n\n" + jp
	}
	if len(chunks) > 0 {
		rp := p.Prompt(PromptRAG)
		if rp == "" {
			rp = DefaultRAGPrompt
		}
		parts := make([]string, len(chunks))
		for i, c := range chunks {
			parts[i] = c.PromptText() + " \n\n Source: " + c.DocName
		}
		s = strings.TrimSpace(s + " \n\n \"\"\"" + rp + "\"\"\" \n\n \"\"\"CONTEXT:\n " + strings.Join(parts, "\n\n") + "\"\"\"")
	}
	return strings.TrimSpace(s)
}

// AssembleMessagesIn returns what the model receives for a pipe run:
// the composed system message, the pipe's few-shot messages, the thread
// history, then the request's messages (system messages of the request
// stay where they are). Variables are substituted over the whole list.
// When rag.NoMatch is set the system message ends with NoMatchRAGPrompt.
// The list is built in buf's array when it has room for it (a prepared run
// keeps room for a few messages), in a new one otherwise (buf nil).
func AssembleMessagesIn(buf []Message, p *Pipe, jsonMode bool, rag RAGContext, history, request []Message, vars map[string]string) []Message {
	sys := ComposeSystemPrompt(p, jsonMode, rag.Chunks)
	if rag.NoMatch {
		sys = strings.TrimSpace(sys + " \n\n \"\"\"" + NoMatchRAGPrompt + "\"\"\"")
	}
	out := buf[:0]
	if n := 1 + len(p.Messages) + len(history) + len(request); cap(out) < n {
		out = make([]Message, 0, n)
	}
	if sys != "" {
		out = append(out, Message{Role: "system", Content: TextContent(sys)})
	}
	for _, m := range p.Messages {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	out = append(out, history...)
	out = append(out, request...)
	substituteInPlace(out, vars)
	return out[:len(out):len(out)] // an append copies, as with a list of its own
}

var variableRE = regexp.MustCompile(`\{\{(.*?)\}\}`)

// MergeVariables returns the pipe's variables overridden by the request's
// (nil when there are none: the map is only read).
func MergeVariables(pipe, request []Variable) map[string]string {
	if len(pipe)+len(request) == 0 {
		return nil
	}
	m := make(map[string]string, len(pipe)+len(request))
	for _, v := range pipe {
		m[strings.TrimSpace(v.Name)] = v.Value
	}
	for _, v := range request {
		m[strings.TrimSpace(v.Name)] = v.Value
	}
	return m
}

// SubstituteVariables replaces {{ name }} (the name trimmed) in string
// contents by its value. An unknown name, or one whose value is empty,
// leaves the placeholder as it is. Content parts are not touched. The
// input slice is not modified.
func SubstituteVariables(msgs []Message, vars map[string]string) []Message {
	out := make([]Message, len(msgs))
	copy(out, msgs)
	substituteInPlace(out, vars)
	return out[:len(out):len(out)] // an append copies, as with a list of its own
}

// substituteInPlace is SubstituteVariables on a slice the caller owns.
func substituteInPlace(msgs []Message, vars map[string]string) {
	if len(vars) == 0 {
		return
	}
	for i, m := range msgs {
		if !m.Content.Set || m.Content.Parts != nil || !strings.Contains(m.Content.Text, "{{") {
			continue
		}
		msgs[i].Content = TextContent(SubstituteText(m.Content.Text, vars))
	}
}

// SubstituteText applies the variable rule to one string.
func SubstituteText(s string, vars map[string]string) string {
	return variableRE.ReplaceAllStringFunc(s, func(match string) string {
		name := strings.TrimSpace(match[2 : len(match)-2])
		if v := vars[name]; v != "" {
			return v
		}
		return match
	})
}
