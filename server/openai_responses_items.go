package server

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// itemList is a page of input items, in OpenAI's list shape.
type itemList struct {
	Object  string            `json:"object"`
	Data    []json.RawMessage `json:"data"`
	FirstID *string           `json:"first_id"`
	LastID  *string           `json:"last_id"`
	HasMore bool              `json:"has_more"`
}

// itemPage pages items by the query's order (asc, the default, or desc),
// after and before (item ids) and limit (1-100, default 20).
func itemPage(c echo.Context, items []json.RawMessage) (*itemList, error) {
	q := c.QueryParams()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, engine.FieldError("limit", "must be an integer from 1 to 100, got %q", v)
		}
		limit = n
	}
	items = slices.Clone(items)
	switch q.Get("order") {
	case "", "asc":
	case "desc":
		slices.Reverse(items)
	default:
		return nil, engine.FieldError("order", "must be asc or desc, got %q", q.Get("order"))
	}
	ids := make([]string, len(items))
	for i, it := range items {
		var v struct {
			ID string `json:"id"`
		}
		json.Unmarshal(it, &v)
		ids[i] = v.ID
	}
	from, to := 0, len(items)
	if a := q.Get("after"); a != "" {
		i := slices.Index(ids, a)
		if i < 0 {
			return nil, engine.FieldError("after", "names no input item of this response: %q", a)
		}
		from = i + 1
	}
	if b := q.Get("before"); b != "" {
		i := slices.Index(ids, b)
		if i < 0 {
			return nil, engine.FieldError("before", "names no input item of this response: %q", b)
		}
		to = i
	}
	if to < from {
		to = from
	}
	page := &itemList{Object: "list", Data: items[from:to]}
	if len(page.Data) > limit {
		page.Data, page.HasMore = page.Data[:limit], true
	}
	if n := len(page.Data); n > 0 {
		first, last := ids[from], ids[from+n-1]
		page.FirstID, page.LastID = &first, &last
	}
	return page, nil
}
