package server_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

type openapiDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]struct {
		Summary     string           `json:"summary"`
		OperationID string           `json:"operationId"`
		Security    []map[string]any `json:"security"`
		Parameters  []struct {
			Name string `json:"name"`
			In   string `json:"in"`
		} `json:"parameters"`
		RequestBody *struct {
			Content map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
		Responses map[string]any `json:"responses"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

// TestOpenAPIMatchesRouteTable is the drift check: the served document has
// exactly one operation per route of the table, every route has a summary
// (Route.Doc), and every $ref resolves.
func TestOpenAPIMatchesRouteTable(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do("GET", "/openapi.json", "", nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var doc openapiDoc
	r.JSON(t, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	inTable := map[string]bool{}
	var undocumented []string
	for _, rt := range ts.Routes() {
		key := strings.ToLower(rt.Method) + " " + server.OpenAPIPath(rt.Path)
		inTable[key] = true
		op, ok := doc.Paths[server.OpenAPIPath(rt.Path)][strings.ToLower(rt.Method)]
		if !ok {
			t.Errorf("route %s %s is missing from the document", rt.Method, rt.Path)
			continue
		}
		if rt.Doc.Summary == "" {
			undocumented = append(undocumented, rt.Method+" "+rt.Path)
		}
		if (rt.Auth == server.AuthNone) != (len(op.Security) == 0) {
			t.Errorf("%s %s: security %v does not match auth %d", rt.Method, rt.Path, op.Security, rt.Auth)
		}
		for _, p := range op.Parameters {
			if p.In == "path" && !strings.Contains(rt.Path, ":"+p.Name) && !(p.Name == "path" && strings.HasSuffix(rt.Path, "/*")) {
				t.Errorf("%s %s: unknown path parameter %s", rt.Method, rt.Path, p.Name)
			}
		}
		if op.Responses["200"] == nil || op.Responses["4XX"] == nil {
			t.Errorf("%s %s: responses %v", rt.Method, rt.Path, op.Responses)
		}
	}
	sort.Strings(undocumented)
	if len(undocumented) > 0 {
		t.Errorf("routes without Doc in the route table:\n  %s", strings.Join(undocumented, "\n  "))
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if !inTable[method+" "+path] {
				t.Errorf("document has %s %s, which the route table does not serve", method, path)
			}
		}
	}
	// Every $ref points at a component.
	var refs []string
	collectRefs(json.RawMessage(r.Body), &refs)
	for _, ref := range refs {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Errorf("dangling $ref %s", ref)
		}
	}
	if len(refs) == 0 {
		t.Fatal("no schemas were reflected")
	}
}

func collectRefs(raw json.RawMessage, out *[]string) {
	var v any
	json.Unmarshal(raw, &v)
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "$ref" {
					*out = append(*out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

func TestOpenAPIDescribesBodies(t *testing.T) {
	ts := servertest.Start(t)
	var doc openapiDoc
	ts.Do("GET", "/openapi.json", "", nil).JSON(t, &doc)
	run := doc.Paths["/v1/pipes/run"]["post"]
	if run.Summary != "Run a pipe" || run.RequestBody == nil || run.Responses["200"] == nil {
		t.Fatalf("run operation %+v", run)
	}
	schema := run.RequestBody.Content["application/json"].Schema
	comp := doc.Components.Schemas[strings.TrimPrefix(schema["$ref"].(string), "#/components/schemas/")]
	props := comp["properties"].(map[string]any)
	for _, f := range []string{"name", "messages", "variables", "threadId", "stream", "memory"} {
		if props[f] == nil {
			t.Errorf("run body lacks %s: %v", f, props)
		}
	}
	ok, _ := json.Marshal(run.Responses["200"])
	if !strings.Contains(string(ok), "text/event-stream") {
		t.Errorf("run does not document its stream: %s", ok)
	}
	get := doc.Paths["/v1/pipes/{name}"]["get"]
	if len(get.Parameters) != 1 || get.Parameters[0].Name != "name" || get.Parameters[0].In != "path" {
		t.Errorf("path parameter: %+v", get.Parameters)
	}
}
