package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/rank"
)

// settingFlags collects repeated --setting values.
type settingFlags []rank.Setting

func (s *settingFlags) String() string { return "" }

// Set parses "label:key=value,key=value" (keys topK, keyword_weight,
// rerank, top_n, min_score; rerank=none turns a memory's reranker off).
func (s *settingFlags) Set(v string) error {
	st, err := parseSetting(v, len(*s)+1)
	if err != nil {
		return err
	}
	*s = append(*s, st)
	return nil
}

func parseSetting(v string, n int) (rank.Setting, error) {
	st := rank.Setting{Name: fmt.Sprintf("setting %d", n)}
	if i := strings.IndexByte(v, ':'); i >= 0 && !strings.Contains(v[:i], "=") {
		st.Name, v = v[:i], v[i+1:]
	}
	for _, kv := range strings.Split(v, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			return st, fmt.Errorf("setting %q: want key=value", kv)
		}
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		var err error
		switch k {
		case "topK", "top_k":
			var x int
			x, err = strconv.Atoi(val)
			st.TopK = &x
		case "keyword_weight":
			var x float64
			x, err = strconv.ParseFloat(val, 64)
			st.KeywordWeight = &x
		case "min_score":
			var x float64
			x, err = strconv.ParseFloat(val, 64)
			st.MinScore = &x
		case "rerank":
			if st.Rerank == nil {
				st.Rerank = &engine.RerankSpec{}
			}
			st.Rerank.Model = val
		case "top_n":
			if st.Rerank == nil {
				st.Rerank = &engine.RerankSpec{}
			}
			st.Rerank.TopN, err = strconv.Atoi(val)
		default:
			return st, fmt.Errorf("setting %q: unknown key %q (topK, keyword_weight, rerank, top_n, min_score)", v, k)
		}
		if err != nil {
			return st, fmt.Errorf("setting %s=%s: %w", k, val, err)
		}
	}
	return st, nil
}

// evalCmd is "hearth eval": each golden query goes through the public
// retrieve endpoint of a running server, once per setting, and the
// measures are printed side by side (docs/memories-and-retrieval.md#evaluating-retrieval).
func evalCmd(fs *flag.FlagSet, c cliIO) func([]string) error {
	url := fs.String("url", envOr(c.getenv, "HEARTH_PUBLIC_URL", "http://127.0.0.1:8080"), "running server (env HEARTH_PUBLIC_URL)")
	key := fs.String("key", c.getenv("HEARTH_API_KEY"), "API key of the memory's owner (env HEARTH_API_KEY)")
	mem := fs.String("memory", "", "memory to evaluate")
	golden := fs.String("golden", "", "golden set: JSON Lines of {\"query\", \"relevant\": [document names]}")
	k := fs.Int("k", rank.DefaultEvalK, "k of recall@k")
	asJSON := fs.Bool("json", false, "print the per-query results as JSON instead of a table")
	var settings settingFlags
	fs.Var(&settings, "setting", "a setting to compare, label:key=value,... with keys topK, keyword_weight, rerank, top_n, min_score (repeatable)")
	return func(pos []string) error {
		if err := positional("eval", pos); err != nil {
			return err
		}
		if *mem == "" || *golden == "" || *key == "" {
			return fmt.Errorf("eval: --memory, --golden and --key (or HEARTH_API_KEY) are required")
		}
		if *k < 1 {
			return fmt.Errorf("eval: --k must be at least 1")
		}
		f, err := os.Open(*golden)
		if err != nil {
			return err
		}
		cases, err := rank.ReadGolden(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *golden, err)
		}
		if len(settings) == 0 {
			settings = settingFlags{{Name: "default"}}
		}
		cl := &evalClient{url: strings.TrimRight(*url, "/"), key: *key, http: &http.Client{Timeout: 2 * time.Minute}}
		type row struct {
			rank.Setting
			rank.Scores
			PerQuery []rank.QueryScore `json:"per_query"`
		}
		rows := make([]row, len(settings))
		for i, st := range settings {
			rows[i].Setting = st
			for _, g := range cases {
				docs, err := cl.retrieve(context.Background(), *mem, g.Query, max(20, *k), st)
				if err != nil {
					return fmt.Errorf("setting %q, query %q: %w", st.Name, g.Query, err)
				}
				rows[i].PerQuery = append(rows[i].PerQuery, rank.Score(g.Query, rank.DocRanking(docs), g.Relevant, *k))
			}
			rows[i].Scores = rank.Mean(rows[i].PerQuery)
		}
		if *asJSON {
			enc := json.NewEncoder(c.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"memory": *mem, "queries": len(cases), "k": *k, "results": rows})
		}
		fmt.Fprintf(c.stdout, "memory %s, %d queries\n\n", *mem, len(cases))
		tw := newTable(c.stdout)
		fmt.Fprintf(tw, "SETTING\tRECALL@%d\tMRR\tNDCG@10\n", *k)
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\n", r.Name, r.RecallAtK, r.MRR, r.NDCGAt10)
		}
		return tw.Flush()
	}
}

// evalClient calls POST /v1/memory/retrieve of a running server.
type evalClient struct {
	url, key string
	http     *http.Client
}

// retrieve returns the document names of a retrieval's chunks, best first.
func (e *evalClient) retrieve(ctx context.Context, mem, query string, topK int, st rank.Setting) ([]string, error) {
	body := map[string]any{"query": query, "memory": []map[string]string{{"name": mem}}, "topK": topK}
	if st.TopK != nil {
		body["topK"] = *st.TopK
	}
	if st.KeywordWeight != nil {
		body["keyword_weight"] = *st.KeywordWeight
	}
	if st.MinScore != nil {
		body["min_score"] = *st.MinScore
	}
	if st.Rerank != nil {
		body["rerank"] = st.Rerank
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/v1/memory/retrieve", bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.key)
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("retrieve: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(raw))
	}
	var chunks []struct {
		DocumentName string `json:"documentName"`
	}
	if err := json.Unmarshal(raw, &chunks); err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	docs := make([]string, len(chunks))
	for i, ch := range chunks {
		docs[i] = ch.DocumentName
	}
	return docs, nil
}
