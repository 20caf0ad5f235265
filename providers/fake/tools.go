package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NewExa starts a fake Exa search API: POST /search with x-api-key answers
// numResults deterministic results (default 10), on includeDomains when
// given, with a text field when contents.text is asked for. Errors use
// Exa's {"requestId","error"} body. BaseURL has no version segment.
func NewExa() *Server { return newServer("exa", "", handleExa) }

func handleExa(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"requestId": "fake-exa-req", "error": errorMessage(rep), "tag": strings.ToUpper(strings.ReplaceAll(http.StatusText(rep.Status), " ", "_"))})
		return
	}
	if r.Header.Get("x-api-key") == "" && !bearer(r) {
		writeJSON(w, 401, map[string]any{"requestId": "fake-exa-req", "error": "API key must be provided as x-api-key header or Authorization: Bearer header"})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/search" {
		writeJSON(w, 404, map[string]any{"requestId": "fake-exa-req", "error": "Not found"})
		return
	}
	var req struct {
		Query          string          `json:"query"`
		NumResults     int             `json:"numResults"`
		IncludeDomains []string        `json:"includeDomains"`
		Contents       json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil || req.Query == "" {
		writeJSON(w, 400, map[string]any{"requestId": "fake-exa-req", "error": "Invalid request body: query is required"})
		return
	}
	if req.NumResults == 0 {
		req.NumResults = 10
	}
	if req.NumResults > 100 {
		writeJSON(w, 400, map[string]any{"requestId": "fake-exa-req", "error": "numResults must be at most 100"})
		return
	}
	var contents struct {
		Text json.RawMessage `json:"text"`
	}
	json.Unmarshal(req.Contents, &contents)
	withText := len(contents.Text) > 0 && string(contents.Text) != "false"
	results := make([]map[string]any, req.NumResults)
	for i := range results {
		domain := "example.com"
		if len(req.IncludeDomains) > 0 {
			domain = req.IncludeDomains[i%len(req.IncludeDomains)]
		}
		u := fmt.Sprintf("https://%s/result-%d", domain, i+1)
		res := map[string]any{"id": u, "url": u, "title": fmt.Sprintf("Result %d", i+1), "score": 1 - float64(i)/100,
			"publishedDate": "2025-01-01T00:00:00.000Z", "author": nil}
		if withText {
			res["text"] = fmt.Sprintf("Result %d for %s.", i+1, req.Query)
		}
		results[i] = res
	}
	writeJSON(w, 200, map[string]any{"requestId": "fake-exa-req", "resolvedSearchType": "neural", "results": results,
		"costDollars": map[string]any{"total": 0.005}})
}

// NewSpider starts a fake Spider API: POST /crawl with a Bearer key and a
// comma-separated url answers, for each start URL, limit pages (the start
// page, then <url>/page-2 ...) with markdown content. A start URL that
// contains "fail" answers an item with an error and no content. BaseURL
// has no version segment.
func NewSpider() *Server { return newServer("spider", "", handleSpider) }

func handleSpider(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"error": errorMessage(rep)})
		return
	}
	if !bearer(r) {
		writeJSON(w, 401, map[string]any{"error": "Unauthorized: invalid or missing API key"})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/crawl" {
		writeJSON(w, 404, map[string]any{"error": "Not found"})
		return
	}
	var req struct {
		URL          string `json:"url"`
		Limit        int    `json:"limit"`
		ReturnFormat string `json:"return_format"`
	}
	if json.Unmarshal(body, &req) != nil || req.URL == "" {
		writeJSON(w, 400, map[string]any{"error": "url is required"})
		return
	}
	limit := max(req.Limit, 1)
	var pages []map[string]any
	for _, start := range strings.Split(req.URL, ",") {
		start = strings.TrimSpace(start)
		if strings.Contains(start, "fail") {
			pages = append(pages, map[string]any{"url": start, "content": nil, "error": "net::ERR_NAME_NOT_RESOLVED", "status": 500, "costs": map[string]any{"total_cost": 0}})
			continue
		}
		for i := 1; i <= limit; i++ {
			u := start
			if i > 1 {
				u = strings.TrimRight(start, "/") + "/page-" + strconv.Itoa(i)
			}
			content := fmt.Sprintf("# Page %d of %s\n\nFake crawled content.", i, start)
			if req.ReturnFormat != "markdown" {
				content = fmt.Sprintf("<html><body><h1>Page %d of %s</h1></body></html>", i, start)
			}
			pages = append(pages, map[string]any{"url": u, "content": content, "error": nil, "status": 200,
				"costs": map[string]any{"total_cost": 0.0001}})
		}
	}
	writeJSON(w, 200, pages)
}

