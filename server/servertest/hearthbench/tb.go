package main

import (
	"fmt"
	"os"
	"testing"
)

// benchTB lets the benchmark start servers with servertest, which takes a
// testing.TB, outside a test: failures panic, cleanups run at close. The
// embedded nil TB makes it satisfy the interface; servertest calls only
// the methods defined here.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (b *benchTB) Helper()                      {}
func (b *benchTB) Name() string                 { return "hearthbench" }
func (b *benchTB) Cleanup(f func())             { b.cleanups = append(b.cleanups, f) }
func (b *benchTB) Fatal(args ...any)            { panic(fmt.Sprint(args...)) }
func (b *benchTB) Fatalf(f string, a ...any)    { panic(fmt.Sprintf(f, a...)) }
func (b *benchTB) Error(args ...any)            { panic(fmt.Sprint(args...)) }
func (b *benchTB) Errorf(f string, a ...any)    { panic(fmt.Sprintf(f, a...)) }
func (b *benchTB) Log(args ...any)              {}
func (b *benchTB) Logf(format string, a ...any) {}

func (b *benchTB) TempDir() string {
	dir, err := os.MkdirTemp("", "hearthbench-")
	if err != nil {
		panic(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// close runs the cleanups, last registered first.
func (b *benchTB) close() {
	for i := len(b.cleanups) - 1; i >= 0; i-- {
		b.cleanups[i]()
	}
	b.cleanups = nil
}
