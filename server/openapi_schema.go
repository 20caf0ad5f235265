package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
	"unicode"
)

// schemaGen derives JSON Schemas (OpenAPI 3.1 dialect) from the Go types
// the handlers decode and encode, so the document follows the code. Named
// struct types become components referenced by $ref (which also handles
// recursive types); everything else is inlined.
type schemaGen struct {
	components map[string]any
	names      map[reflect.Type]string
}

func newSchemaGen() *schemaGen {
	return &schemaGen{components: map[string]any{}, names: map[reflect.Type]string{}}
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawJSONType   = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// of returns the schema of a value's type; nil gives an empty schema (any).
func (g *schemaGen) of(v any) map[string]any {
	if v == nil {
		return map[string]any{}
	}
	return g.typ(reflect.TypeOf(v))
}

func (g *schemaGen) typ(t reflect.Type) map[string]any {
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawJSONType:
		return map[string]any{}
	case t.Kind() != reflect.Pointer && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)):
		// Custom JSON (string-or-parts content and the like): any value.
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typ(t.Elem())
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.typ(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.typ(t.Elem())}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + g.component(t)}
	}
	return map[string]any{} // interfaces, funcs: any value
}

// component registers a named struct type once and returns its name.
func (g *schemaGen) component(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	name := exportName(t.Name())
	if _, taken := g.components[name]; taken {
		pkg := t.PkgPath()
		name = exportName(pkg[strings.LastIndex(pkg, "/")+1:]) + name
	}
	g.names[t] = name
	g.components[name] = map[string]any{} // placeholder: recursion stops here
	g.components[name] = g.object(t)
	return name
}

// object is the schema of a struct's JSON fields (embedded structs inline).
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	g.fields(t, props)
	return map[string]any{"type": "object", "properties": props}
}

func (g *schemaGen) fields(t reflect.Type, props map[string]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				g.fields(et, props)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.typ(f.Type)
	}
}

func exportName(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
