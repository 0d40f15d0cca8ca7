package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgercheck/ledgercheck/internal/didyoumean"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// flagError is every command's flag error (the root's FlagErrorFunc, which cobra hands down):
// an unknown flag gets the nearest flag of the command as a suggestion, and a value that does
// not parse is said in the tool's words ([wantValue]) rather than strconv's. Both are input
// errors (exit 2).
func flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() == "":
		if c := didyoumean.Closest(notExist.GetSpecifiedName(), flagNames(cmd)); c != "" {
			err = fmt.Errorf("unknown flag --%s (did you mean --%s?)", notExist.GetSpecifiedName(), c)
		}
	case errors.As(err, &invalid):
		err = fault.Wrapf(err, "invalid value %q for --%s: %s", invalid.GetValue(), invalid.GetFlag().Name, wantValue(invalid.GetFlag(), invalid.Unwrap()))
	}
	return fault.Input(err)
}

// flagNames are the names of the flags cmd takes (its own and those it inherits), hidden
// deprecated aliases aside.
func flagNames(cmd *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return names
}

// quotedValue is the "VALUE": prefix the flag types of this package put before their message.
var quotedValue = regexp.MustCompile(`^"(?:[^"\\]|\\.)*": `)

// wantValue says what the flag f wants instead of the value it was given: for pflag's own types (whose cause is
// a strconv or time error), the kind of value, with the range of a dimension or a version; for
// this tool's flag types, their own message.
func wantValue(f *pflag.Flag, cause error) string {
	switch t := f.Value.Type(); {
	case t == "int" && strings.HasSuffix(f.Name, "dim"):
		return fmt.Sprintf("want a whole number of dimensions between 1 and %d", scratch.MaxDim)
	case t == "int" && f.Name == "pg":
		return "want a PostgreSQL major version, " + strings.TrimPrefix(scratch.Supported(0).Error(), "ledgercheck runs PostgreSQL ")
	case t == "int":
		return "want a whole number"
	case t == "duration":
		return "want a duration such as 90s, 2m or 1h30m"
	case t == "bool":
		return "want true or false"
	}
	return quotedValue.ReplaceAllString(cause.Error(), "")
}

// unknownCommand is cobra's error for an unknown subcommand (its own suggestions are off).
var unknownCommand = regexp.MustCompile(`^unknown command "(.*)" for "(.*)"$`)

// commandError gives cobra's unknown-command error the nearest subcommand as a suggestion, in
// the same words as an unknown flag's; other errors are returned as they are.
func commandError(root *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	m := unknownCommand.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	parent, _, ferr := root.Find(strings.Fields(m[2])[1:])
	if ferr != nil {
		return err
	}
	var names []string
	for _, c := range parent.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return fault.Input(fmt.Errorf("%w%s", err, didyoumean.Hint(m[1], names)))
}

// argsInOwnWords gives every command of the tree under c that has no subcommands an argument
// check that says what is wrong in ledgercheck's words, with the command's usage line, instead
// of cobra's ("accepts 1 arg(s), received 0"). A command with subcommands keeps cobra's check,
// whose unknown-command error [commandError] completes with a suggestion.
func argsInOwnWords(c *cobra.Command) {
	for _, sub := range c.Commands() {
		argsInOwnWords(sub)
	}
	check := c.Args
	if check == nil || c.HasSubCommands() {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if check(cmd, args) == nil {
			return nil
		}
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = strconv.Quote(a)
		}
		list := strings.Join(quoted, ", ")
		what := "wrong number of arguments (" + list + ")"
		switch {
		case len(args) == 0:
			what = "missing argument"
		case check(cmd, args[:1]) != nil && check(cmd, nil) == nil:
			what = "it takes no argument, given " + list
		case check(cmd, args[:len(args)-1]) == nil:
			what = "too many arguments (" + list + ")"
		}
		return fault.Input(fmt.Errorf("%s: %s; usage: %s", strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), what, cmd.UseLine()))
	}
}
