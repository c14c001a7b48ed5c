// Command gohost runs scripted tools on go.starlark.net for the transpiler's
// Starlark runtime (engine "go").
//
// It speaks JSON lines on stdin/stdout. The Python side owns the simulated
// backends, the virtual clock and the scheduler; this program owns the
// interpreter. Every builtin is forwarded to Python as an "op" message and
// the calling goroutine waits for Python's "resume". Python resumes exactly
// one goroutine at a time, so a run is deterministic although parallel()
// branches are real goroutines calling Starlark lambdas natively.
//
// Python -> host:
//
//	{"type":"start","script":S,"filename":F,"params":P,"max_steps":N,
//	 "max_print":B,"max_log":B,"modules":{NAME:SOURCE}}
//	{"type":"resume","thread":[...],"value":V}
//	{"type":"start-branch","thread":[...]}
//	{"type":"abort"}
//
// host -> Python:
//
//	{"type":"op","thread":[...],"op":K,...}  (K: call, try_call, elicit, log,
//	                                         parallel, enter, retry-begin,
//	                                         retry-fail, retry-end)
//	{"type":"exit","thread":[...],"ok":B,"value":V,"error":E,"fatal":B,
//	 "reach":R}                              (R on the main thread's exit only)
//	{"type":"aborted","reach":R}
//
// R is what the run reached, for coverage: {"calls": [[BUILTIN, FILE, LINE,
// COL]...], "lines": [[FILE, LINE]...], "evaluated": [FILE...]}. A call is
// the position of a builtin's caller (the call's opening parenthesis); lines
// are the Starlark frames' positions on the stack at each builtin call and
// at each error (a halt, or a failed retry attempt; the 32 frames at each end
// of a deeper stack); evaluated names the
// script and the modules whose top level ran to its end.
//
// load("NAME", ...) resolves NAME in the run's modules; each module runs
// once per run, with the same builtins, and may load others. A module's
// compiled program is kept for later runs of the same source.
//
// The dialect (while, recursion, top-level if/for, global reassignment, set)
// is set through resolve's legacy flags: the 2021 snapshot has no other way,
// and the pinned go.starlark.net turns them into the same FileOptions that
// vMCP passes (syntax.LegacyFileOptions), so one source serves both.
//
// print() writes to stderr, at most max_print bytes a run. Python keeps at
// most max_log bytes of log() lines a run; once a run's lines reach that,
// log() still asks Python (which checks the argument) but sends an empty line
// instead of the text, so what crosses the pipe stays small. Python bounds this
// process's memory (RLIMIT_AS, GOMEMLIMIT) and each run's wall-clock time.
//
// Numbers: a Starlark float is written with a decimal point or exponent so
// that Python reads it back as a float; integers stay integers.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"sync"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkjson"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

var (
	output   = bufio.NewWriter(os.Stdout)
	outputMu sync.Mutex
)

func send(message map[string]interface{}) {
	outputMu.Lock()
	defer outputMu.Unlock()
	data, err := json.Marshal(message)
	if err != nil {
		data, _ = json.Marshal(map[string]interface{}{"type": "host-error", "error": err.Error()})
	}
	output.Write(data)
	output.WriteByte('\n')
	output.Flush()
}

type incoming struct {
	Type     string            `json:"type"`
	Thread   []int             `json:"thread"`
	Value    json.RawMessage   `json:"value"`
	Script   string            `json:"script"`
	Filename string            `json:"filename"`
	Params   json.RawMessage   `json:"params"`
	MaxSteps uint64            `json:"max_steps"`
	MaxPrint int               `json:"max_print"`
	MaxLog   int               `json:"max_log"`
	Modules  map[string]string `json:"modules"`
}

var errAborted = errors.New("run aborted")

// scriptThread is one Starlark thread of a run: the main one or a branch.
type scriptThread struct {
	path      []int
	parallels int
	reply     chan json.RawMessage
	start     chan struct{}
	starlar   *starlark.Thread
}

