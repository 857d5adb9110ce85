package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// outputSchema is the output schema of T, generated from its JSON tags and
// cut down to its top level, because clients send every tool's definition
// with every request: each property with its type, nested objects and
// lists as "object" and "array" (the text content beside the structured
// content says what is in them). The schema stays open, as JSON Schema
// objects are by default, so it validates the structured content as sent:
// the server checks every result against it, and so do clients such as the
// TypeScript SDK.
//
// Lists are "array", never ["null", "array"]: structured fills nil slices,
// so a list is at worst empty.
//
// keep, when given, lists the only properties the schema names; the others
// still come in the structured content, which the open schema lets through.
//
// The schema is generated the first time a tool definition needs it, not
// when the program starts: every command links this package, and only the
// MCP server lists tools.
func outputSchema[T any](keep ...string) mcpgo.ToolOption {
	schema := sync.OnceValue(func() json.RawMessage {
		raw, err := mcpgo.SchemaForRaw[T]()
		if err == nil {
			raw, err = compactSchema(raw, keep)
		}
		if err != nil {
			panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err))
		}
		return raw
	})
	return func(t *mcpgo.Tool) { mcpgo.WithRawOutputSchema(schema())(t) }
}

// compactSchema reduces a generated object schema to its properties'
// types, only those in keep when it is not empty.
func compactSchema(raw []byte, keep []string) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	for _, k := range keep {
		if _, ok := s.Properties[k]; !ok {
			return nil, fmt.Errorf("no property %q to keep", k)
		}
	}
	props := make(map[string]any, len(s.Properties))
	for name, p := range s.Properties {
		if len(keep) > 0 && !slices.Contains(keep, name) {
			continue
		}
		out := map[string]string{}
		switch t := p.Type.(type) {
		case string:
			out["type"] = t
		case []any: // ["null", "array"]: the type without null
			for _, e := range t {
				if s, ok := e.(string); ok && s != "null" {
					out["type"] = s
				}
			}
		}
		props[name] = out
	}
	return json.Marshal(map[string]any{"type": "object", "properties": props})
}

// fillNilSlices replaces the nil slices reachable from v (through pointers,
// struct fields and slice elements) with empty ones, so that structured
// content holds [] where its schema promises an array, never null.
func fillNilSlices(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			fillNilSlices(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillNilSlices(v.Field(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		switch v.Type().Elem().Kind() {
		case reflect.Struct, reflect.Pointer, reflect.Slice:
			for i := range v.Len() {
				fillNilSlices(v.Index(i))
			}
		}
	}
}
