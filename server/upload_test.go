package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestUploadRefusesInvalidBearer: the signed URL needs no key, but an
// Authorization header that is sent must be a live key: unknown, revoked
// and non-Bearer credentials get 401 and leave the URL unused.
func TestUploadRefusesInvalidBearer(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	ctx := context.Background()
	rec, revoked, err := ts.Accounts.CreateKey(ctx, "admin", "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Accounts.RevokeKey(ctx, "admin", rec.ID); err != nil {
		t.Fatal(err)
	}
	url := signedURL(t, ts, key, "kb", "a.txt", nil)
	text := []byte("plain text document")
	for name, k := range map[string]string{"unknown key": "hk_not_a_real_key_0000", "revoked key": revoked} {
		status, body := put(t, url, k, "text/plain", text)
		e, _ := body["error"].(map[string]any)
		if status != 401 || e["code"] != "UNAUTHORIZED" {
			t.Errorf("%s: %d %v, want 401 UNAUTHORIZED", name, status, body)
		}
	}
	status, body := putAuth(t, url, "Basic YWRtaW46eA==", "text/plain", text)
	if status != 401 {
		t.Errorf("Basic credentials: %d %v, want 401", status, body)
	}
	// The refusals did not use the URL up: the same URL with no key works.
	if status, body := put(t, url, "", "text/plain", text); status != 200 || body["ok"] != true {
		t.Fatalf("upload without a key: %d %v", status, body)
	}
}

// putAuth is put with a raw Authorization header value.
func putAuth(t *testing.T, url, authorization, contentType string, data []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("PUT", url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", authorization)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("upload answer is not JSON (%d): %s", resp.StatusCode, b)
	}
	return resp.StatusCode, out
}