// run is one tools/call of a script.
type run struct {
	mu       sync.Mutex
	threads  map[string]*scriptThread
	abort    chan struct{}
	maxSteps uint64
	wg       sync.WaitGroup
	modules  map[string]string
	maxPrint int
	printed  int
	maxLog   int
	logged   int
	loaded   map[string]*loadedModule // nil value: being loaded
	reached  reach
}

// reach is what a run reached, for coverage (see the protocol above).
type reach struct {
	calls     map[callSite]struct{}
	lines     map[sourceLine]struct{}
	evaluated map[string]struct{}
}

type callSite struct {
	builtin, file string
	line, col     int32
}

type sourceLine struct {
	file string
	line int32
}

func newReach() reach {
	return reach{map[callSite]struct{}{}, map[sourceLine]struct{}{}, map[string]struct{}{}}
}

// stackEnds bounds the frames read at each builtin call or error to this many
// at each end of the stack: a deep recursion would otherwise cost its depth
// on every call.
const stackEnds = 32

// noteCall records a builtin's caller and the frames under it.
func (r *run) noteCall(thread *starlark.Thread, builtin string) {
	depth := thread.CallStackDepth()
	r.mu.Lock()
	defer r.mu.Unlock()
	if depth >= 2 {
		pos := thread.CallFrame(1).Pos
		r.reached.calls[callSite{builtin, pos.Filename(), pos.Line, pos.Col}] = struct{}{}
	}
	for i := 1; i < depth; i = nextFrame(i, depth) {
		r.noteLine(thread.CallFrame(i).Pos)
	}
}

// noteError records the frames where an error (a halt, a failed attempt) arose.
func (r *run) noteError(err error) {
	var evalErr *starlark.EvalError
	if !errors.As(err, &evalErr) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	stack := evalErr.CallStack
	for i := 0; i < len(stack); i = nextFrame(i, len(stack)) {
		r.noteLine(stack[i].Pos)
	}
}

// nextFrame is the frame read after frame i of depth, skipping the middle of a
// deep stack.
func nextFrame(i, depth int) int {
	if i+1 == stackEnds && depth-stackEnds > i+1 {
		return depth - stackEnds
	}
	return i + 1
}

func (r *run) noteLine(pos syntax.Position) {
	if file := pos.Filename(); file != "<builtin>" && pos.Line > 0 {
		r.reached.lines[sourceLine{file, pos.Line}] = struct{}{}
	}
}

func (r *run) noteEvaluated(file string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reached.evaluated[file] = struct{}{}
}

// reachJSON is the run's reach as the protocol sends it.
func (r *run) reachJSON() map[string]interface{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := make([]interface{}, 0, len(r.reached.calls))
	for c := range r.reached.calls {
		calls = append(calls, []interface{}{c.builtin, c.file, c.line, c.col})
	}
	lines := make([]interface{}, 0, len(r.reached.lines))
	for l := range r.reached.lines {
		lines = append(lines, []interface{}{l.file, l.line})
	}
	evaluated := make([]string, 0, len(r.reached.evaluated))
	for file := range r.reached.evaluated {
		evaluated = append(evaluated, file)
	}
	return map[string]interface{}{"calls": calls, "lines": lines, "evaluated": evaluated}
}

type loadedModule struct {
	globals starlark.StringDict
	err     error
}

// programs holds each module's (and script's) compiled program, by name and
// source, for every run that loads or runs it again (at most maxPrograms; then
// it starts over).
var (
	programs   = map[[2]string]*starlark.Program{}
	programsMu sync.Mutex
)

const maxPrograms = 64

// compiled parses, resolves and compiles a module once per name and source.
func compiled(module, source string) (*starlark.Program, error) {
	programsMu.Lock()
	defer programsMu.Unlock()
	key := [2]string{module, source}
	if program, ok := programs[key]; ok {
		return program, nil
	}
	_, program, err := starlark.SourceProgram(module, source, predeclared().Has)
	if err != nil {
		return nil, err
	}
	if len(programs) >= maxPrograms {
		programs = map[[2]string]*starlark.Program{}
	}
	programs[key] = program
	return program, nil
}

