package jsonfast

// The field functions append one member of an object, key (with its
// leading comma and colon, as `,"name":`) and value, when the value is
// set, as encoding/json writes a field tagged omitempty of that type.
// They are small enough to be inlined: an unset field costs no call.

// AppendStringField appends key and s unless s is empty.
func AppendStringField(b []byte, key, s string, html bool) []byte {
	if s == "" {
		return b
	}
	return AppendString(append(b, key...), s, html)
}

// AppendFloatField appends key and *f unless f is nil; it reports false as
// AppendFloat does.
func AppendFloatField(b []byte, key string, f *float64) (_ []byte, ok bool) {
	if ok = f == nil; !ok {
		b, ok = AppendFloat(append(b, key...), *f)
	}
	return b, ok
}

// AppendRawField appends key and raw unless raw is empty; it reports false as
// AppendRaw does.
func AppendRawField(b []byte, key string, raw []byte, html bool) (_ []byte, ok bool) {
	if ok = len(raw) == 0; !ok {
		b, ok = AppendRaw(append(b, key...), raw, html)
	}
	return b, ok
}

// AppendStringsField appends key and ss as an array of strings unless ss is
// empty.
func AppendStringsField(b []byte, key string, ss []string, html bool) []byte {
	if len(ss) == 0 {
		return b
	}
	return stringArray(append(b, key...), ss, html)
}

// stringArray appends ss as an array of strings.
func stringArray(b []byte, ss []string, html bool) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s, html)
	}
	return append(b, ']')
}
