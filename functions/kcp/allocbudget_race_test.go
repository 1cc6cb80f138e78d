//go:build race

package main

// raceDetector is whether the tests run under the race detector, which allocates for its
// own bookkeeping and drops sync.Pool entries at random: allocation budgets do not hold.
const raceDetector = true
