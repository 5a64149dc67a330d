package main

import (
	"slices"
	"time"
)

// ackedAt tells when post id was acknowledged, from the load's start.
func ackedAt(led *ledger, id int64) string {
	if at, ok := led.ackedAt[id]; ok {
		return at.Round(time.Millisecond).String()
	}
	return "never"
}

// checkLive holds each live fan's log to the ledger: every acknowledged
// post of the authors it follows, made after it first connected, received
// exactly once, each author's in order; nothing of another author; nothing
// never acknowledged unless it stands. It returns the delays of the
// acknowledged posts' deliveries, sorted.
func checkLive(w *world, f *findings, fans []*liveFan, msgs map[int64]message) []time.Duration {
	led := w.led
	acked := make(map[int64]string, len(led.posts)) // their keys
	for key, id := range led.posts {
		acked[id] = key
	}
	var delays []time.Duration
	for i, fan := range fans {
		stars := map[int64]bool{}
		for _, s := range w.stars[i] {
			stars[s.id] = true
		}
		log := fan.received()
		seen := map[int64]int{}
		first := map[int64]delivery{}
		last := map[int64]delivery{} // the newest post received of each author
		for _, d := range log {
			seen[d.id]++
			if seen[d.id] > 1 {
				f.duplicates++
				f.fail("%s received post %d live %d times: %s, then %s", fan.u.name, d.id, seen[d.id],
					first[d.id].how(led.start), d.how(led.start))
				continue
			}
			first[d.id] = d
			if !stars[d.author] {
				f.fail("%s received post %d of user %d live, whom it does not follow", fan.u.name, d.id, d.author)
			}
			if _, ok := acked[d.id]; !ok {
				if m, ok := msgs[d.id]; ok && m.stands() {
					f.unackedLiveStanding++
				} else {
					f.unackedLive++
					f.fail("%s received post %d live, which was never acknowledged and does not stand", fan.u.name, d.id)
				}
			} else {
				delays = append(delays, d.delay)
			}
			if l := last[d.author]; d.id < l.id {
				f.fail("%s received post %d of user %d (acknowledged at %s; %s) after its post %d (acknowledged at %s; %s)",
					fan.u.name, d.id, d.author, ackedAt(led, d.id), d.how(led.start), l.id, ackedAt(led, l.id), l.how(led.start))
			} else {
				last[d.author] = d
			}
		}
		owed := w.owedLocked(i, fan.baseline)
		for _, id := range missing(owed, log) {
			key := acked[id]
			f.lost["post "+key] = true
			f.fail("%s never received post %s (%d) live, acknowledged %s into the load (%d resumes)",
				fan.u.name, key, id, led.ackedAt[id].Round(time.Millisecond), fan.resumes)
		}
		if fan.truncated > 0 {
			f.fail("%s's replays were cut short %d times", fan.u.name, fan.truncated)
		}
	}
	slices.Sort(delays)
	return delays
}
