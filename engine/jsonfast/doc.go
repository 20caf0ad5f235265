// Package jsonfast is Hearth's hand-written JSON: a Reader for the one
// codec that measurably pays for itself, the upstream stream chunk reader
// of package providers, and the eight-bytes-at-a-time byte-class tests it
// (and the HTTP/1.1 header parsers, through Printable) share.
//
// Why it exists: everything else, the upstream request bodies and
// non-stream answers included, goes through encoding/json. A codec stays
// here only while taking it out costs more than 5 % of the gateway's
// throughput; docs/benchmarks.md#json-codecs holds the measurement of
// each decision (the stream chunk reader saves over 10 % of a stream's
// CPU). New code uses encoding/json, not this package.
//
// One rule for every function here: same result as encoding/json, or
// none. A Reader accepts only valid JSON (it checks the syntax of what it
// consumes as json.Valid does, to at most MaxDepth levels) in the shapes
// it decodes exactly as encoding/json would: object keys spelled as the
// Go field's tag, unescaped and in the same case, each once; strings of
// valid UTF-8 without lone surrogates; numbers in the range of their
// field. Invalid UTF-8, escaped or case-folded keys, duplicate keys and
// out-of-range numbers report false, never a guess, and the caller then
// decodes the whole document with encoding/json, so the value cannot
// differ.
package jsonfast
