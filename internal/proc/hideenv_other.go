//go:build !linux

package proc

// HideEnv does nothing on systems other than Linux.
func HideEnv(hide func(name string) bool) error { return nil }
