package engine

import "encoding/json"

// scanJSON decodes every record under prefix into a fresh T and hands it to fn.
func scanJSON[T any](tx Tx, prefix string, fn func(*T) error) error {
	return tx.Scan(prefix, "", func(key string, b []byte) error {
		v := new(T)
		if err := json.Unmarshal(b, v); err != nil {
			return Wrap(err, CodeInternal, "corrupt record %s", key)
		}
		return fn(v)
	})
}

// ScanJSON is scanJSON for other engine sub-packages and adapters.
func ScanJSON[T any](tx Tx, prefix string, fn func(*T) error) error { return scanJSON(tx, prefix, fn) }