// NewFirecrawl starts a fake Firecrawl v2 API (the current one); BaseURL
// ends in /v2. NewFirecrawlV1 serves the older v1 API. Both answer POST
// /scrape with the page's markdown; POST /crawl starts a job that GET
// /crawl/{id} reports as "scraping" on the first poll and "completed" on
// the next, with limit pages split over "next" links two at a time. A URL
// that contains "fail" answers success false. A body with a field its
// version does not define is refused with 400, as Firecrawl's strict
// request schemas do.
func NewFirecrawl() *Server { return newFirecrawl("/v2") }

// NewFirecrawlV1 starts a fake of Firecrawl's v1 API; BaseURL ends in /v1.
func NewFirecrawlV1() *Server { return newFirecrawl("/v1") }

func newFirecrawl(version string) *Server {
	var mu sync.Mutex
	jobs := map[string]*fcJob{}
	return newServer("firecrawl", version, func(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
		handleFirecrawl(s, w, r, body, rep, &mu, jobs)
	})
}

// fcFields are the request fields of each version's endpoints:
// https://docs.firecrawl.dev/api-reference/v2-endpoint/crawl-post,
// https://docs.firecrawl.dev/api-reference/v2-endpoint/scrape and the v1
// pages under https://docs.firecrawl.dev/api-reference/v1-endpoint/.
var fcFields = map[string]map[string][]string{
	"/v2": {
		"scrape": {"url", "formats", "onlyMainContent", "includeTags", "excludeTags", "maxAge", "headers", "waitFor", "mobile",
			"skipTlsVerification", "timeout", "parsers", "actions", "location", "removeBase64Images", "blockAds", "proxy",
			"storeInCache", "zeroDataRetention"},
		"crawl": {"url", "prompt", "excludePaths", "includePaths", "maxDiscoveryDepth", "sitemap", "ignoreQueryParameters", "limit",
			"crawlEntireDomain", "allowExternalLinks", "allowSubdomains", "delay", "maxConcurrency", "webhook", "scrapeOptions",
			"zeroDataRetention"},
	},
	"/v1": {
		"scrape": {"url", "formats", "onlyMainContent", "includeTags", "excludeTags", "headers", "waitFor", "mobile",
			"skipTlsVerification", "timeout", "actions", "location", "removeBase64Images", "blockAds", "proxy", "jsonOptions",
			"changeTrackingOptions"},
		"crawl": {"url", "excludePaths", "includePaths", "maxDepth", "maxDiscoveryDepth", "ignoreSitemap", "ignoreQueryParameters",
			"limit", "allowBackwardLinks", "crawlEntireDomain", "allowExternalLinks", "allowSubdomains", "delay", "webhook",
			"scrapeOptions"},
	},
}

// fcCheck returns the unknown fields of a body for endpoint, or nil.
func fcCheck(version, endpoint string, body []byte) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return []string{"(body is not a JSON object)"}
	}
	var bad []string
	for k := range m {
		if !contains(fcFields[version][endpoint], k) {
			bad = append(bad, k)
		}
	}
	if raw, ok := m["scrapeOptions"]; ok && endpoint == "crawl" {
		for _, k := range fcCheck(version, "scrape", raw) {
			if k != "url" {
				bad = append(bad, "scrapeOptions."+k)
			}
		}
	}
	return bad
}

