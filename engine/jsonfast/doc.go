// Package jsonfast is Hearth's hand-written JSON: a Reader and Append
// functions for the few codecs that measurably pay for themselves, and
// the eight-bytes-at-a-time byte-class tests they (and the HTTP/1.1
// header parsers, through Printable) share.
//
// Why it exists: everything else goes through encoding/json. A codec
// stays here only while taking it out costs more than 5 % of the
// gateway's throughput; docs/benchmarks.md#json-codecs holds the
// measurement of each decision (the upstream stream chunk reader saves
// over 10 % of a stream's CPU). New code uses encoding/json, not this
// package.
//
// One set of rules, the same for every function here:
//
//   - Same result as encoding/json, or none. Every function either
//     produces exactly what encoding/json produces for the same value or
//     document, or reports false; the caller then encodes or decodes the
//     whole document with encoding/json, so the output cannot differ.
//   - Writing escapes as encoding/json does: quote, backslash and control
//     characters; U+2028 and U+2029 always; each invalid UTF-8 byte as
//     \ufffd; and <, > and & as \u003c, \u003e and \u0026 when html is
//     set, which is json.Marshal's HTML escaping (html unset writes what
//     an Encoder with SetEscapeHTML(false) writes). Every caller today
//     passes html set, as json.Marshal would. Values encoding/json
//     refuses (NaN, the infinities, raw JSON that is not valid) report
//     false.
//   - Reading accepts only valid JSON (a Reader checks the syntax of what
//     it consumes as json.Valid does, to at most MaxDepth levels) in the
//     shapes it decodes exactly as encoding/json would: object keys
//     spelled as the Go field's tag, unescaped and in the same case, each
//     once; strings of valid UTF-8 without lone surrogates; numbers in
//     the range of their field. Invalid UTF-8, escaped or case-folded
//     keys, duplicate keys and out-of-range numbers report false (for
//     encoding/json, which replaces or refuses them), never a guess.
package jsonfast
