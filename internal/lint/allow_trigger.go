package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// TriggerPin is what a reviewer accepted of a trigger the file attaches to a table it did not
// create: a lint.allow entry that lets the file create a trigger pins it, so that the same name
// reused for another trigger (a BEFORE trigger that discards every insert, say) needs a new
// review, as a changed allowlist entry does.
type TriggerPin struct {
	// Timing is before, after or instead of.
	Timing string `yaml:"timing"`
	// Events are insert, update (or "update of a, b"), delete and truncate.
	Events []string `yaml:"events"`
	// Level is row or statement.
	Level string `yaml:"level"`
	// Function is the trigger function, schema-qualified, with the arguments the trigger passes
	// it: public.f().
	Function string `yaml:"function"`
	// When is set when the reviewed trigger has a WHEN condition.
	When bool `yaml:"when"`
}

// validate checks a pin of the allow entry for object (nil: none).
func (p *TriggerPin) validate(object string) error {
	if p == nil {
		return nil
	}
	if !strings.HasPrefix(object, "trigger ") {
		return fmt.Errorf("lint configuration: allow entry for %q: trigger: pins a trigger, and %q is not one", object, object)
	}
	switch {
	case p.Timing != "before" && p.Timing != "after" && p.Timing != "instead of":
		return fmt.Errorf("lint configuration: allow entry for %q: trigger.timing %q: want before, after or instead of", object, p.Timing)
	case p.Level != "row" && p.Level != "statement":
		return fmt.Errorf("lint configuration: allow entry for %q: trigger.level %q: want row or statement", object, p.Level)
	case len(p.Events) == 0:
		return fmt.Errorf("lint configuration: allow entry for %q: trigger.events: want insert, update, delete or truncate", object)
	case !strings.Contains(p.Function, "."):
		return fmt.Errorf("lint configuration: allow entry for %q: trigger.function %q: want the schema-qualified function with its arguments, e.g. public.f()", object, p.Function)
	}
	return nil
}

// pinOf is the pin of trigger t, as an entry writes it.
func pinOf(t *pgsql.Trigger) TriggerPin {
	return TriggerPin{Timing: t.Timing, Events: t.Events, Level: t.Level, Function: t.Function, When: t.When}
}

// String writes the pin as a lint.allow entry's trigger: value.
func (p TriggerPin) String() string {
	s := fmt.Sprintf("{timing: %s, events: [%s], level: %s, function: %s", p.Timing, strings.Join(p.Events, ", "), p.Level, p.Function)
	if p.When {
		s += ", when: true"
	}
	return s + "}"
}

// same reports whether the pin is trigger t.
func (p TriggerPin) same(t *pgsql.Trigger) bool {
	q := pinOf(t)
	return strings.EqualFold(p.Timing, q.Timing) && strings.EqualFold(p.Level, q.Level) && p.When == q.When &&
		strings.EqualFold(p.Function, q.Function) && slices.EqualFunc(p.Events, q.Events, strings.EqualFold)
}

// triggerReview says why the entries that let the file create the trigger obj do not allow t,
// or "" when one pins t.
func (c Config) triggerReview(obj string, t *pgsql.Trigger) string {
	var pinned []TriggerPin
	for _, a := range c.Allow {
		if a.Object != obj || !slices.Contains(a.Actions, "create") {
			continue
		}
		if a.Trigger == nil {
			continue
		}
		if a.Trigger.same(t) {
			return ""
		}
		pinned = append(pinned, *a.Trigger)
	}
	if len(pinned) == 0 {
		return "its lint.allow entry pins no definition, so it cannot tell the reviewed trigger from another of the same name; review this one and add trigger: " + pinOf(t).String() + " to the entry"
	}
	return "its lint.allow entry was reviewed for trigger: " + pinned[0].String() + ", and this one is " + pinOf(t).String() + "; review it again and update the entry"
}
