package pgsql

//go:generate go run github.com/ledgercheck/ledgercheck/internal/cmd/genjsontree -o jsontree_gen.go

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// decodeTree decodes js, pg_query's JSON parse tree of sql, into tree, as proto.Unmarshal
// decodes pg_query's protobuf of it. It reports false, leaving tree in an unspecified state,
// for anything it does not expect: an unknown key, a value of another type, a string that is not
// UTF-8 (which proto.Unmarshal rejects), or a tree the JSON does not describe whole. pg_query's
// JSON drops an Integer's value when it is not positive; a constant's zero is recovered from
// the SQL (its text at the constant's location is 0), any other is not.
func decodeTree(js, sql string, tree *pg_query.ParseResult) (ok bool) {
	d := treeDecoder{js: js, sql: sql}
	defer func() {
		if r := recover(); r != nil {
			if r != errTreeDecode {
				panic(r)
			}
			ok = false
		}
	}()
	d.message(messagePlan(parseResultType), unsafe.Pointer(tree))
	return d.i == len(d.js) && d.zeroInts == 0
}

// constantValue returns the value of the integer constant at loc in sql that pg_query's JSON
// drops, 0 or negative: 0 written as 0, or a minus sign, white space and decimal digits. false
// for anything else (a comment after the sign, a hexadecimal constant, ...).
func constantValue(sql string, loc int) (int32, bool) {
	if loc < 0 || loc >= len(sql) {
		return 0, false
	}
	if sql[loc] == '0' {
		return 0, true
	}
	if sql[loc] != '-' {
		return 0, false
	}
	i := loc + 1
	for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r') {
		i++
	}
	start := i
	for i < len(sql) && sql[i] >= '0' && sql[i] <= '9' {
		i++
	}
	if i == start || i < len(sql) && (isIdentByte(sql[i]) || sql[i] == '.') {
		return 0, false
	}
	v, err := strconv.ParseInt("-"+sql[start:i], 10, 32)
	if err != nil || v == 0 {
		return 0, false
	}
	return int32(v), true
}

// mayHaveZeroBound reports whether sql may hold an array bound of 0: a '[' in the SQL's code
// followed by white space and 0, or by anything that could hide one (a comment). A '[' in a
// comment, a string constant, a quoted identifier or a dollar-quoted string is no bound, so
// those are skipped (a regular expression such as '^[0-9]+$', a comment on a range [0,1] do
// not send the whole file to pg_query.Parse). Whatever the skipping is not sure of (a backslash
// in a string, which an E-string escapes with; a string or comment left open) answers true.
func mayHaveZeroBound(sql string) bool {
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '[':
			j := i + 1
			for j < len(sql) && (sql[j] == ' ' || sql[j] == '\t' || sql[j] == '\n' || sql[j] == '\r') {
				j++
			}
			if j < len(sql) && (sql[j] == '0' || sql[j] == '-' || sql[j] == '/') {
				return true
			}
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			n := strings.IndexByte(sql[i:], '\n')
			if n < 0 {
				return false // the comment runs to the end
			}
			i += n
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			n, ok := commentEnd(sql, i)
			if !ok {
				return true
			}
			i = n - 1
		case c == '\'' || c == '"':
			n := i + 1
			for ; n < len(sql); n++ {
				if sql[n] == '\\' && c == '\'' {
					return true // an E-string's escape, maybe of the quote
				}
				if sql[n] == c {
					if n+1 < len(sql) && sql[n+1] == c {
						n++ // a doubled quote
						continue
					}
					break
				}
			}
			if n >= len(sql) {
				return true
			}
			i = n
		case c == '$':
			tag, ok := dollarTag(sql[i:])
			if !ok {
				continue // a parameter ($1) or no quote
			}
			if i > 0 && (isIdentByte(sql[i-1]) || sql[i-1] == '$') {
				return true // inside an identifier (a$b$) or after a parameter ($1$$): not sure
			}
			n := strings.Index(sql[i+len(tag):], tag)
			if n < 0 {
				return true
			}
			i += 2*len(tag) + n - 1
		}
	}
	return false
}

// commentEnd returns the offset just past the (nested) /* */ comment at sql[i], and false when
// it is not closed.
func commentEnd(sql string, i int) (int, bool) {
	depth := 0
	for i < len(sql)-1 {
		switch {
		case sql[i] == '/' && sql[i+1] == '*':
			depth++
			i += 2
		case sql[i] == '*' && sql[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i, true
			}
		default:
			i++
		}
	}
	return 0, false
}

