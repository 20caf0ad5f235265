package engine

import (
	"reflect"
	"testing"
)

func TestComposeSystemPrompt(t *testing.T) {
	pipe := func(msgs ...Message) *Pipe { return &Pipe{Messages: msgs} }
	sys := func(name, text string) Message {
		return Message{Role: "system", Name: name, Content: TextContent(text)}
	}
	chunks := []RAGChunk{{Text: "A", DocName: "a.md"}, {Text: "B", DocName: "b.pdf"}}
	ragBlock := " \n\n \"\"\"" + DefaultRAGPrompt + "\"\"\" \n\n \"\"\"CONTEXT:\n A \n\n Source: a.md\n\nB \n\n Source: b.pdf\"\"\""
	cases := []struct {
		name   string
		p      *Pipe
		json   bool
		chunks []RAGChunk
		want   string
	}{
		{"nothing", pipe(), false, nil, ""},
		{"base", pipe(sys("", "Base")), false, nil, "Base"},
		{"base and safety", pipe(sys("", "Base"), sys(PromptSafety, "S")), false, nil, "Base \n \"\"\"SAFETY GUIDELINE: S\"\"\""},
		{"json default", pipe(sys("", "Base")), true, nil, "Base\n\n" + DefaultJSONPrompt},
		{"json custom", pipe(sys("", "Base"), sys(PromptJSON, "J")), true, nil, "Base\n\nJ"},
		{"rag default", pipe(sys("", "Base")), false, chunks, "Base" + ragBlock},
		{"rag custom", pipe(sys("", "Base"), sys(PromptRAG, "R")), false, chunks[:1], "Base \n\n \"\"\"R\"\"\" \n\n \"\"\"CONTEXT:\n A \n\n Source: a.md\"\"\""},
		{"all", pipe(sys("", "Base"), sys(PromptSafety, "S")), true, chunks, "Base \n \"\"\"SAFETY GUIDELINE: S\"\"\"\n\n" + DefaultJSONPrompt + ragBlock},
		{"rag only", pipe(), false, chunks[:1], "\"\"\"" + DefaultRAGPrompt + "\"\"\" \n\n \"\"\"CONTEXT:\n A \n\n Source: a.md\"\"\""},
		{"opening ignored", pipe(sys(PromptOpening, "Hi")), false, nil, ""},
	}
	for _, tc := range cases {
		if got := ComposeSystemPrompt(tc.p, tc.json, tc.chunks); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestSubstituteText(t *testing.T) {
	vars := map[string]string{"a": "1", "b c": "2", "empty": ""}
	cases := map[string]string{
		"{{a}}":           "1",
		"{{ a }}":         "1",
		"x{{a}}y{{a}}":    "x1y1",
		"{{b c}}":         "2",
		"{{missing}}":     "{{missing}}",
		"{{empty}}":       "{{empty}}",
		"{{}}":            "{{}}",
		"{a}":             "{a}",
		"{{a}":            "{{a}",
		"{{{a}}}":         "{{{a}}}",
		"no vars":         "no vars",
		"{{a}}\n{{ a  }}": "1\n1",
	}
	for in, want := range cases {
		if got := SubstituteText(in, vars); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}

func TestAssembleOrderAndImmutability(t *testing.T) {
	p := &Pipe{Messages: []Message{
		{Role: "user", Content: TextContent("shot {{v}}")},
		{Role: "system", Content: TextContent("sys {{v}}")},
		{Role: "assistant", Content: TextContent("answer")},
	}}
	history := []Message{{Role: "user", Content: TextContent("h")}}
	req := []Message{{Role: "system", Content: TextContent("req sys")}, {Role: "user", Content: TextContent("{{v}}")}}
	got := AssembleMessagesIn(nil, p, false, RAGContext{}, history, req, map[string]string{"v": "X"})
	var out []string
	for _, m := range got {
		out = append(out, m.Role+":"+m.Content.String())
	}
	want := []string{"system:sys X", "user:shot X", "assistant:answer", "user:h", "system:req sys", "user:X"}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("got %q want %q", out, want)
	}
	if req[1].Content.Text != "{{v}}" || p.Messages[0].Content.Text != "shot {{v}}" {
		t.Fatal("inputs were modified")
	}
}

func TestVariablesUnmarshal(t *testing.T) {
	var v Variables
	if err := v.UnmarshalJSON([]byte(`{"b":"2","a":"1"}`)); err != nil || !reflect.DeepEqual(v, Variables{{"a", "1"}, {"b", "2"}}) {
		t.Fatalf("object: %v %v", v, err)
	}
	if err := v.UnmarshalJSON([]byte(`[{"name":"x","value":"y"}]`)); err != nil || !reflect.DeepEqual(v, Variables{{"x", "y"}}) {
		t.Fatalf("array: %v %v", v, err)
	}
	if err := v.UnmarshalJSON([]byte(`null`)); err != nil || len(v) != 0 {
		t.Fatalf("null: %v %v", v, err)
	}
	for _, bad := range []string{`"x"`, `[{"value":"y"}]`, `[{"name":"x","value":1}]`, `{"a":1}`, `[1]`} {
		if err := v.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
