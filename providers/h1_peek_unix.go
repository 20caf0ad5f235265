//go:build unix && !linux

package providers

import "golang.org/x/sys/unix"

// peekNoWait peeks at fd's next byte without waiting (recvfrom with
// MSG_PEEK|MSG_DONTWAIT).
func peekNoWait(fd uintptr, b []byte) error {
	_, _, err := unix.Recvfrom(int(fd), b, unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return err
}
