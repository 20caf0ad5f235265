package engine

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
)

// newSecretAEAD returns the AES-256-GCM cipher that seals stored provider
// keys (keysets and deployments) with the server's 32-byte secret; what
// names the caller in the error.
func newSecretAEAD(what string, secret []byte) (cipher.AEAD, error) {
	if len(secret) != 32 {
		return nil, fmt.Errorf("%s: secret must be 32 bytes, got %d", what, len(secret))
	}
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealSecret encrypts plain under a fresh random nonce, bound to ad (the
// record's name, so a sealed key cannot be moved to another record).
func sealSecret(aead cipher.AEAD, plain, ad string) (nonce, ciphertext []byte, err error) {
	nonce = make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return nonce, aead.Seal(nil, nonce, []byte(plain), []byte(ad)), nil
}
