package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DecodeArgs decodes a tool call's arguments object, keeping numbers exact
// (json.Number). No arguments, or null, are an empty object; anything but one
// JSON object is an error.
func DecodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&args); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the arguments object")
	}
	if args == nil { // " null " with spaces
		args = map[string]any{}
	}
	return args, nil
}
