// Command oracle renders Go text/template templates the way vMCP's composite
// tool engine does, so the Python renderer can be checked against the real
// text/template package.
//
// Protocol: one JSON request per line on stdin, one JSON response per line on
// stdout (flushed after every line).
//
//	request:  {"template": "...", "context": <value>, "name": "expand"}
//	response: {"ok": true, "out": "..."}                 (plus "out_base64" when
//	          the output is not valid UTF-8: JSON cannot carry those bytes)
//	          {"ok": false, "kind": "parse"|"exec"|"size"|"request"|"panic",
//	           "error": "<Go's error text>"}
//
// Context values are JSON, decoded as vMCP decodes JSON (every number is a
// float64), except for tagged objects: a JSON object with exactly one key that
// starts with "$" carries a Go value JSON cannot express:
//
//	{"$int": "42"}             int
//	{"$int64": "42"}           int64
//	{"$float": "NaN"}          float64 NaN, "+Inf", "-Inf" or any ParseFloat text
//	{"$nilmap": true}          map[string]any(nil)
//	{"$nillist": true}         []any(nil)
//	{"$time": "<RFC 3339>"}    time.Time
//	{"$anykeymap": [[k, v]]}   map[any]any (keys and values tagged the same way)
//	{"$bytes": "<base64>"}     a string that is not valid UTF-8
//	{"$map": {...}}            a map[string]any whose keys may look like tags
//
// The template funcs are vMCP's: json (encoding/json Marshal), quote
// (strconv.Quote via %q, string argument) and fromJson (json.Unmarshal into
// any). When built with a Go older than 1.22, json rewrites \u0008 and \u000c
// escapes to \b and \f, which is what Go 1.22 and later (vMCP uses 1.26) emit.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"
)

const maxOutputBytes = 10 * 1024 * 1024

type request struct {
	Template string          `json:"template"`
	Context  json.RawMessage `json:"context"`
	Name     string          `json:"name"`
}

type response struct {
	OK        bool   `json:"ok"`
	Out       string `json:"out,omitempty"`
	OutBase64 string `json:"out_base64,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Error     string `json:"error,omitempty"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	for {
		line, readErr := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if err := encoder.Encode(handle(line)); err != nil {
				fmt.Fprintln(os.Stderr, "oracle: cannot write response:", err)
				os.Exit(1)
			}
			if err := out.Flush(); err != nil {
				os.Exit(1)
			}
		}
		if readErr != nil {
			return
		}
	}
}

func handle(line []byte) (resp response) {
	defer func() {
		if p := recover(); p != nil {
			resp = response{Kind: "panic", Error: fmt.Sprint(p)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Kind: "request", Error: err.Error()}
	}
	var raw any
	if len(req.Context) > 0 {
		if err := json.Unmarshal(req.Context, &raw); err != nil {
			return response{Kind: "request", Error: err.Error()}
		}
	}
	data, err := untag(raw)
	if err != nil {
		return response{Kind: "request", Error: err.Error()}
	}
	name := req.Name
	if name == "" {
		name = "expand"
	}
	return render(name, req.Template, data)
}

func render(name, text string, data any) response {
	tmpl, err := template.New(name).Funcs(vmcpFuncs()).Parse(text)
	if err != nil {
		return response{Kind: "parse", Error: err.Error()}
	}
	var buf strings.Builder
	if err := tmpl.Execute(&buf, data); err != nil {
		return response{Kind: "exec", Error: err.Error()}
	}
	if buf.Len() > maxOutputBytes {
		msg := fmt.Sprintf("template output too large: %d bytes (max %d)", buf.Len(), maxOutputBytes)
		return response{Kind: "size", Error: msg}
	}
	resp := response{OK: true, Out: buf.String()}
	if !utf8.ValidString(resp.Out) {
		resp.OutBase64 = base64.StdEncoding.EncodeToString([]byte(resp.Out))
	}
	return resp
}

func vmcpFuncs() template.FuncMap {
	return template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			if err != nil {
				return "", fmt.Errorf("failed to encode JSON: %w", err)
			}
			return string(modernEscapes(b)), nil
		},
		"quote": func(s string) string {
			return fmt.Sprintf("%q", s)
		},
		"fromJson": func(s string) (any, error) {
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				return nil, fmt.Errorf("failed to unmarshal JSON: %w", err)
			}
			return v, nil
		},
	}
}

// modernEscapes turns the \u0008 and \u000c escapes of Go < 1.22 into the
// \b and \f that Go 1.22+ writes; other escapes are left alone.
func modernEscapes(b []byte) []byte {
	if !olderThanGo122() {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		rest := string(b[i:])
		switch {
		case strings.HasPrefix(rest, `\u0008`):
			out = append(out, `\b`...)
			i += 5
		case strings.HasPrefix(rest, `\u000c`):
			out = append(out, `\f`...)
			i += 5
		default:
			out = append(out, b[i], b[i+1])
			i++
		}
	}
	return out
}

func olderThanGo122() bool {
	version := strings.TrimPrefix(runtime.Version(), "go")
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, errMajor := strconv.Atoi(parts[0])
	minor, errMinor := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool {
		return r < '0' || r > '9'
	}))
	if errMajor != nil || errMinor != nil {
		return false
	}
	return major == 1 && minor < 22
}

// untag rebuilds the Go values of a decoded context, resolving tagged objects.
func untag(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for key, inner := range x {
				if strings.HasPrefix(key, "$") {
					return untagOne(key, inner)
				}
			}
		}
		return untagMap(x)
	case []any:
		// Append from empty, as encoding/json builds arrays: the capacity
		// (which `slice` may reach past the length) is the same as vMCP's.
		out := make([]any, 0)
		for _, item := range x {
			converted, err := untag(item)
			if err != nil {
				return nil, err
			}
			out = append(out, converted)
		}
		return out, nil
	default:
		return v, nil
	}
}

func untagMap(m map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for key, item := range m {
		converted, err := untag(item)
		if err != nil {
			return nil, err
		}
		out[key] = converted
	}
	return out, nil
}

func untagOne(tag string, inner any) (any, error) {
	text, _ := inner.(string)
	switch tag {
	case "$int":
		n, err := strconv.ParseInt(text, 10, 64)
		return int(n), err
	case "$int64":
		return strconv.ParseInt(text, 10, 64)
	case "$float":
		return strconv.ParseFloat(text, 64)
	case "$nilmap":
		return map[string]any(nil), nil
	case "$nillist":
		return []any(nil), nil
	case "$time":
		return time.Parse(time.RFC3339Nano, text)
	case "$bytes":
		raw, err := base64.StdEncoding.DecodeString(text)
		return string(raw), err
	case "$map":
		m, ok := inner.(map[string]any)
		if !ok {
			return nil, errors.New("$map needs an object")
		}
		return untagMap(m)
	case "$anykeymap":
		pairs, ok := inner.([]any)
		if !ok {
			return nil, errors.New("$anykeymap needs a list of [key, value] pairs")
		}
		out := make(map[any]any, len(pairs))
		for _, pair := range pairs {
			kv, ok := pair.([]any)
			if !ok || len(kv) != 2 {
				return nil, errors.New("$anykeymap needs a list of [key, value] pairs")
			}
			key, err := untag(kv[0])
			if err != nil {
				return nil, err
			}
			value, err := untag(kv[1])
			if err != nil {
				return nil, err
			}
			out[key] = value
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown tag %q", tag)
}
