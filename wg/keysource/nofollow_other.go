//go:build !unix

package keysource

// oNoFollow is 0 where the system has no O_NOFOLLOW; O_EXCL alone refuses
// an existing path, a symbolic link included.
const oNoFollow = 0

func isLoop(error) bool { return false }
