package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// expectedFailuresFile lists the conformance checks that may fail (relative to this package).
const expectedFailuresFile = "conformance-expected-failures.yml"

// expectedFailure is one allowed conformance failure.
type expectedFailure struct {
	Scenario    string `yaml:"scenario"`
	SpecVersion string `yaml:"specVersion"`
	Check       string `yaml:"check"`
	// Reason must start with "Not testable" and be part of the suite's error message.
	Reason string `yaml:"reason"`
}

// expectedFailures is the decoded expected-failures file.
type expectedFailures struct {
	Server []expectedFailure `yaml:"server"`
}

// loadExpectedFailures reads and validates the expected-failures file.
func loadExpectedFailures(path string) (*expectedFailures, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return parseExpectedFailures(path, data)
}

// parseExpectedFailures decodes an expected-failures file strictly (unknown keys are errors)
// and checks that every entry is complete and names a "Not testable" reason.
func parseExpectedFailures(name string, data []byte) (*expectedFailures, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var ef expectedFailures
	if err := dec.Decode(&ef); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decoding %s: %w", name, err)
	}
	for i, e := range ef.Server {
		switch {
		case e.Scenario == "" || e.SpecVersion == "" || e.Check == "" || e.Reason == "":
			return nil, fmt.Errorf("%s: server[%d] needs scenario, specVersion, check and reason", name, i)
		case !strings.HasPrefix(e.Reason, "Not testable"):
			return nil, fmt.Errorf("%s: server[%d] (%s %s) has reason %q; only checks the suite reports as \"Not testable\" may be listed", name, i, e.Scenario, e.Check, e.Reason)
		}
	}
	return &ef, nil
}

// allows returns the entry that allows check c of scenario at version to fail, or nil.
func (ef *expectedFailures) allows(scenario, version string, c conformanceCheck) *expectedFailure {
	if ef == nil || !c.NotTestable() {
		return nil
	}
	for i, e := range ef.Server {
		if e.Scenario == scenario && e.SpecVersion == version && e.Check == c.ID && strings.Contains(c.ErrorMessage, e.Reason) {
			return &ef.Server[i]
		}
	}
	return nil
}

// forScenario returns the entries of one scenario at one version.
func (ef *expectedFailures) forScenario(scenario, version string) []expectedFailure {
	var out []expectedFailure
	for _, e := range ef.Server {
		if e.Scenario == scenario && e.SpecVersion == version {
			out = append(out, e)
		}
	}
	return out
}
