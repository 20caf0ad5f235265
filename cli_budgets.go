package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// budgetFlags are the flags every budgets verb shares: the server and the
// key of the owner (docs/accounts-and-keys.md#budgets).
type budgetFlags struct{ url, key *string }

func defineBudgetFlags(fs *flag.FlagSet, c cliIO) budgetFlags {
	return budgetFlags{
		url: fs.String("url", envOr(c.getenv, "HEARTH_PUBLIC_URL", "http://127.0.0.1:8080"), "running server (env HEARTH_PUBLIC_URL)"),
		key: fs.String("key", c.getenv("HEARTH_API_KEY"), "an unscoped user or org key of the owner (env HEARTH_API_KEY)"),
	}
}

// call sends one request to /v1/budgets and decodes the answer into out;
// an error answer becomes the server's message.
func (f budgetFlags) call(method, path string, body, out any) error {
	if *f.key == "" {
		return fmt.Errorf("budgets: --key (or HEARTH_API_KEY) is required")
	}
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, strings.TrimRight(*f.url, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+*f.key)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("budgets: %s (HTTP %d)", e.Error.Message, resp.StatusCode)
		}
		return fmt.Errorf("budgets: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, out)
}

// budgetsList is "hearth budgets list".
func budgetsList(fs *flag.FlagSet, c cliIO) func([]string) error {
	bf := defineBudgetFlags(fs, c)
	asJSON := fs.Bool("json", false, "print the budgets as JSON")
	return func(pos []string) error {
		if err := positional("budgets list", pos); err != nil {
			return err
		}
		var list []engine.BudgetStatus
		if err := bf.call(http.MethodGet, "/v1/budgets", nil, &list); err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(c.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(list)
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tAPPLIES TO\tPERIOD\tUSD\tTOKENS\tRESETS")
		for _, b := range list {
			who := "owner " + b.Owner
			if b.KeyID != "" {
				who = "key " + b.KeyID
			}
			dollars, tokens := "-", "-"
			if b.LimitUSD != nil {
				dollars = strconv.FormatFloat(b.UsedUSD, 'f', -1, 64) + " of " + strconv.FormatFloat(*b.LimitUSD, 'f', -1, 64)
			}
			if b.LimitTokens != nil {
				tokens = strconv.FormatInt(b.UsedTokens, 10) + " of " + strconv.FormatInt(*b.LimitTokens, 10)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", b.ID, who, b.Period, dollars, tokens, b.ResetsAt.UTC().Format(time.RFC3339))
		}
		return tw.Flush()
	}
}

// budgetsSet is "hearth budgets set".
func budgetsSet(fs *flag.FlagSet, c cliIO) func([]string) error {
	bf := defineBudgetFlags(fs, c)
	period := fs.String("period", "", `"day" or "month" (UTC calendar periods)`)
	keyID := fs.String("key-id", "", "the key the budget limits (default: the whole owner)")
	usd := fs.Float64("usd", 0, "dollar limit per period, at list prices (0: none)")
	tokens := fs.Int64("tokens", 0, "token limit per period (0: none)")
	return func(pos []string) error {
		if err := positional("budgets set", pos); err != nil {
			return err
		}
		in := engine.BudgetInput{KeyID: *keyID, Period: *period}
		if *usd != 0 {
			in.LimitUSD = usd
		}
		if *tokens != 0 {
			in.LimitTokens = tokens
		}
		var st engine.BudgetStatus
		if err := bf.call(http.MethodPost, "/v1/budgets", in, &st); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "budget %s set; it resets at %s\n", st.ID, st.ResetsAt.UTC().Format(time.RFC3339))
		return nil
	}
}

// budgetsDelete is "hearth budgets delete".
func budgetsDelete(fs *flag.FlagSet, c cliIO) func([]string) error {
	bf := defineBudgetFlags(fs, c)
	return func(pos []string) error {
		if err := positional("budgets delete", pos, "budget-id"); err != nil {
			return err
		}
		var ok struct {
			Success bool `json:"success"`
		}
		if err := bf.call(http.MethodDelete, "/v1/budgets/"+url.PathEscape(pos[0]), nil, &ok); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "budget %s deleted\n", pos[0])
		return nil
	}
}
