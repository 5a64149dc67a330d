package spawn

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CommandLine is how this run of the harness name (chaos, fanout, …) was
// started, for the reader to repeat it.
func CommandLine(name string) string {
	return strings.Join(append([]string{"go run -C server/bench ./" + name}, os.Args[1:]...), " ")
}

// Flag is a numeric flag's name, with its dash, and its value.
type Flag struct {
	Name  string
	Value float64
}

// Positive says which of flags, the first, is not above zero: "-c must be
// positive, not 0"; nil if all are.
func Positive(flags ...Flag) error {
	for _, f := range flags {
		if f.Value <= 0 {
			return fmt.Errorf("%s must be positive, not %s", f.Name, strconv.FormatFloat(f.Value, 'f', -1, 64))
		}
	}
	return nil
}

// EnvList reads an -env flag, NAME=value pairs separated by commas, into
// the entries of an environment; nil if it is empty.
func EnvList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// GiveUpAfter ends the program prog (status 2, its name in the message)
// once d has passed.
func GiveUpAfter(prog string, d time.Duration) {
	time.AfterFunc(d, func() {
		fmt.Fprintf(os.Stderr, "%s: gave up after %s\n", prog, d)
		os.Exit(2) // the processes it started die with it (Pdeathsig)
	})
}
