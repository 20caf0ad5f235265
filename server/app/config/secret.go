package config

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LoadSecret returns the 32-byte key that encrypts provider keysets:
// HEARTH_SECRET_KEY (64 hex characters or base64 of 32 bytes) when set,
// else <data>/secret.key, created with mode 0600 on first use. Back the file
// up with the data dir: without it stored provider keys cannot be read.
func LoadSecret(dataDir string, getenv func(string) string) ([]byte, error) {
	if v := strings.TrimSpace(getenv("HEARTH_SECRET_KEY")); v != "" {
		if b, err := hex.DecodeString(v); err == nil && len(b) == 32 {
			return b, nil
		}
		if b, err := base64.StdEncoding.DecodeString(v); err == nil && len(b) == 32 {
			return b, nil
		}
		return nil, errors.New("HEARTH_SECRET_KEY: must be 32 bytes as 64 hex characters or base64")
	}
	path := filepath.Join(dataDir, "secret.key")
	b, err := os.ReadFile(path)
	if err == nil {
		key, derr := hex.DecodeString(strings.TrimSpace(string(b)))
		if derr != nil || len(key) != 32 {
			return nil, fmt.Errorf("%s: corrupt (want 64 hex characters)", path)
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	return key, f.Close()
}

// deriveKey derives a purpose-specific key from the data dir's secret, so
// one secret serves several uses without any two sharing a key.
func deriveKey(secret []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}