// exec runs a module as starlark.ExecFile does, from its compiled program.
func exec(thread *starlark.Thread, module, source string) (starlark.StringDict, error) {
	program, err := compiled(module, source)
	if err != nil {
		return nil, err
	}
	globals, err := program.Init(thread, predeclared())
	globals.Freeze()
	return globals, err
}

// load is the threads' Load: a module of the run, executed once.
func (r *run) load(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	entry, seen := r.loaded[module]
	if seen && entry == nil {
		return nil, errors.New("cycle in load graph")
	}
	if entry == nil {
		source, known := r.modules[module]
		if !known {
			return nil, errors.New("no such module")
		}
		r.loaded[module] = nil
		globals, err := exec(thread, module, source)
		if err == nil {
			r.noteEvaluated(module)
		}
		entry = &loadedModule{globals, err}
		r.loaded[module] = entry
	}
	return entry.globals, entry.err
}

// print writes print() output to stderr until the run's budget is spent.
func (r *run) print(_ *starlark.Thread, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := msg + "\n"
	if r.printed >= r.maxPrint {
		return
	}
	if r.printed+len(line) > r.maxPrint {
		line = line[:r.maxPrint-r.printed] + "\n[print output truncated]\n"
	}
	r.printed += len(line)
	os.Stderr.WriteString(line)
}

// logFull counts a log() line of n bytes and says whether the run's lines had
// already reached max_log (Python keeps nothing more of them).
func (r *run) logFull(n int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	full := r.logged >= r.maxLog
	r.logged += n
	return full
}

func pathKey(path []int) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = strconv.Itoa(p)
	}
	return strings.Join(parts, "/")
}

func (r *run) newThread(path []int) *scriptThread {
	t := &scriptThread{
		path:  path,
		reply: make(chan json.RawMessage, 1),
		start: make(chan struct{}, 1),
	}
	t.starlar = &starlark.Thread{Name: pathKey(path), Load: r.load, Print: r.print}
	t.starlar.SetLocal("scriptThread", t)
	t.starlar.SetLocal("run", r)
	if r.maxSteps > 0 {
		t.starlar.SetMaxExecutionSteps(r.maxSteps)
	}
	r.mu.Lock()
	r.threads[pathKey(path)] = t
	r.mu.Unlock()
	return t
}

func (r *run) lookup(path []int) *scriptThread {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.threads[pathKey(path)]
}

func (r *run) aborted() bool {
	select {
	case <-r.abort:
		return true
	default:
		return false
	}
}

// op forwards one builtin to Python and waits for the answer.
func op(thread *starlark.Thread, kind string, fields map[string]interface{}) (json.RawMessage, error) {
	t := thread.Local("scriptThread").(*scriptThread)
	r := thread.Local("run").(*run)
	if r.aborted() {
		return nil, errAborted
	}
	message := map[string]interface{}{"type": "op", "thread": t.path, "op": kind}
	for k, v := range fields {
		message[k] = v
	}
	send(message)
	select {
	case value := <-t.reply:
		return value, nil
	case <-r.abort:
		return nil, errAborted
	}
}

// answer is Python's reply to an op: a value, or a halt message.
type answer struct {
	Value json.RawMessage `json:"value"`
	Halt  *string         `json:"halt"`
}

func opValue(thread *starlark.Thread, kind string, fields map[string]interface{}) (json.RawMessage, error) {
	raw, err := op(thread, kind, fields)
	if err != nil {
		return nil, err
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("host protocol: %v", err)
	}
	if a.Halt != nil {
		return nil, errors.New(*a.Halt)
	}
	return a.Value, nil
}

