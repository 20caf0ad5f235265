package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/jackc/pgx/v5"
)

// clusterNode is one `hearth serve` process of a cluster test, with the
// fake embedding upstream only it talks to (so the test knows which node
// is embedding) and the environment it restarts with.
type clusterNode struct {
	*proc
	up   *fake.Server
	env  []string
	addr string
}

// startClusterNodes runs n processes of bin on the database at url with
// a 2 s job lease, each with its own upstream and data dir.
func startClusterNodes(t *testing.T, bin, url string, n int) []*clusterNode {
	t.Helper()
	var nodes []*clusterNode
	for range n {
		up := fake.NewOpenAI()
		t.Cleanup(up.Close)
		env, addr := faultEnv(t, up.BaseURL())
		env = append(env, "HEARTH_DATABASE_URL="+url, "HEARTH_SECRET_KEY="+clusterSecret, "HEARTH_JOB_LEASE=2s", "HEARTH_INGEST_WORKERS=2")
		nodes = append(nodes, &clusterNode{proc: startBinary(t, bin, env, addr), up: up, env: env, addr: addr})
	}
	return nodes
}

// restart starts the node's process again on its data dir and address.
func (n *clusterNode) restart(t *testing.T, bin string) {
	t.Helper()
	n.proc = startBinary(t, bin, n.env, n.addr)
}

// stop ends the node's process with SIGTERM (a clean shutdown).
func (n *clusterNode) stop(t *testing.T) {
	t.Helper()
	n.cmd.Process.Signal(syscall.SIGTERM)
	if err := n.cmd.Wait(); err != nil {
		t.Fatalf("stop: %v: %s", err, n.stderr)
	}
}

// docToken is a word that only document i of a cluster test contains.
func docToken(i int) string {
	return fmt.Sprintf("zork%c%cquill", 'a'+i/26, 'a'+i%26)
}

// uploadVia asks issuer for a signed upload URL for doc<i>.md and sends
// the document's bytes to receiver with it: any node accepts a URL that
// another signed.
func uploadVia(t *testing.T, issuer, receiver *clusterNode, memory string, i int) {
	t.Helper()
	var step1 struct {
		SignedURL string `json:"signedUrl"`
	}
	json.Unmarshal(issuer.must(t, "POST", "/v1/memory/documents", map[string]any{"memoryName": memory, "fileName": fmt.Sprintf("doc%d.md", i)}), &step1)
	if !strings.HasPrefix(step1.SignedURL, issuer.url) {
		t.Fatalf("signed URL %q is not on its issuer %s", step1.SignedURL, issuer.url)
	}
	var body strings.Builder
	fmt.Fprintf(&body, "# Doc %d\n\n", i)
	for line := range 30 {
		fmt.Fprintf(&body, "Line %d of record %d mentions the %s and nothing else. ", line, i, docToken(i))
	}
	req, _ := http.NewRequest("PUT", receiver.url+strings.TrimPrefix(step1.SignedURL, issuer.url), strings.NewReader(body.String()))
	req.Header.Set("Content-Type", "text/markdown")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload %d: %v", i, err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("upload %d: status %d", i, resp.StatusCode)
	}
}

// waitCompleted polls node's list of memory's documents until want of them
// ended; any that failed fails the test.
func waitCompleted(t *testing.T, node *clusterNode, memory string, want int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var list []struct{ Name, Status string }
		json.Unmarshal(node.must(t, "GET", "/v1/memory/"+memory+"/documents", nil), &list)
		done := 0
		for _, d := range list {
			switch d.Status {
			case "completed":
				done++
			case "failed":
				t.Fatalf("%s failed: %+v", d.Name, list)
			}
		}
		if len(list) == want && done == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, %d of %d documents completed: %+v", within, done, want, list)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findsDoc reports whether retrieval of doc i's token on node returns a
// chunk of doc<i>.md holding it; chunks of any other document holding it,
// or the same chunk twice, fail the test.
func findsDoc(t *testing.T, node *clusterNode, memory string, i int) bool {
	t.Helper()
	status, b, _, err := node.do("POST", "/v1/memory/retrieve", map[string]any{"query": docToken(i), "memory": []map[string]string{{"name": memory}}})
	if err != nil || status != 200 {
		t.Fatalf("retrieve %s: %d %v %s", docToken(i), status, err, b)
	}
	var hits []struct {
		Text         string `json:"text"`
		DocumentName string `json:"documentName"`
	}
	if err := json.Unmarshal(b, &hits); err != nil {
		t.Fatalf("retrieve: %v %s", err, b)
	}
	seen, found := map[string]bool{}, false
	for _, h := range hits {
		if seen[h.DocumentName+"\x00"+h.Text] {
			t.Fatalf("retrieve %s: the same chunk of %s twice", docToken(i), h.DocumentName)
		}
		seen[h.DocumentName+"\x00"+h.Text] = true
		if strings.Contains(h.Text, docToken(i)) {
			if want := fmt.Sprintf("doc%d.md", i); h.DocumentName != want {
				t.Fatalf("retrieve %s: a chunk of %s holds it, want only %s", docToken(i), h.DocumentName, want)
			}
			found = true
		}
	}
	return found
}

// waitFinds polls retrieval on node until doc i is found: replicas follow
// the change feed, so this is eventual.
func waitFinds(t *testing.T, node *clusterNode, memory string, i int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !findsDoc(t, node, memory, i) {
		if time.Now().After(deadline) {
			t.Fatalf("node %s: retrieval of %s found no chunk of doc%d.md within %v", node.url, docToken(i), i, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// chunkRecords counts, straight from the database, the chunk records of
// each document: document id -> version -> positions stored.
func chunkRecords(t *testing.T, url string) map[string]map[string][]int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT k, v FROM hearth_kv WHERE k >= 'chunk/'::bytea AND k < 'chunk0'::bytea ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string][]int{}
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Doc string `json:"doc"`
		}
		if err := json.Unmarshal(v, &rec); err != nil {
			t.Fatalf("chunk %s: %v", k, err)
		}
		id := string(k[strings.LastIndexByte(string(k), '/')+1:])
		dot := strings.LastIndexByte(id, '.')
		if dot < 0 {
			t.Fatalf("chunk key %q has no position", k)
		}
		pos, err := strconv.Atoi(id[dot+1:])
		if err != nil {
			t.Fatalf("chunk key %q: %v", k, err)
		}
		if out[rec.Doc] == nil {
			out[rec.Doc] = map[string][]int{}
		}
		out[rec.Doc][id[:dot]] = append(out[rec.Doc][id[:dot]], pos)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkChunksOnce checks that each of want documents has its chunks once:
// one version, positions 0 to n-1 each stored once.
func checkChunksOnce(t *testing.T, url string, want int) {
	t.Helper()
	docs := chunkRecords(t, url)
	if len(docs) != want {
		t.Fatalf("chunk records of %d documents, want %d", len(docs), want)
	}
	for doc, versions := range docs {
		if len(versions) != 1 {
			t.Errorf("document %s: chunks of %d versions", doc, len(versions))
		}
		for v, pos := range versions {
			for i, p := range pos {
				if p != i {
					t.Errorf("document %s version %s: positions %v, want 0 to %d once each", doc, v, pos, len(pos)-1)
					break
				}
			}
		}
	}
}
