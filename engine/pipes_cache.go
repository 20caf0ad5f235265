package engine

import (
	"context"
	"errors"
	"strings"
)

// Pipe configurations served from memory on the run path (pipe keys name
// their pipe by id, user and org keys by owner and name). Only GetByID and
// Lookup use the cache; Get, List and the writes read the store. Writes
// that change a pipe drop its entries after they commit (dropPipe) and
// publish TopicPipe with its id in their transaction. In cluster mode each
// node drops a pipe when the change feed delivers its change, so a pipe
// changed on one node is used by the others within the feed's lag (see
// gateCache).

// enableCache turns the pipe cache on, and follows
// other nodes' changes when c delivers them.
func (ps *Pipes) enableCache(c Cluster) {
	ps.cluster = c
	if c == nil {
		return
	}
	ps.cache = newGateCache[*Pipe](c)
	c.Subscribe(TopicPipe, func(id string) { ps.cache.drop(id) })
}

// publishPipe records in tx that the pipe id changed.
func (ps *Pipes) publishPipe(tx Tx, id string) error {
	if ps.cluster == nil {
		return nil
	}
	return ps.cluster.Publish(tx, TopicPipe, id)
}

// dropPipe forgets the cached configuration of a pipe; called after the
// write that changed it committed.
func (ps *Pipes) dropPipe(id string) { ps.cache.drop(id) }

// cached returns the pipe cached under the key k (built in the caller's
// buffer, so a hit allocates nothing). Every run of the pipe shares it:
// GetByID and Lookup hand it out as it is, and their callers never modify
// it (the run path only reads its pipe; a write of the pipe stores a new
// one and drops this).
func (ps *Pipes) cached(k []byte) (*Pipe, uint64) {
	p, ok, gen := ps.cache.getBytes(k)
	if !ok {
		return nil, gen
	}
	return p, gen
}

// GetByID returns the pipe a pipe key is bound to. The pipe may be the
// cached one every run shares: it must never be modified.
func (ps *Pipes) GetByID(ctx context.Context, id string) (*Pipe, error) {
	var buf [96]byte
	p, gen := ps.cached(append(append(buf[:0], "i/"...), id...))
	if p != nil {
		return p, nil
	}
	return ps.getByIDStored(ctx, id, gen)
}

// getByIDStored reads the pipe of GetByID from the store and caches it
// (apart, so that the closure's variables cost a cache hit nothing).
func (ps *Pipes) getByIDStored(ctx context.Context, id string, gen uint64) (*Pipe, error) {
	var p *Pipe
	err := ps.store.View(ctx, func(tx Tx) error {
		ref, err := tx.GetRaw(prefixPipeID + id)
		if errors.Is(err, ErrNotFound) {
			return NotFound("pipe", id)
		}
		if err != nil {
			return err
		}
		owner, name, _ := strings.Cut(string(ref), "/")
		p, err = getPipe(tx, owner, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	ps.cache.put(gen, "i/"+id, p, p.ID)
	return p, nil
}

// Lookup returns an owner's pipe by name, as Get does, from the cache when
// it holds it. It is for the run path, which never changes the pipe: the
// pipe may be the cached one every run shares and must never be modified.
func (ps *Pipes) Lookup(ctx context.Context, owner, name string) (*Pipe, error) {
	var buf [160]byte
	p, gen := ps.cached(append(append(append(append(buf[:0], "n/"...), owner...), '/'), name...))
	if p != nil {
		return p, nil
	}
	p, err := ps.Get(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	ps.cache.put(gen, "n/"+owner+"/"+name, p, p.ID)
	return p, nil
}
