package engine

import "encoding/json"

// OwnedSetter is a Tx that can take a key and a value as byte slices it
// keeps until the transaction ends, without copying them. The caller
// must not change either slice afterwards. The run log lays out each
// record's two keys and its value in one buffer this way (one allocation
// a record instead of four); a Tx without it gets Put and PutRaw.
type OwnedSetter interface {
	SetOwned(key, value []byte) error
}

// putRun writes a run record and, for a pipe's run, its per-pipe index
// entry. hint is the value size the buffer is made for; putRun returns the
// size it wrote, so the next record's buffer can be made large enough at
// once.
//
// A run without a pipe (agent, completion, image) gets no index entry:
// List reads runpipe/ only for a pipe's id, never for "", so the entry
// runpipe/<owner>//<id> that older versions wrote for those runs is never
// read, and leaving it out spares every such run a key in the store.
func putRun(tx Tx, r *RunRecord, hint int) (int, error) {
	var set func(key, value []byte) error
	if s, ok := tx.(NewKeySetter); ok {
		set = s.SetNew // run ids are fresh: both keys are new
	} else if s, ok := tx.(OwnedSetter); ok {
		set = s.SetOwned
	} else {
		if err := tx.Put(prefixRun+r.Owner+"/"+r.ID, r); err != nil || r.PipeID == "" {
			return hint, err
		}
		return hint, tx.PutRaw(prefixRunPipe+r.Owner+"/"+r.PipeID+"/"+r.ID, nil)
	}
	if r.PipeID == "" {
		kv := make([]byte, 0, len(prefixRun)+len(r.Owner)+1+len(r.ID)+hint)
		kv = append(append(append(append(kv, prefixRun...), r.Owner...), '/'), r.ID...)
		k := len(kv)
		kv, err := appendRecord(kv, r)
		if err != nil {
			return hint, err
		}
		return len(kv) - k, set(kv[:k:k], kv[k:])
	}
	keys := len(prefixRun) + len(prefixRunPipe) + 2*len(r.Owner) + len(r.PipeID) + 2*len(r.ID) + 3
	kv := make([]byte, 0, keys+hint)
	kv = append(append(append(append(kv, prefixRun...), r.Owner...), '/'), r.ID...)
	k := len(kv)
	kv, err := appendRecord(kv, r)
	if err != nil {
		return hint, err
	}
	v := len(kv)
	kv = append(append(append(append(append(append(kv, prefixRunPipe...), r.Owner...), '/'), r.PipeID...), '/'), r.ID...)
	if err := set(kv[:k:k], kv[k:v:v]); err != nil {
		return hint, err
	}
	return v - k, set(kv[v:], kv[len(kv):])
}

// runValueHint is the first record's buffer room for its value; a
// record without content encodes in about 300 to 500 bytes.
const runValueHint = 512

// runValueHintMax caps what one large record (content kept inline) makes
// every later buffer reserve.
const runValueHintMax = 4 << 10

// appendRecord appends the JSON encoding of r to b.
func appendRecord(b []byte, r *RunRecord) ([]byte, error) {
	v, err := json.Marshal(r)
	if err != nil {
		return b, err
	}
	return append(b, v...), nil
}
