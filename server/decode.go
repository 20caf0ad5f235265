package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// maxJSONDepth bounds nesting of request bodies.
const maxJSONDepth = 64

// readBody reads the whole request body, mapping an over-limit body to 413.
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, bodyReadError(err)
	}
	return b, nil
}

// bodyReadError maps an error met reading the request body: an over-limit
// body is a 413, a too-slow one a 408, anything else a 400.
func bodyReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return engine.Errorf(engine.CodePayloadTooLarge, "request body is larger than the limit of %d bytes", mbe.Limit)
	}
	var de *bodyDeadlineError
	if errors.Is(err, errBodyTooSlow) || errors.As(err, &de) {
		return bodyCutError(err)
	}
	return engine.Wrap(err, engine.CodeBadRequest, "could not read request body")
}

// decodeJSON decodes the JSON body into v. Unknown fields are ignored (the
// SDK sends extra keys); an empty body decodes as {}.
func decodeJSON(c echo.Context, v any) error {
	buf, err := readPooledBody(c)
	if err != nil {
		return err
	}
	defer releaseBody(buf)
	return decodeBytes(buf.Bytes(), v)
}

func decodeBytes(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	if err := checkDepth(b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return jsonError(err)
	}
	return nil
}

// jsonError turns a decode error into a 400 that names the field when it can.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "body"
		}
		return engine.FieldError(field, "must be of type %s, got %s", jsonType(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return engine.Errorf(engine.CodeBadRequest, "invalid JSON body at byte %d: %s", se.Offset, se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return engine.Errorf(engine.CodeBadRequest, "invalid JSON body: unexpected end of input")
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		return ee
	}
	return engine.Errorf(engine.CodeBadRequest, "invalid JSON body: %s", err.Error())
}

func jsonType(kind string) string {
	switch kind {
	case "int", "int64", "int32", "float64", "float32", "uint", "uint64":
		return "number"
	case "slice", "array":
		return "array"
	case "map", "struct", "ptr":
		return "object"
	case "bool":
		return "boolean"
	}
	return kind
}

// checkDepth refuses bodies nested deeper than maxJSONDepth without
// decoding them. It counts the brackets outside strings; a string's
// contents are skipped to its closing quote with bytes.IndexByte, a quote
// after an odd run of backslashes being one of its characters.
func checkDepth(b []byte) error {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for {
				j := bytes.IndexByte(b[i+1:], '"')
				if j < 0 {
					return nil
				}
				open := i
				i += 1 + j
				k := i - 1
				for k > open && b[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
			if depth > maxJSONDepth {
				return engine.Errorf(engine.CodeBadRequest, "JSON body is nested deeper than %d levels", maxJSONDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// pathParam returns a decoded, validated path parameter. Names may not be
// empty, contain '/', '\', control characters, or be "." or "..".
func pathParam(c echo.Context, name string) (string, error) {
	raw := c.Param(name)
	v, err := url.PathUnescape(raw)
	if err != nil {
		return "", engine.FieldError(name, "is not a valid URL path segment")
	}
	if err := ValidateName(name, v); err != nil {
		return "", err
	}
	return v, nil
}

// ValidateName applies the path-safety rule to a resource name.
func ValidateName(field, v string) error {
	if v == "" {
		return engine.FieldError(field, "must not be empty")
	}
	if v == "." || v == ".." || strings.ContainsAny(v, "/\\") {
		return engine.FieldError(field, "%q may not contain '/' or '\\' or be '.' or '..'", v)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return engine.FieldError(field, "may not contain control characters")
		}
	}
	return nil
}