// dollarTag returns the dollar-quote tag s starts with ("$$", "$fn$"), as PostgreSQL's lexer
// reads one: a tag's name starts with a letter, '_' or a non-ASCII byte and goes on with those
// and digits.
func dollarTag(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$':
			return s[:i+1], true
		case c == '_' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 1:
		default:
			return "", false
		}
	}
	return "", false
}

var parseResultType = reflect.TypeFor[pg_query.ParseResult]()

// errTreeDecode is the panic that unwinds a decode decodeTree gives up.
var errTreeDecode = &struct{ string }{"pgsql: JSON tree not decoded"}

// maxTreeDepth is below proto.Unmarshal's recursion limit (10,000): a deeper tree is left to it.
const maxTreeDepth = 9000

type treeDecoder struct {
	js, sql   string
	i         int
	depth     int
	zeroInts  int              // Integer messages without a value, not recovered
	zeroBound uint8            // 1: the SQL may hold an array bound of 0, 2: it does not
	list      []unsafe.Pointer // the elements of the lists being read, innermost last
}

func (d *treeDecoder) fail() { panic(errTreeDecode) }

// expect consumes the byte c. pg_query writes no white space between tokens: JSON that has
// some is left to pg_query.Parse.
func (d *treeDecoder) expect(c byte) {
	if d.i >= len(d.js) || d.js[d.i] != c {
		d.fail()
	}
	d.i++
}

// peek returns the next byte, or 0 at the end.
func (d *treeDecoder) peek() byte {
	if d.i >= len(d.js) {
		return 0
	}
	return d.js[d.i]
}

// key reads an object key and its colon. pg_query's keys have no escapes: a key with one (or
// a quote) is unknown to every message.
func (d *treeDecoder) key() string {
	d.expect('"')
	n := strings.IndexByte(d.js[d.i:], '"')
	if n < 0 {
		d.fail()
	}
	k := d.js[d.i : d.i+n]
	d.i += n + 1
	d.expect(':')
	return k
}

// str reads a string value (null is the empty string, as pg_query's protobuf has it), copied
// out of the JSON.
func (d *treeDecoder) str() string {
	s, copied := d.strIn()
	if !copied {
		s = strings.Clone(s)
	}
	return s
}

// strIn reads a string value: a part of the JSON when it has no escapes, else a copy.
func (d *treeDecoder) strIn() (s string, copied bool) {
	if d.peek() == 'n' {
		d.literal("null")
		return "", false
	}
	d.expect('"')
	n := strings.IndexByte(d.js[d.i:], '"')
	if n < 0 {
		d.fail()
	}
	s = d.js[d.i : d.i+n]
	if strings.IndexByte(s, '\\') >= 0 {
		return d.escaped(d.i), true
	}
	if !utf8.ValidString(s) {
		d.fail()
	}
	d.i += n + 1
	return s, false
}

// escaped reads the rest of a string that has an escape, from start.
func (d *treeDecoder) escaped(start int) string {
	b := []byte(d.js[start:d.i])
	for d.i < len(d.js) {
		c := d.js[d.i]
		switch c {
		case '"':
			d.i++
			if !utf8.Valid(b) {
				d.fail()
			}
			return string(b)
		case '\\':
			if d.i+1 >= len(d.js) {
				d.fail()
			}
			e := d.js[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				if d.i+4 > len(d.js) {
					d.fail()
				}
				r, err := strconv.ParseUint(d.js[d.i:d.i+4], 16, 16)
				if err != nil || r == 0 || r >= 0xD800 && r < 0xE000 {
					d.fail()
				}
				b = utf8.AppendRune(b, rune(r))
				d.i += 4
			default:
				d.fail()
			}
		default:
			b = append(b, c)
			d.i++
		}
	}
	d.fail()
	return ""
}

func (d *treeDecoder) literal(s string) {
	if !strings.HasPrefix(d.js[d.i:], s) {
		d.fail()
	}
	d.i += len(s)
}

// number returns the text of a number.
func (d *treeDecoder) number() string {
	start := d.i
	for d.i < len(d.js) {
		c := d.js[d.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	if d.i == start {
		d.fail()
	}
	return d.js[start:d.i]
}

// integer reads an integer of bits bits, signed or not.
func (d *treeDecoder) integer(signed bool, bits int) uint64 {
	s := d.number()
	if signed {
		v, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			d.fail()
		}
		return uint64(v)
	}
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		d.fail()
	}
	return v
}

