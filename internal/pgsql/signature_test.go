package pgsql

import (
	"reflect"
	"testing"
)

// ParseFunctionRef keeps what it parsed: a second call gives the same object or error, and a
// caller that changes the arguments it got does not change what the next one gets.
func TestParseFunctionRefTwice(t *testing.T) {
	for _, ref := range []string{"public.f(text, integer)", "public.g", "h()", "not a ref("} {
		o1, err1 := ParseFunctionRef(ref)
		if len(o1.Args) > 0 {
			o1.Args[0] = "changed"
		}
		o2, err2 := ParseFunctionRef(ref)
		o3, err3 := parseFunctionRef(ref).result()
		if !reflect.DeepEqual(o2, o3) || (err2 == nil) != (err3 == nil) || (err1 == nil) != (err3 == nil) {
			t.Errorf("%q: second call %+v, %v; want %+v, %v", ref, o2, err2, o3, err3)
		}
	}
	if o, _ := ParseFunctionRef("public.f(text, integer)"); !reflect.DeepEqual(o.Args, []string{"text", "int4"}) || !o.HasArgs {
		t.Errorf("public.f(text, integer): %+v", o)
	}
}