func builtinCallTool(halting bool) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name, arguments starlark.Value = starlark.None, starlark.None
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "args?", &arguments); err != nil {
			return nil, err
		}
		kind := "try_call"
		if halting {
			kind = "call"
		}
		thread.Local("run").(*run).noteCall(thread, b.Name())
		value, err := opValue(thread, kind, map[string]interface{}{"name": toJSON(name), "args": toJSON(arguments)})
		if err != nil {
			return nil, err
		}
		result, err := fromJSON(value)
		if err != nil {
			return nil, err
		}
		if halting {
			return result, nil
		}
		list := result.(*starlark.List)
		return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
			"ok": list.Index(0), "error": list.Index(1), "output": list.Index(2),
		}), nil
	}
}

func builtinElicit(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var message starlark.Value = starlark.None
	var schema starlark.Value = starlark.NewDict(0)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "message", &message, "schema?", &schema); err != nil {
		return nil, err
	}
	thread.Local("run").(*run).noteCall(thread, b.Name())
	value, err := opValue(thread, "elicit", map[string]interface{}{"message": toJSON(message), "schema": toJSON(schema)})
	if err != nil {
		return nil, err
	}
	result, err := fromJSON(value)
	if err != nil {
		return nil, err
	}
	list := result.(*starlark.List)
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"action": list.Index(0), "content": list.Index(1),
	}), nil
}

func builtinLog(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var message starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "message", &message); err != nil {
		return nil, err
	}
	state := thread.Local("run").(*run)
	state.noteCall(thread, b.Name())
	if text, ok := message.(starlark.String); ok && state.logFull(len(text)) {
		message = starlark.String("")
	}
	if _, err := opValue(thread, "log", map[string]interface{}{"message": toJSON(message)}); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

func builtinParallel(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fns *starlark.List
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &fns); err != nil {
		return nil, err
	}
	parent := thread.Local("scriptThread").(*scriptThread)
	r := thread.Local("run").(*run)
	r.noteCall(thread, b.Name())
	n := fns.Len()
	key := parent.parallels
	parent.parallels++
	results := make([]starlark.Value, n)
	for i := 0; i < n; i++ {
		child := r.newThread(append(append([]int{}, parent.path...), key, i))
		callable := fns.Index(i)
		index := i
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			select {
			case <-child.start:
			case <-r.abort:
				return
			}
			result, err := branch(child, callable)
			if r.aborted() {
				return
			}
			if err == nil {
				results[index] = result
			}
			sendExit(child, result, err, false)
		}()
	}
	value, err := opValue(thread, "parallel", map[string]interface{}{"n": n})
	if err != nil {
		return nil, err
	}
	_ = value
	return starlark.NewList(results), nil
}

func branch(child *scriptThread, callable starlark.Value) (starlark.Value, error) {
	if _, err := opValue(child.starlar, "enter", nil); err != nil {
		return nil, err
	}
	fn, ok := callable.(starlark.Callable)
	if !ok {
		return nil, fmt.Errorf("parallel: element is not callable (got %s)", callable.Type())
	}
	return starlark.Call(child.starlar, fn, nil, nil)
}

func builtinRetry(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	var maxAttempts starlark.Value = starlark.MakeInt(3)
	var delay starlark.Value = starlark.String("1s")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "max_attempts?", &maxAttempts, "delay?", &delay); err != nil {
		return nil, err
	}
	r := thread.Local("run").(*run)
	r.noteCall(thread, b.Name())
	if _, err := opValue(thread, "retry-begin", map[string]interface{}{"max_attempts": toJSON(maxAttempts), "delay": toJSON(delay)}); err != nil {
		return nil, err
	}
	for {
		result, err := starlark.Call(thread, fn, nil, nil)
		if err != nil && (errors.Is(err, errAborted) || stepsExhausted(thread)) {
			return nil, err
		}
		failure := ""
		if err != nil {
			r.noteError(err)
			failure = errorMessage(err)
		} else if s, ok := result.(*starlarkstruct.Struct); ok {
			okValue, okErr := s.Attr("ok")
			errValue, errErr := s.Attr("error")
			if okErr == nil && errErr == nil && okValue != nil && !bool(okValue.Truth()) {
				failure = "attempt failed"
				if str, isString := errValue.(starlark.String); isString {
					failure = string(str)
				} else if errValue != starlark.None && errValue != nil {
					failure = errValue.String()
				}
			}
		}
		if failure == "" {
			if _, err := opValue(thread, "retry-end", nil); err != nil {
				return nil, err
			}
			return result, nil
		}
		value, err := opValue(thread, "retry-fail", map[string]interface{}{"error": failure})
		if err != nil {
			return nil, err
		}
		var again bool
		if err := json.Unmarshal(value, &again); err != nil || !again {
			return nil, errors.New(failure)
		}
	}
}

