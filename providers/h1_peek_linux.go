//go:build linux

package providers

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// peekNoWait peeks at fd's next byte without waiting: recvfrom with
// MSG_PEEK|MSG_DONTWAIT made directly, which unix.Recvfrom would do with
// an allocation for the sender's address a stream socket never has.
func peekNoWait(fd uintptr, b []byte) error {
	_, _, e := unix.Syscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
		unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
