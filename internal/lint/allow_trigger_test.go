package lint

import (
	"strings"
	"testing"
)

// A trigger pin of lint.allow is checked when the configuration loads: on a trigger only, with
// a timing, events, a level and a schema-qualified function, each error one line naming the entry.
func TestTriggerPinIsValidated(t *testing.T) {
	entry := "allow:\n  - object: %s\n    actions: [create]\n    reason: reviewed\n    trigger: %s\n"
	for _, tc := range []struct{ object, pin, want string }{
		{"trigger trg_x on public.agent_memories", "{timing: after, events: [insert], level: row, function: public.f()}", ""},
		{"table public.agent_memories", "{timing: after, events: [insert], level: row, function: public.f()}", "pins a trigger"},
		{"trigger trg_x on public.agent_memories", "{timing: whenever, events: [insert], level: row, function: public.f()}", "trigger.timing"},
		{"trigger trg_x on public.agent_memories", "{timing: after, events: [], level: row, function: public.f()}", "trigger.events"},
		{"trigger trg_x on public.agent_memories", "{timing: after, events: [insert], level: each, function: public.f()}", "trigger.level"},
		{"trigger trg_x on public.agent_memories", "{timing: after, events: [insert], level: row, function: f}", "trigger.function"},
	} {
		_, err := LoadConfig(strings.NewReader(strings.Replace(strings.Replace(entry, "%s", tc.object, 1), "%s", tc.pin, 1)))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s: %v", tc.object, tc.pin, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s %s: %v, want one line with %q", tc.object, tc.pin, err, tc.want)
		}
	}
}