func stepsExhausted(thread *starlark.Thread) bool {
	r := thread.Local("run").(*run)
	return r.maxSteps > 0 && thread.ExecutionSteps() >= r.maxSteps
}

func errorMessage(err error) string {
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		return evalErr.Msg
	}
	return err.Error()
}

func sendExit(t *scriptThread, value starlark.Value, err error, main bool) {
	r := t.starlar.Local("run").(*run)
	message := map[string]interface{}{"type": "exit", "thread": t.path, "ok": err == nil}
	if err != nil {
		r.noteError(err)
		message["error"] = errorMessage(err)
		message["fatal"] = stepsExhausted(t.starlar)
	} else if main {
		message["value"] = toJSON(value)
	}
	if main {
		message["reach"] = r.reachJSON()
	}
	send(message)
}

func predeclared() starlark.StringDict {
	return starlark.StringDict{
		"call_tool":     starlark.NewBuiltin("call_tool", builtinCallTool(true)),
		"try_call_tool": starlark.NewBuiltin("try_call_tool", builtinCallTool(false)),
		"elicit":        starlark.NewBuiltin("elicit", builtinElicit),
		"log":           starlark.NewBuiltin("log", builtinLog),
		"parallel":      starlark.NewBuiltin("parallel", builtinParallel),
		"retry":         starlark.NewBuiltin("retry", builtinRetry),
		"json":          starlarkjson.Module,
		"struct":        starlark.NewBuiltin("struct", starlarkstruct.Make),
	}
}

func startRun(message incoming) *run {
	r := &run{
		threads:  map[string]*scriptThread{},
		abort:    make(chan struct{}),
		maxSteps: message.MaxSteps,
		maxPrint: message.MaxPrint,
		maxLog:   message.MaxLog,
		modules:  message.Modules,
		loaded:   map[string]*loadedModule{},
		reached:  newReach(),
	}
	main := r.newThread([]int{})
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		value, err, fatal := execute(main, message)
		if r.aborted() {
			return
		}
		if fatal != "" {
			send(map[string]interface{}{"type": "exit", "thread": main.path, "ok": false, "error": fatal, "fatal": true, "reach": r.reachJSON()})
			return
		}
		sendExit(main, value, err, true)
	}()
	return r
}

func execute(main *scriptThread, message incoming) (starlark.Value, error, string) {
	program, err := compiled(message.Filename, message.Script)
	if err != nil {
		return nil, nil, "script does not parse: " + err.Error()
	}
	globals, err := program.Init(main.starlar, predeclared())
	if err != nil {
		return nil, err, ""
	}
	globals.Freeze()
	main.starlar.Local("run").(*run).noteEvaluated(message.Filename)
	runFn, ok := globals["run"].(starlark.Callable)
	if !ok {
		return nil, nil, "the script does not define run(params)"
	}
	params, err := fromJSON(message.Params)
	if err != nil {
		return nil, nil, err.Error()
	}
	value, err := starlark.Call(main.starlar, runFn, starlark.Tuple{params}, nil)
	return value, err, ""
}