// message reads the JSON object of the message m into p.
func (d *treeDecoder) message(m *jsonMessage, p unsafe.Pointer) {
	if d.depth++; d.depth > maxTreeDepth {
		d.fail()
	}
	d.expect('{')
	next := 0
	if d.peek() == '}' {
		d.i++
	} else {
		for {
			k := d.key()
			if f := m.field(k, &next); f != nil {
				d.field(f, unsafe.Add(p, f.off))
			} else if c := m.cases[k]; c != nil {
				v := d.newMessage(c.plan())
				c.set(p, v)
			} else {
				d.fail()
			}
			switch d.peek() {
			case ',':
				d.i++
				continue
			case '}':
				d.i++
			default:
				d.fail()
			}
			break
		}
	}
	switch m.special {
	case specialInteger:
		if (*pg_query.Integer)(p).Ival == 0 {
			d.zeroInts++
		}
	case specialAConst:
		// A constant whose value pg_query's JSON drops is 0 or negative: its text says which.
		c := (*pg_query.A_Const)(p)
		if iv, ok := c.Val.(*pg_query.A_Const_Ival); ok && iv.Ival != nil && iv.Ival.Ival == 0 {
			if v, ok := constantValue(d.sql, int(c.Location)); ok {
				iv.Ival.Ival = v
				d.zeroInts--
			}
		}
	case specialTypeName:
		// An array bound is -1 ([] or ARRAY), or the number written (pg_query's JSON drops 0
		// too): -1 unless the SQL may hold a bound of 0.
		for _, b := range (*pg_query.TypeName)(p).ArrayBounds {
			if iv := b.GetInteger(); iv != nil && iv.Ival == 0 {
				if d.zeroBound == 0 {
					d.zeroBound = 2
					if mayHaveZeroBound(d.sql) {
						d.zeroBound = 1
					}
				}
				if d.zeroBound == 2 {
					iv.Ival = -1
					d.zeroInts--
				}
			}
		}
	}
	d.depth--
}

// newMessage allocates a message of m and reads it.
func (d *treeDecoder) newMessage(m *jsonMessage) unsafe.Pointer {
	v := reflect.New(m.typ).UnsafePointer()
	d.message(m, v)
	return v
}

// field reads the value of f into its place p.
func (d *treeDecoder) field(f *jsonField, p unsafe.Pointer) {
	switch f.kind {
	case jsonString:
		*(*string)(p) = d.str()
	case jsonBool:
		switch d.peek() {
		case 't':
			d.literal("true")
			*(*bool)(p) = true
		default:
			d.literal("false")
			*(*bool)(p) = false
		}
	case jsonInt32:
		*(*int32)(p) = int32(d.integer(true, 32))
	case jsonUint32:
		*(*uint32)(p) = uint32(d.integer(false, 32))
	case jsonInt64:
		*(*int64)(p) = int64(d.integer(true, 64))
	case jsonUint64:
		*(*uint64)(p) = d.integer(false, 64)
	case jsonFloat64:
		v, err := strconv.ParseFloat(d.number(), 64)
		if err != nil {
			d.fail()
		}
		*(*float64)(p) = v
	case jsonEnum:
		name, _ := d.strIn()
		v, ok := f.enum[name]
		if !ok {
			d.fail()
		}
		*(*int32)(p) = v
	case jsonMessageField:
		*(*unsafe.Pointer)(p) = d.newMessage(f.plan())
	case jsonMessageList:
		m := f.plan()
		d.expect('[')
		base := len(d.list)
		if d.peek() == ']' {
			d.i++
		} else {
			for {
				v := d.newMessage(m)
				d.list = append(d.list, v)
				if d.peek() == ',' {
					d.i++
					continue
				}
				d.expect(']')
				break
			}
		}
		if n := len(d.list) - base; n > 0 {
			s := make([]unsafe.Pointer, n)
			copy(s, d.list[base:])
			clear(d.list[base:])
			d.list = d.list[:base]
			*(*[]unsafe.Pointer)(p) = s
		}
	default:
		d.fail()
	}
}

// jsonMessage is how to read one message type: its fields by JSON name, in declaration order
// (the order pg_query writes them in), and its oneof's cases.
type jsonMessage struct {
	typ     reflect.Type
	fields  []jsonField
	cases   map[string]*jsonOneofCase
	special uint8
}

const (
	specialInteger = 1 + iota
	specialAConst
	specialTypeName
)

