//go:build !race

package upstream_test

const raceOn = false
