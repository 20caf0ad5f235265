package engine

import "context"

// DetachForTest is the context a finished run writes its thread and
// record with.
func DetachForTest(pr *PreparedRun, ctx context.Context) context.Context { return pr.detach(ctx) }

// PutEmptyThreadForTest writes a store:false run's new thread as finish
// does; AppendEmptyThreadForTest writes it through the append path that
// a run which stores its conversation uses.
func PutEmptyThreadForTest(ctx context.Context, ts *Threads, tx Tx, p *Pipe, id string) error {
	return ts.putEmptyThread(ctx, tx, p, id)
}

// AppendEmptyThreadForTest is the append path's write of a new thread
// with no messages.
func AppendEmptyThreadForTest(ctx context.Context, ts *Threads, tx Tx, p *Pipe, id string) error {
	t := ts.newThread(ctx, p.Owner, id, nil)
	t.Pipe, t.PipeID = p.Name, p.ID
	if err := tx.Put(threadIdxKey(t.Owner, t), ""); err != nil {
		return err
	}
	_, err := ts.appendTx(ctx, tx, t, "threadId", nil)
	return err
}
