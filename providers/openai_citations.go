package providers

import (
	"strconv"
	"strings"
)

// Perplexity answers with its web sources at the top level of a chat
// completion (and of each stream chunk): "citations", a list of URLs, and
// "search_results", [{title, url, date}], numbered like the [1], [2]
// markers of the text (https://docs.perplexity.ai/api-reference/chat-completions-post).
// OpenAI clients read sources from the message's "annotations" of type
// url_citation (https://platform.openai.com/docs/api-reference/chat/object),
// so the adapter carries them there; the extra fields of an annotation
// are ignored by clients that do not know them.

// webSources are the source fields of an OpenAI-wire answer.
type webSources struct {
	Citations     []string          `json:"citations,omitempty"`
	SearchResults []webSearchResult `json:"search_results,omitempty"`
}

type webSearchResult struct {
	Title string `json:"title"`
	URL   string `json:"url"`
	Date  string `json:"date,omitempty"`
}

func (w *webSources) empty() bool { return len(w.Citations) == 0 && len(w.SearchResults) == 0 }

// urlCitation is one OpenAI url_citation annotation.
type urlCitation struct {
	Type        string          `json:"type"`
	URLCitation urlCitationBody `json:"url_citation"`
}

type urlCitationBody struct {
	URL        string `json:"url"`
	Title      string `json:"title"`
	StartIndex int    `json:"start_index"`
	EndIndex   int    `json:"end_index"`
}

// annotations returns one url_citation per source, in order, pointing at
// the first "[n]" marker of source n in text (0, 0 when there is none).
// search_results win over citations, which carry no titles.
func (w *webSources) annotations(text string) []any {
	type src struct{ url, title string }
	var list []src
	if len(w.SearchResults) > 0 {
		for _, r := range w.SearchResults {
			list = append(list, src{r.URL, r.Title})
		}
	} else {
		for _, u := range w.Citations {
			list = append(list, src{u, u})
		}
	}
	out := make([]any, 0, len(list))
	for i, s := range list {
		marker := "[" + strconv.Itoa(i+1) + "]"
		start, end := 0, 0
		if at := strings.Index(text, marker); at >= 0 {
			// Indexes count characters, as OpenAI's do.
			start = len([]rune(text[:at]))
			end = start + len(marker)
		}
		out = append(out, urlCitation{Type: "url_citation", URLCitation: urlCitationBody{URL: s.url, Title: s.title, StartIndex: start, EndIndex: end}})
	}
	return out
}
