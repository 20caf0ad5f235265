package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestBudgetSetterRefusals: a pipe key and a scoped key are both refused
// with 403 field "scope", like every scoped-key refusal, the message
// saying what is refused.
func TestBudgetSetterRefusals(t *testing.T) {
	e := newBudgetEnv(t, time.Now())
	in := engine.BudgetInput{Period: engine.PeriodDay, LimitTokens: ptr[int64](10)}
	for _, by := range []*engine.Principal{
		{KeyID: "key_pipe", Kind: engine.KeyPipe, Owner: "ann", PipeID: "pipe_x"},
		{KeyID: e.annB.KeyID, Kind: engine.KeyUser, Owner: "ann", Scope: &engine.Scope{Pipes: []string{"p"}}},
	} {
		_, err := e.budgets.Set(context.Background(), by, in)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Code != engine.CodeForbidden || ee.Field != "scope" || !strings.Contains(ee.Message, "cannot set or delete budgets") {
			t.Errorf("%s key sets a budget: %v, want FORBIDDEN field scope saying budgets are refused", by.Kind, err)
		}
		if err := e.budgets.Delete(context.Background(), by, "bgt_day_owner"); !errors.As(err, &ee) || ee.Field != "scope" {
			t.Errorf("%s key deletes a budget: %v, want field scope", by.Kind, err)
		}
	}
}
