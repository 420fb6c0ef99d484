//go:build race

package upstream_test

// raceOn says the race detector is on: it slows everything down about tenfold, so the
// load tests give calls more time.
const raceOn = true