type fcJob struct {
	url   string
	limit int
	polls int
}

func fcDoc(u string, i int) map[string]any {
	return map[string]any{"markdown": fmt.Sprintf("# Page %d of %s\n\nFake scraped content.", i, u),
		"metadata": map[string]any{"title": fmt.Sprintf("Page %d", i), "sourceURL": u, "url": u, "statusCode": 200}}
}

func handleFirecrawl(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply, mu *sync.Mutex, jobs map[string]*fcJob) {
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"success": false, "error": errorMessage(rep)})
		return
	}
	if !bearer(r) {
		writeJSON(w, 401, map[string]any{"success": false, "error": "Unauthorized: Invalid token"})
		return
	}
	var req struct {
		URL     string   `json:"url"`
		Limit   int      `json:"limit"`
		Formats []string `json:"formats"`
	}
	v := s.version
	if r.Method == http.MethodPost && (r.URL.Path == v+"/scrape" || r.URL.Path == v+"/crawl") {
		if bad := fcCheck(v, strings.TrimPrefix(r.URL.Path, v+"/"), body); len(bad) > 0 {
			writeJSON(w, 400, map[string]any{"success": false, "error": "Bad Request",
				"details": []any{map[string]any{"code": "unrecognized_keys", "keys": bad, "message": "Unrecognized key in body -- please review the " + strings.TrimPrefix(v, "/") + " API documentation for request body changes"}}})
			return
		}
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == v+"/scrape":
		if json.Unmarshal(body, &req) != nil || req.URL == "" {
			writeJSON(w, 400, map[string]any{"success": false, "error": "Bad Request: url is required"})
			return
		}
		if strings.Contains(req.URL, "fail") {
			writeJSON(w, 200, map[string]any{"success": false, "error": "Failed to scrape URL"})
			return
		}
		writeJSON(w, 200, map[string]any{"success": true, "data": fcDoc(req.URL, 1)})
	case r.Method == http.MethodPost && r.URL.Path == v+"/crawl":
		if json.Unmarshal(body, &req) != nil || req.URL == "" {
			writeJSON(w, 400, map[string]any{"success": false, "error": "Bad Request: url is required"})
			return
		}
		mu.Lock()
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(jobs)+1)
		jobs[id] = &fcJob{url: req.URL, limit: max(req.Limit, 1)}
		mu.Unlock()
		writeJSON(w, 200, map[string]any{"success": true, "id": id, "url": s.URL + v + "/crawl/" + id})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, v+"/crawl/"):
		id := strings.TrimPrefix(r.URL.Path, v+"/crawl/")
		mu.Lock()
		job := jobs[id]
		if job != nil {
			job.polls++
		}
		mu.Unlock()
		if job == nil {
			writeJSON(w, 404, map[string]any{"success": false, "error": "Job not found"})
			return
		}
		resp := map[string]any{"success": true, "total": job.limit, "creditsUsed": job.limit,
			"expiresAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)}
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		switch {
		case strings.Contains(job.url, "fail"):
			resp["status"], resp["completed"], resp["data"] = "failed", 0, []any{}
		case job.polls == 1 && skip == 0:
			resp["status"], resp["completed"], resp["data"] = "scraping", 0, []any{}
		default:
			resp["status"], resp["completed"] = "completed", job.limit
			var data []any
			for i := skip + 1; i <= min(skip+2, job.limit); i++ {
				u := job.url
				if i > 1 {
					u = strings.TrimRight(job.url, "/") + "/page-" + strconv.Itoa(i)
				}
				data = append(data, fcDoc(u, i))
			}
			resp["data"] = data
			if skip+2 < job.limit {
				resp["next"] = fmt.Sprintf("%s%s/crawl/%s?skip=%d", s.URL, v, id, skip+2)
			}
		}
		writeJSON(w, 200, resp)
	default:
		writeJSON(w, 404, map[string]any{"success": false, "error": "Not found"})
	}
}
