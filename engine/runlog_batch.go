package engine

import "time"

// runLinger is how long the run log's writer waits, after taking a batch's
// first record, for more records to join it. Records are written off the
// request path, so no answer waits for it; what it buys is fewer, larger
// transactions under load (one Badger commit and one set of spend counter
// updates for every record of the window instead of one per record or
// two). A flush request or a full batch ends the wait at once, and Close
// does not wait for it. Each node lingers on its own queue (cluster mode
// changes nothing: the window only delays this node's own writes).
const runLinger = 5 * time.Millisecond

// runGather collects one batch of the run log's writer; its slices are
// reused by every batch.
type runGather struct {
	batch  []RunRecord
	acks   []chan struct{}
	linger time.Duration
	timer  *time.Timer
}

// fill starts a batch with first and adds what the queue holds: every
// record already waiting, then whatever arrives until the linger window
// ends, the batch is full, a flush request comes or the queue is closed.
func (g *runGather) fill(first runItem, queue <-chan runItem) {
	clear(g.batch)
	g.batch, g.acks = g.batch[:0], g.acks[:0]
	g.add(first)
	for !g.full() {
		select {
		case it, ok := <-queue:
			if !ok {
				return
			}
			g.add(it)
			continue
		default:
		}
		break
	}
	if g.linger <= 0 || g.full() || len(g.acks) > 0 {
		return
	}
	if g.timer == nil {
		g.timer = time.NewTimer(g.linger)
	} else {
		g.timer.Reset(g.linger)
	}
	defer g.timer.Stop()
	for !g.full() && len(g.acks) == 0 {
		select {
		case it, ok := <-queue:
			if !ok {
				return
			}
			g.add(it)
		case <-g.timer.C:
			return
		}
	}
}

func (g *runGather) add(it runItem) {
	if it.ack != nil {
		g.acks = append(g.acks, it.ack)
	} else {
		g.batch = append(g.batch, it.rec)
	}
}

func (g *runGather) full() bool { return len(g.batch) >= runBatchSize }

// Stats returns the run records this process has written so far and the
// transactions it wrote them in (batches that failed are not counted).
func (l *RunLog) Stats() (records, commits int64) {
	if l == nil {
		return 0, 0
	}
	return l.written.Load(), l.commits.Load()
}
