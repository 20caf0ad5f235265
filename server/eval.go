package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/rank"
	"github.com/labstack/echo/v4"
)

// evalRoutes serve the retrieval evaluation (docs/memories-and-retrieval.md#evaluating-retrieval).
// An evaluation keeps nothing between requests (it runs retrievals and
// averages them), so with several nodes on one database any node answers
// it alike.
func (s *Server) evalRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/memory/:memoryName/eval", Auth: AuthOwner, Handler: s.handleMemoryEval,
			Doc: RouteDoc{Summary: "Measure a memory's retrieval (recall@k, MRR, nDCG@10) on a golden set, for several settings side by side",
				Request: evalBody{}, Response: evalView{}}},
	}
}

// evalBody is an evaluation request: the golden set, the k of recall@k,
// and the settings to compare (default: one setting, the memory's own).
type evalBody struct {
	Golden   []rank.GoldenCase `json:"golden"`
	K        *int              `json:"k,omitempty"`
	Settings []rank.Setting    `json:"settings,omitempty"`
}

// evalView is the answer: one result per setting, in request order.
type evalView struct {
	Memory  string          `json:"memory"`
	Queries int             `json:"queries"`
	K       int             `json:"k"`
	Results []evalSettingOK `json:"results"`
}

// evalSettingOK is one setting's mean measures, its per-query scores and
// the stages that fell back (keyword-fallback, rerank-fallback) on any query.
type evalSettingOK struct {
	rank.Setting
	rank.Scores
	RetrievalMode string            `json:"retrieval_mode,omitempty"`
	PerQuery      []rank.QueryScore `json:"per_query"`
}

func (s *Server) handleMemoryEval(c echo.Context) error {
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	var body evalBody
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if err := rank.ValidateGolden("golden", body.Golden); err != nil {
		return err
	}
	k := rank.DefaultEvalK
	if body.K != nil {
		k = *body.K
	}
	if k < 1 || k > memory.MaxTopK {
		return engine.FieldError("k", "must be between 1 and %d, got %d", memory.MaxTopK, k)
	}
	settings := body.Settings
	if len(settings) == 0 {
		settings = []rank.Setting{{Name: "default"}}
	}
	if len(settings) > rank.MaxEvalSettings {
		return engine.FieldError("settings", "may hold at most %d settings, got %d", rank.MaxEvalSettings, len(settings))
	}
	ctx := c.Request().Context()
	owner := principal(c).Owner
	out := evalView{Memory: name, Queries: len(body.Golden), K: k, Results: make([]evalSettingOK, len(settings))}
	for i, st := range settings {
		field := fmt.Sprintf("settings[%d]", i)
		if st.Name == "" {
			st.Name = fmt.Sprintf("setting %d", i+1)
		}
		res := evalSettingOK{Setting: st}
		fallback := &memory.Retrieval{}
		for _, g := range body.Golden {
			req := memory.RetrieveRequest{Query: g.Query, Memories: []memory.MemoryQuery{{Name: name}},
				TopK: max(memory.DefaultRetrieveTopK, k), Rerank: st.Rerank, MinScore: st.MinScore, KeywordWeight: st.KeywordWeight}
			if st.TopK != nil {
				req.TopK = *st.TopK
			}
			r, err := s.deps.Memory.Search(ctx, owner, req)
			if err != nil {
				return prefixField(err, field)
			}
			fallback.KeywordFallback = append(fallback.KeywordFallback, r.KeywordFallback...)
			fallback.RerankFallback = append(fallback.RerankFallback, r.RerankFallback...)
			docs := make([]string, len(r.Results))
			for j, x := range r.Results {
				docs[j] = x.Document
			}
			res.PerQuery = append(res.PerQuery, rank.Score(g.Query, rank.DocRanking(docs), g.Relevant, k))
		}
		res.Scores = rank.Mean(res.PerQuery)
		res.RetrievalMode = retrievalMode(fallback)
		out.Results[i] = res
	}
	return c.JSON(http.StatusOK, out)
}

// prefixField puts a setting's field path in front of a bad-request field
// ("settings[1].rerank.model"); other errors pass unchanged.
func prefixField(err error, prefix string) error {
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field == "" || e.Field == "query" || e.Field == "memory" {
		return err
	}
	return engine.FieldError(prefix+"."+e.Field, "%s", strings.TrimPrefix(e.Message, e.Field+": "))
}