func main() {
	resolve.AllowRecursion = true
	resolve.AllowSet = true
	resolve.AllowGlobalReassign = true
	input := bufio.NewScanner(os.Stdin)
	input.Buffer(make([]byte, 1<<20), 1<<30)
	var current *run
	for input.Scan() {
		var message incoming
		if err := json.Unmarshal(input.Bytes(), &message); err != nil {
			send(map[string]interface{}{"type": "host-error", "error": err.Error()})
			continue
		}
		switch message.Type {
		case "start":
			current = startRun(message)
		case "resume":
			if t := current.lookup(message.Thread); t != nil {
				t.reply <- message.Value
			}
		case "start-branch":
			if t := current.lookup(message.Thread); t != nil {
				t.start <- struct{}{}
			}
		case "abort":
			r := current
			close(r.abort)
			r.mu.Lock()
			for _, t := range r.threads {
				t.starlar.Cancel("run aborted")
			}
			r.mu.Unlock()
			r.wg.Wait()
			send(map[string]interface{}{"type": "aborted", "reach": r.reachJSON()})
		}
	}
}

// toJSON turns a Starlark value into JSON-ready data, keeping floats floats.
func toJSON(v starlark.Value) interface{} {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(v)
	case starlark.Int:
		if i, ok := v.Int64(); ok {
			return i
		}
		return json.Number(v.String())
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return map[string]interface{}{"$float": v.String()}
		}
		text := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(text, ".e") {
			text += ".0"
		}
		return json.Number(text)
	case starlark.String:
		return string(v)
	case *starlark.List:
		items := make([]interface{}, v.Len())
		for i := 0; i < v.Len(); i++ {
			items[i] = toJSON(v.Index(i))
		}
		return items
	case starlark.Tuple:
		items := make([]interface{}, len(v))
		for i, item := range v {
			items[i] = toJSON(item)
		}
		return items
	case *starlark.Dict:
		object := map[string]interface{}{}
		for _, item := range v.Items() {
			key, isString := item[0].(starlark.String)
			name := item[0].String()
			if isString {
				name = string(key)
			}
			object[name] = toJSON(item[1])
		}
		return object
	default:
		return v.String()
	}
}

// fromJSON turns JSON from Python into Starlark values: integers stay ints,
// and object keys keep their order (Python decides it, for determinism).
func fromJSON(data json.RawMessage) (starlark.Value, error) {
	if len(data) == 0 {
		return starlark.None, nil
	}
	decoder := json.NewDecoder(strings.NewReader(string(data)))
	decoder.UseNumber()
	value, err := decodeValue(decoder)
	if err != nil {
		return nil, fmt.Errorf("host protocol: %v", err)
	}
	return value, nil
}

func decodeValue(decoder *json.Decoder) (starlark.Value, error) {
	token, err := decoder.Token()
	if err != nil {
		return nil, err
	}
	switch t := token.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(t), nil
	case json.Number:
		return number(string(t)), nil
	case string:
		return starlark.String(t), nil
	case json.Delim:
		if t == '[' {
			var items []starlark.Value
			for decoder.More() {
				item, err := decodeValue(decoder)
				if err != nil {
					return nil, err
				}
				items = append(items, item)
			}
			_, err := decoder.Token()
			return starlark.NewList(items), err
		}
		dict := starlark.NewDict(0)
		for decoder.More() {
			keyToken, err := decoder.Token()
			if err != nil {
				return nil, err
			}
			item, err := decodeValue(decoder)
			if err != nil {
				return nil, err
			}
			dict.SetKey(starlark.String(keyToken.(string)), item)
		}
		_, err := decoder.Token()
		return dict, err
	}
	return nil, fmt.Errorf("unexpected token %v", token)
}

func number(text string) starlark.Value {
	if !strings.ContainsAny(text, ".eE") {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return starlark.MakeInt64(i)
		}
		if big, ok := new(big.Int).SetString(text, 10); ok {
			return starlark.MakeBigInt(big)
		}
	}
	f, _ := strconv.ParseFloat(text, 64)
	return starlark.Float(f)
}
