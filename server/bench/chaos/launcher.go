package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
)

// launcher lets the test launchers of store/storetest (a replicated Redis
// Cluster whose masters fail over) and store/archive/archivetest (a
// throwaway mariadbd that can be killed and started again) run inside this
// command rather than be written a second time: they take a testing.TB for
// their temporary folders, their cleanups and their failures, and this is
// one. A failure panics with a launchFailure that try turns into an error,
// in whichever goroutine called the launcher; close runs the cleanups.
type launcher struct {
	// TB is nil: the launchers call only the methods below, and a call to
	// any other would panic at once, which the tiny run would show.
	testing.TB

	// keep leaves the folders (the Redis nodes' append-only files) for a
	// look after the run.
	keep bool

	mu       sync.Mutex
	cleanups []func()
	dirs     []string
}

// launchFailure is what a launcher's Fatal panics with.
type launchFailure struct{ msg string }

func (l *launcher) Helper()      {}
func (l *launcher) Name() string { return "chaos" }

func (l *launcher) Fatal(args ...any) { panic(launchFailure{fmt.Sprint(args...)}) }

func (l *launcher) Fatalf(format string, args ...any) {
	panic(launchFailure{fmt.Sprintf(format, args...)})
}

func (l *launcher) Cleanup(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cleanups = append(l.cleanups, f)
}

// TempDir is a new folder, removed by close after the cleanups.
func (l *launcher) TempDir() string {
	dir, err := os.MkdirTemp("", "chaosbench-")
	if err != nil {
		l.Fatal(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dirs = append(l.dirs, dir)
	return dir
}

// close runs the cleanups, the last registered first, as testing does, and
// removes the folders unless told to keep them.
func (l *launcher) close() {
	l.mu.Lock()
	cleanups, dirs := l.cleanups, l.dirs
	l.cleanups, l.dirs = nil, nil
	l.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	for _, d := range dirs {
		if !l.keep {
			os.RemoveAll(d)
		}
	}
}

// try runs f, which may call the launcher's Fatal, and returns that
// failure as an error.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			lf, ok := r.(launchFailure)
			if !ok {
				panic(r)
			}
			err = errors.New(lf.msg)
		}
	}()
	f()
	return nil
}
