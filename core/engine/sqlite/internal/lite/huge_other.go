//go:build !linux

package lite

// hugePages does nothing where transparent huge pages are not Linux's.
func hugePages(p uintptr, n int64) {}
