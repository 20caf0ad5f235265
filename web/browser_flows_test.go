//go:build !no_ui

package web_test

import "testing"

func memoryFlow(t *testing.T, b *browser)                 {}
func threadPage(t *testing.T, b *browser, threadID string) {}
func usagePage(t *testing.T, b *browser)                  {}
