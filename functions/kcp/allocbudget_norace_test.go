//go:build !race

package main

// raceDetector is whether the tests run under the race detector (see allocbudget_race_test.go).
const raceDetector = false
