package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

func TestKeysetEndpoints(t *testing.T) {
	ts := servertest.Start(t)
	alice := ts.UserWithKey("alice")
	bob := ts.UserWithKey("bob")
	r := ts.Do("PUT", "/v1/keysets/openai", alice, map[string]string{"key": "sk-alice-secret-1234"})
	if r.Status != 200 || strings.Contains(string(r.Body), "secret") || !strings.Contains(string(r.Body), `"last4":"1234"`) {
		t.Fatalf("set: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("PUT", "/v1/keysets/openai", alice, map[string]string{"key": ""}); r.Status != 400 || !strings.Contains(string(r.Body), "key: must not be empty") {
		t.Fatalf("empty key: %d %s", r.Status, r.Body)
	}
	var list []struct{ Provider, Last4 string }
	ts.Do("GET", "/v1/keysets", alice, nil).JSON(t, &list)
	if len(list) != 1 || list[0].Last4 != "1234" {
		t.Fatalf("alice list %+v", list)
	}
	ts.Do("GET", "/v1/keysets", bob, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("bob sees alice's keyset: %+v", list)
	}
	if r := ts.Do("DELETE", "/v1/keysets/openai", bob, nil); r.Status != 404 {
		t.Fatalf("bob deleting: %d", r.Status)
	}
	if r := ts.Do("DELETE", "/v1/keysets/openai", alice, nil); r.Status != 200 {
		t.Fatalf("alice deleting: %d %s", r.Status, r.Body)
	}
}
