package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// conformanceCheck is one entry of a checks.json written by the conformance suite.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED, INFO
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// Failed reports whether the check counts as a failure.
func (c conformanceCheck) Failed() bool { return c.Status == "FAILURE" }

// NotTestable reports whether the suite could not exercise the check (for example because a
// reference diagnostic tool is absent); it still reports such checks as FAILURE.
func (c conformanceCheck) NotTestable() bool {
	return strings.HasPrefix(c.ErrorMessage, "Not testable")
}

// scenarioResult is the checks of one scenario run.
type scenarioResult struct {
	Scenario string
	Dir      string
	Checks   []conformanceCheck
}

// Counts returns how many checks passed and failed, and the number of warnings.
func (r scenarioResult) Counts() (passed, failed, warnings int) {
	for _, c := range r.Checks {
		switch c.Status {
		case "SUCCESS":
			passed++
		case "FAILURE":
			failed++
		case "WARNING":
			warnings++
		}
	}
	return passed, failed, warnings
}

// resultDirPattern matches the result directories the suite writes: server-<scenario>-<timestamp>.
var resultDirPattern = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readConformanceResults reads every server-*/checks.json under dir, sorted by scenario.
func readConformanceResults(dir string) ([]scenarioResult, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading conformance results in %s: %w", dir, err)
	}
	var results []scenarioResult
	for _, e := range entries {
		m := resultDirPattern.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		path := filepath.Join(dir, e.Name(), "checks.json")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(data, &checks); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		results = append(results, scenarioResult{Scenario: m[1], Dir: filepath.Join(dir, e.Name()), Checks: checks})
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Scenario < results[j].Scenario })
	return results, nil
}

// compactJSON returns raw JSON on one line, cut to max bytes, for failure messages.
func compactJSON(raw json.RawMessage, max int) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
