package main

import (
	"fmt"
	"strings"

	"microblog/store"
	"microblog/store/redisdb"
)

// safetyConfig is the settings of the safety tools, from the environment.
type safetyConfig struct {
	// Admins are the operators' usernames, lower-case (MICROBLOG_ADMINS,
	// comma-separated): they see the reports, suspend users and remove
	// anyone's post.
	Admins []string
	// MaxBlocks and MaxMutes bound how many users one user may block, and
	// mute (MICROBLOG_MAX_BLOCKS, MICROBLOG_MAX_MUTES).
	MaxBlocks, MaxMutes int
}

// readSafetySettings reads cfg.Safety; a bad value is an error naming its
// variable.
func readSafetySettings(getenv func(string) string, cfg *config) error {
	sc := safetyConfig{MaxBlocks: redisdb.DefaultMaxBlocks, MaxMutes: redisdb.DefaultMaxMutes}
	for _, name := range strings.Split(getenv("MICROBLOG_ADMINS"), ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		_, lower, err := store.NormalizeUsername(name)
		if err != nil {
			return fmt.Errorf("invalid MICROBLOG_ADMINS entry %q: %w", name, err)
		}
		sc.Admins = append(sc.Admins, lower)
	}
	err := readEnvInts(getenv, []envInt{
		{"MICROBLOG_MAX_BLOCKS", &sc.MaxBlocks, 1, 1 << 20},
		{"MICROBLOG_MAX_MUTES", &sc.MaxMutes, 1, 1 << 20},
	})
	if err != nil {
		return err
	}
	cfg.Safety = sc
	return nil
}
