package telemetry

// ValueKind says which field of an Attr holds its value.
type ValueKind int8

// Attribute value kinds, as in OTLP's AnyValue.
const (
	StringValue ValueKind = iota
	IntValue
	FloatValue
	BoolValue
	StringsValue
)

// Attr is one span attribute. Attrs are plain values, so building them
// for a nil span (tracing off) allocates nothing.
type Attr struct {
	Key   string
	Kind  ValueKind
	Str   string
	Int   int64
	Float float64
	Strs  []string
}

// String is a string attribute.
func String(key, v string) Attr { return Attr{Key: key, Kind: StringValue, Str: v} }

// Int is an integer attribute.
func Int(key string, v int) Attr { return Attr{Key: key, Kind: IntValue, Int: int64(v)} }

// Int64 is an integer attribute.
func Int64(key string, v int64) Attr { return Attr{Key: key, Kind: IntValue, Int: v} }

// Float is a floating-point attribute.
func Float(key string, v float64) Attr { return Attr{Key: key, Kind: FloatValue, Float: v} }

// Bool is a boolean attribute.
func Bool(key string, v bool) Attr {
	a := Attr{Key: key, Kind: BoolValue}
	if v {
		a.Int = 1
	}
	return a
}

// Strings is a string-array attribute.
func Strings(key string, v []string) Attr { return Attr{Key: key, Kind: StringsValue, Strs: v} }

// Value returns the attribute's value as a Go value (string, int64,
// float64, bool or []string), for tests and log lines.
func (a Attr) Value() any {
	switch a.Kind {
	case IntValue:
		return a.Int
	case FloatValue:
		return a.Float
	case BoolValue:
		return a.Int == 1
	case StringsValue:
		return a.Strs
	}
	return a.Str
}
