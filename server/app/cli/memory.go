package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// packClient calls the memory pack endpoints of a running server
// (docs/memories-and-retrieval.md#memory-packs). Packs can be large: requests
// have no overall timeout, the transfer itself is bounded by the server's body
// and write limits.
type packClient struct {
	url, key string
	http     *http.Client
}

func packFlags(fs *flag.FlagSet, c cliIO) (url, key *string) {
	url = fs.String("url", envOr(c.getenv, "HEARTH_PUBLIC_URL", "http://127.0.0.1:8080"), "running server (env HEARTH_PUBLIC_URL)")
	key = fs.String("key", c.getenv("HEARTH_API_KEY"), "API key of the memory's owner (env HEARTH_API_KEY)")
	return url, key
}

func newPackClient(u, key string) *packClient {
	return &packClient{url: strings.TrimRight(u, "/"), key: key, http: &http.Client{Transport: http.DefaultTransport}}
}

// httpError reads an error answer of the server.
func httpError(what string, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		return fmt.Errorf("%s: HTTP %d %s: %s", what, resp.StatusCode, e.Error.Code, e.Error.Message)
	}
	return fmt.Errorf("%s: HTTP %d: %s", what, resp.StatusCode, bytes.TrimSpace(raw))
}

// memoryExportCmd is "hearth memory export NAME": the pack goes to
// standard output, or to --out, which is written under a temporary name
// and renamed only once the whole pack arrived.
func memoryExportCmd(fs *flag.FlagSet, c cliIO) func([]string) error {
	u, key := packFlags(fs, c)
	out := fs.String("out", "", "write the pack to this file instead of standard output")
	return func(pos []string) error {
		if err := positional("memory export", pos, "name"); err != nil {
			return err
		}
		if *key == "" {
			return errors.New("memory export: --key (or HEARTH_API_KEY) is required")
		}
		cl := newPackClient(*u, *key)
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, cl.url+"/v1/memory/"+url.PathEscape(pos[0])+"/export", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+cl.key)
		resp, err := cl.http.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return httpError("memory export", resp)
		}
		if *out == "" {
			if _, err := io.Copy(c.stdout, resp.Body); err != nil {
				return fmt.Errorf("memory export: the pack was cut off (%w); what was written is incomplete and an import will refuse it", err)
			}
			return nil
		}
		f, err := os.CreateTemp(filepath.Dir(*out), ".hearthpack-*")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		n, err := io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("memory export: %w", err)
		}
		if err := os.Rename(f.Name(), *out); err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "exported memory %s to %s (%d bytes)\n", pos[0], *out, n)
		return nil
	}
}

// memoryImportCmd is "hearth memory import": the pack comes from standard
// input, or from --in.
func memoryImportCmd(fs *flag.FlagSet, c cliIO) func([]string) error {
	u, key := packFlags(fs, c)
	in := fs.String("in", "", "read the pack from this file instead of standard input")
	name := fs.String("name", "", "import under this name instead of the pack's")
	replace := fs.Bool("replace", false, "replace an existing memory of the name (same embedding model and dimension)")
	return func(pos []string) error {
		if err := positional("memory import", pos); err != nil {
			return err
		}
		if *key == "" {
			return errors.New("memory import: --key (or HEARTH_API_KEY) is required")
		}
		body, size := c.stdin, int64(-1)
		if *in != "" {
			f, err := os.Open(*in)
			if err != nil {
				return err
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				return err
			}
			body, size = f, st.Size()
		}
		q := url.Values{}
		if *name != "" {
			q.Set("name", *name)
		}
		if *replace {
			q.Set("replace", "true")
		}
		cl := newPackClient(*u, *key)
		target := cl.url + "/v1/memory/import"
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, target, body)
		if err != nil {
			return err
		}
		if size >= 0 {
			req.ContentLength = size
		}
		req.Header.Set("Authorization", "Bearer "+cl.key)
		req.Header.Set("Content-Type", "application/vnd.hearth.memory-pack")
		resp, err := cl.http.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return httpError("memory import", resp)
		}
		var res struct {
			Name      string `json:"name"`
			Documents int    `json:"documents"`
			Chunks    int    `json:"chunks"`
			Replaced  bool   `json:"replaced"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
			return fmt.Errorf("memory import: %w", err)
		}
		verb := "imported"
		if res.Replaced {
			verb = "replaced"
		}
		fmt.Fprintf(c.stdout, "%s memory %s: %d documents, %d chunks\n", verb, res.Name, res.Documents, res.Chunks)
		return nil
	}
}
