package providers

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

var updateRequests = flag.Bool("update-requests", false, "rewrite testdata/openai_requests.txt from today's encoder")

// goldenRequests are the shapes of requestShapes plus custom model
// parameters (with a seed some hosts rename and a DeepSeek thinking
// switch), each with the label it has in testdata/openai_requests.txt.
func goldenRequests() (labels []string, reqs []*engine.ChatRequest) {
	for i, req := range requestShapes() {
		labels, reqs = append(labels, fmt.Sprint(i)), append(reqs, req)
	}
	extra := *requestShapes()[1]
	extra.Extra = map[string]json.RawMessage{"seed": json.RawMessage(`42`), "top_k": json.RawMessage(` 5 `), "model": json.RawMessage(`"x"`), "user": json.RawMessage(`"<u&>"`)}
	none := *requestShapes()[2]
	none.Model, none.ReasoningEffort = "deepseek-v4-flash", "none"
	return append(labels, "extra", "effort none"), append(reqs, &extra, &none)
}

// openAIRequestBodies is the body of every golden request on every host,
// streamed and not: each distinct body once, after the cases that send it.
func openAIRequestBodies(t *testing.T) []byte {
	names := make([]string, 0, len(hosts))
	for name := range hosts {
		names = append(names, name)
	}
	slices.Sort(names)
	labels, reqs := goldenRequests()
	var order []string
	cases := map[string][]string{}
	for _, name := range names {
		for i, req := range reqs {
			for _, stream := range []bool{false, true} {
				b, err := encodeOpenAIChat(hosts[name], req, stream)
				if err != nil {
					t.Fatalf("%s %s: %v", name, labels[i], err)
				}
				if _, seen := cases[string(b)]; !seen {
					order = append(order, string(b))
				}
				cases[string(b)] = append(cases[string(b)], fmt.Sprintf("%s/%s/stream=%v", name, labels[i], stream))
			}
		}
	}
	var out bytes.Buffer
	for _, body := range order {
		fmt.Fprintf(&out, "%s\n%s\n", strings.Join(cases[body], " "), body)
	}
	return out.Bytes()
}

// TestOpenAIRequestBodiesGolden: the upstream body of every request shape
// on every OpenAI-wire host is byte for byte the recorded one
// (testdata/openai_requests.txt, refreshed with -update-requests).
func TestOpenAIRequestBodiesGolden(t *testing.T) {
	got := openAIRequestBodies(t)
	checkGolden(t, "testdata/openai_requests.txt", got, *updateRequests)
}