// field returns the field called k, looking first where the previous one was found.
func (m *jsonMessage) field(k string, next *int) *jsonField {
	n := len(m.fields)
	for j := 0; j < n; j++ {
		i := *next + j
		if i >= n {
			i -= n
		}
		if m.fields[i].name == k {
			*next = i + 1
			return &m.fields[i]
		}
	}
	return nil
}

type jsonKind uint8

const (
	jsonUnsupported jsonKind = iota
	jsonString
	jsonBool
	jsonInt32
	jsonUint32
	jsonInt64
	jsonUint64
	jsonFloat64
	jsonEnum
	jsonMessageField
	jsonMessageList
)

// jsonField is how to read one field.
type jsonField struct {
	name string
	off  uintptr
	kind jsonKind
	enum map[string]int32 // jsonEnum
	elem reflect.Type     // jsonMessageField, jsonMessageList: the message type
	msg  atomic.Pointer[jsonMessage]
}

func (f *jsonField) plan() *jsonMessage { return planOnce(&f.msg, f.elem) }

// planOnce returns the plan kept in p, making it for t the first time (two goroutines may both
// make it: plans of one type are equal).
func planOnce(p *atomic.Pointer[jsonMessage], t reflect.Type) *jsonMessage {
	if m := p.Load(); m != nil {
		return m
	}
	m := messagePlan(t)
	p.Store(m)
	return m
}

// jsonOneofCase is one case of a message's oneof (jsontree_gen.go): the case's message type,
// and set, which sets the case of the message at m to the case's message at v.
type jsonOneofCase struct {
	typ reflect.Type
	set func(m, v unsafe.Pointer)
	msg atomic.Pointer[jsonMessage]
}

func (c *jsonOneofCase) plan() *jsonMessage { return planOnce(&c.msg, c.typ) }

var (
	plansMu sync.Mutex
	plans   = map[reflect.Type]*jsonMessage{}
)

// messagePlan returns how to read the message type t (a pg_query struct), from its fields'
// protobuf tags. A field of a kind it does not know is read by failing the decode.
func messagePlan(t reflect.Type) *jsonMessage {
	plansMu.Lock()
	defer plansMu.Unlock()
	if m := plans[t]; m != nil {
		return m
	}
	m := &jsonMessage{typ: t, cases: jsonOneofs[t]}
	switch t {
	case reflect.TypeFor[pg_query.Integer]():
		m.special = specialInteger
	case reflect.TypeFor[pg_query.A_Const]():
		m.special = specialAConst
	case reflect.TypeFor[pg_query.TypeName]():
		m.special = specialTypeName
	}
	var fields []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		// Not the message's state, nor its oneof, which cases covers.
		if sf := t.Field(i); sf.IsExported() && sf.Tag.Get("protobuf") != "" {
			fields = append(fields, sf)
		}
	}
	m.fields = make([]jsonField, len(fields))
	for i, sf := range fields {
		f := &m.fields[i]
		f.name, f.off = tagName(sf.Tag.Get("protobuf")), sf.Offset
		ft := sf.Type
		switch ft.Kind() {
		case reflect.String:
			f.kind = jsonString
		case reflect.Bool:
			f.kind = jsonBool
		case reflect.Int32:
			if e, ok := jsonEnums[ft]; ok {
				f.kind, f.enum = jsonEnum, e
			} else if ft == reflect.TypeFor[int32]() {
				f.kind = jsonInt32
			}
		case reflect.Uint32:
			f.kind = jsonUint32
		case reflect.Int64:
			f.kind = jsonInt64
		case reflect.Uint64:
			f.kind = jsonUint64
		case reflect.Float64:
			f.kind = jsonFloat64
		case reflect.Pointer:
			if ft.Elem().Kind() == reflect.Struct {
				f.kind, f.elem = jsonMessageField, ft.Elem()
			}
		case reflect.Slice:
			if e := ft.Elem(); e.Kind() == reflect.Pointer && e.Elem().Kind() == reflect.Struct {
				f.kind, f.elem = jsonMessageList, e.Elem()
			}
		}
	}
	plans[t] = m
	return m
}

// tagName returns the JSON name of a field from its protobuf tag: json= when the tag has one,
// else name=.
func tagName(tag string) string {
	name := ""
	for part := range strings.SplitSeq(tag, ",") {
		if v, ok := strings.CutPrefix(part, "json="); ok {
			return v
		}
		if v, ok := strings.CutPrefix(part, "name="); ok {
			name = v
		}
	}
	return name
}
