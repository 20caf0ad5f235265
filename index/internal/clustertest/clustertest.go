// Package clustertest is an in-process engine.Cluster for tests: several
// nodes of one process share a store, and a change published in an Update
// on one node is delivered to the subscribers of every other node after
// that Update commits, as cluster mode's change feed does across
// processes. Locks and counters are shared by the nodes of a Hub.
package clustertest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Hub connects the nodes that share one store.
type Hub struct {
	mu     sync.Mutex
	nodes  []*Node
	locks  map[string]string
	counts map[string]int64
}

// NewHub returns a Hub without nodes.
func NewHub() *Hub { return &Hub{locks: map[string]string{}, counts: map[string]int64{}} }

// Node is one member of a Hub. It implements engine.Cluster; Store returns
// the store view through which its Updates may publish.
type Node struct {
	hub   *Hub
	name  string
	store engine.Store

	mu    sync.Mutex
	subs  map[string][]func(string)
	muted bool
	wg    sync.WaitGroup
}

var _ engine.Cluster = (*Node)(nil)

// Node adds a node named name over store (the one store every node of
// the hub shares).
func (h *Hub) Node(name string, store engine.Store) *Node {
	n := &Node{hub: h, name: name, store: store, subs: map[string][]func(string){}}
	h.mu.Lock()
	h.nodes = append(h.nodes, n)
	h.mu.Unlock()
	return n
}

// Store returns the shared store as seen by this node: its Updates collect
// the node's Publish calls and deliver them once they commit.
func (n *Node) Store() engine.Store { return &nodeStore{Store: n.store, node: n} }

// Mute drops (true) or delivers again (false) the notifications sent to
// this node, to simulate a lost wake-up.
func (n *Node) Mute(on bool) {
	n.mu.Lock()
	n.muted = on
	n.mu.Unlock()
}

// Leave stops deliveries to this node's subscribers and waits for those in
// flight, as when its process ends.
func (n *Node) Leave() {
	n.mu.Lock()
	n.subs = map[string][]func(string){}
	n.mu.Unlock()
	n.wg.Wait()
}

// Shared reports true.
func (n *Node) Shared() bool { return true }

// Fresh reports true: the hub delivers every change.
func (n *Node) Fresh() bool { return true }

// Node returns the node's name.
func (n *Node) Node() string { return n.name }

// TryLock takes name in the hub.
func (n *Node) TryLock(_ context.Context, name string) (func(), bool, error) {
	h := n.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, held := h.locks[name]; held {
		return nil, false, nil
	}
	h.locks[name] = n.name
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.locks, name)
			h.mu.Unlock()
		})
	}, true, nil
}

// Publish records the change in tx, which must come from this node's Store.
func (n *Node) Publish(tx engine.Tx, topic, key string) error {
	t, ok := tx.(*nodeTx)
	if !ok {
		return errors.New("clustertest: Publish needs a transaction of the node's Store")
	}
	t.pubs = append(t.pubs, [2]string{topic, key})
	return nil
}

// Subscribe registers fn for the changes other nodes publish under topic.
func (n *Node) Subscribe(topic string, fn func(string)) {
	n.mu.Lock()
	n.subs[topic] = append(n.subs[topic], fn)
	n.mu.Unlock()
}

// Count adds n to a hub-wide counter of the current window.
func (n *Node) Count(_ context.Context, key string, window time.Duration, d int64) (int64, error) {
	h := n.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	k := key + "@" + time.Now().Truncate(window).String()
	h.counts[k] += d
	return h.counts[k], nil
}

// deliver calls the subscribers of every other node, each on its own
// goroutine, as a feed's listener would.
func (n *Node) deliver(pubs [][2]string) {
	n.hub.mu.Lock()
	nodes := append([]*Node(nil), n.hub.nodes...)
	n.hub.mu.Unlock()
	for _, o := range nodes {
		if o == n {
			continue
		}
		o.mu.Lock()
		if !o.muted {
			for _, p := range pubs {
				for _, fn := range o.subs[p[0]] {
					o.wg.Add(1)
					go func(fn func(string), key string) {
						defer o.wg.Done()
						fn(key)
					}(fn, p[1])
				}
			}
		}
		o.mu.Unlock()
	}
}

type nodeStore struct {
	engine.Store
	node *Node
}

type nodeTx struct {
	engine.Tx
	pubs [][2]string
}

// Update runs fn with a transaction that collects publications and
// delivers them after the commit; a retried fn starts with none.
func (s *nodeStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	var pubs [][2]string
	err := s.Store.Update(ctx, func(tx engine.Tx) error {
		t := &nodeTx{Tx: tx}
		err := fn(t)
		pubs = t.pubs
		return err
	})
	if err == nil && len(pubs) > 0 {
		s.node.deliver(pubs)
	}
	return err
}

// Close does not close the shared store; the test owns it.
func (s *nodeStore) Close() error { return nil }
