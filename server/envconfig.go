package main

import (
	"fmt"
	"strconv"
	"time"
)

// envInt is a whole-number setting read from the environment, kept when unset.
type envInt struct {
	name     string
	dst      *int
	min, max int
}

// readEnvInts reads each setting; a bad value is an error naming it.
func readEnvInts(getenv func(string) string, vars []envInt) error {
	for _, v := range vars {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < v.min || n > v.max {
				return fmt.Errorf("invalid %s %q: want a whole number from %d to %d", v.name, s, v.min, v.max)
			}
			*v.dst = n
		}
	}
	return nil
}

// envDuration is a duration setting read from the environment, kept when unset.
type envDuration struct {
	name string
	dst  *time.Duration
	min  time.Duration
}

// readEnvDurations reads each setting; a bad value is an error naming it.
func readEnvDurations(getenv func(string) string, vars []envDuration) error {
	for _, v := range vars {
		if s := getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d < v.min {
				return fmt.Errorf("invalid %s %q: want a duration of at least %s, such as 5s", v.name, s, v.min)
			}
			*v.dst = d
		}
	}
	return nil
}
