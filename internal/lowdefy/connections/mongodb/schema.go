package mongodb

import (
	"errors"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// This file holds the JSON schemas of @lowdefy/connection-mongodb 4.0.0-rc.11 as checks
// with the schemas' own error messages. Like Lowdefy's AJV validation (allErrors, then
// "first; last"), a check reports the first and the last problem: missing required
// properties first, then properties of the wrong type in schema order.

// kind is the JSON schema type a property must have.
type kind int

const (
	kindString kind = iota
	kindBoolean
	kindObject
	kindArray
	kindObjectOrArray
	kindArrayOfObjects
)

// prop is one property of a schema.
type prop struct {
	name     string
	kind     kind
	required string // the message when it is missing; "" when it is optional
	typeMsg  string // the message when it has the wrong type
	itemMsg  string // kindArrayOfObjects: the message when an item is not an object
}

// schema is the schema of a connection's or a request's properties.
type schema struct {
	notObject string // the message when the properties are not an object
	props     []prop
}

// check validates v against s.
func (s *schema) check(v any) error {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return errors.New(s.notObject)
	}
	var msgs []string
	for _, p := range s.props {
		if p.required != "" && jsvalue.IsUndefined(o.Prop(p.name)) {
			msgs = append(msgs, p.required)
		}
	}
	for _, p := range s.props {
		val := o.Prop(p.name)
		if jsvalue.IsUndefined(val) {
			continue
		}
		switch p.kind {
		case kindString:
			_, ok = val.(string)
		case kindBoolean:
			_, ok = val.(bool)
		case kindObject:
			ok = isSchemaObject(val)
		case kindArray:
			_, ok = val.([]any)
		case kindObjectOrArray:
			_, ok = val.([]any)
			ok = ok || isSchemaObject(val)
		case kindArrayOfObjects:
			var items []any
			items, ok = val.([]any)
			for _, item := range items {
				if !isSchemaObject(item) {
					msgs = append(msgs, p.itemMsg)
				}
			}
		}
		if !ok {
			msgs = append(msgs, p.typeMsg)
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return errors.New(msgs[0])
	}
	return errors.New(msgs[0] + "; " + msgs[len(msgs)-1])
}

// isSchemaObject reports whether AJV sees v as an "object": a plain object, or a Date or
// an Error (JavaScript objects that are not arrays).
func isSchemaObject(v any) bool {
	switch v.(type) {
	case *jsvalue.Object, time.Time, *jsvalue.Error:
		return true
	}
	return false
}

var connectionSchema = &schema{
	notObject: "MongoDBCollection connection properties should be an object.",
	props: []prop{
		{name: "databaseUri", kind: kindString,
			required: `MongoDBCollection connection should have required property "databaseUri".`,
			typeMsg:  `MongoDBCollection connection property "databaseUri" should be a string.`},
		{name: "databaseName", kind: kindString,
			typeMsg: `MongoDBCollection connection property "databaseName" should be a string.`},
		{name: "collection", kind: kindString,
			required: `MongoDBCollection connection should have required property "collection".`,
			typeMsg:  `MongoDBCollection connection property "collection" should be a string.`},
		{name: "read", kind: kindBoolean,
			typeMsg: `MongoDBCollection connection property "read" should be a boolean.`},
		{name: "write", kind: kindBoolean,
			typeMsg: `MongoDBCollection connection property "write" should be a boolean.`},
	},
}

// checkConnection validates the connection properties.
func checkConnection(props *jsvalue.Object) error {
	if props == nil {
		return errors.New(connectionSchema.notObject)
	}
	return connectionSchema.check(props)
}

// requestSchema builds the schema of request type typ from its properties, each given as
// name, kind and whether it is required, with the messages the Lowdefy schemas use.
func requestSchema(typ string, props ...prop) *schema {
	s := &schema{notObject: typ + " request properties should be an object."}
	for _, p := range props {
		if p.required != "" {
			p.required = typ + ` request should have required property "` + p.name + `".`
		}
		what := "an object"
		switch p.kind {
		case kindArray, kindArrayOfObjects:
			what = "an array"
		}
		p.typeMsg = typ + ` request property "` + p.name + `" should be ` + what + "."
		if p.kind == kindArrayOfObjects {
			p.itemMsg = typ + ` request property "` + p.name + `" should be an array of documents to insert.`
		}
		s.props = append(s.props, p)
	}
	return s
}

// req and opt declare a required and an optional request property.
func req(name string, k kind) prop { return prop{name: name, kind: k, required: "yes"} }
func opt(name string, k kind) prop { return prop{name: name, kind: k} }
