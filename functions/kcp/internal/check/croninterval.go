package check

import (
	"fmt"
	"math"
	"time"

	"github.com/robfig/cron/v3"
)

// Never is CronInterval's answer for a schedule that never runs twice.
const Never = time.Duration(math.MaxInt64)

// cronStar is robfig/cron's mark of a day field written "*" or "?": with it, a day must match
// both day fields, without it either.
const cronStar = 1 << 63

// cronCycleDays is 28 years from 2001: every weekday a year can start on, leap or not, so
// every pattern of matching days a schedule has occurs in it.
const cronCycleDays = 28*365 + 7

// CronInterval returns the shortest time between two runs of a cron schedule, as CronJobs
// read it (robfig/cron's standard parser, in UTC): "*/5 * * * *" 5m, "0 */6 * * *" 6h,
// "@every 90s" 1m30s.
func CronInterval(schedule string) (time.Duration, error) {
	s, err := cron.ParseStandard(schedule)
	if err != nil {
		return 0, err
	}
	switch s := s.(type) {
	case cron.ConstantDelaySchedule:
		return s.Delay, nil
	case *cron.SpecSchedule:
		return specInterval(s), nil
	}
	return 0, fmt.Errorf("schedule %q parses to an unknown kind of schedule %T", schedule, s)
}

// specInterval is the shortest gap of a five-field schedule: between two runs of one day
// (every matching day runs at the same minutes), or from the last run of a matching day to
// the first of the next one.
func specInterval(s *cron.SpecSchedule) time.Duration {
	var minutes []int // of the day
	for h := range 24 {
		for m := range 60 {
			if s.Hour&(1<<h) != 0 && s.Minute&(1<<m) != 0 {
				minutes = append(minutes, h*60+m)
			}
		}
	}
	if len(minutes) == 0 {
		return Never
	}
	gap := Never
	for i := 1; i < len(minutes); i++ {
		gap = min(gap, time.Duration(minutes[i]-minutes[i-1])*time.Minute)
	}
	first, last := minutes[0], minutes[len(minutes)-1]
	start := time.Date(2001, time.January, 1, 0, 0, 0, 0, time.UTC)
	previous := -1
	for d := range cronCycleDays {
		if !cronDay(s, start.AddDate(0, 0, d)) {
			continue
		}
		if previous >= 0 {
			gap = min(gap, time.Duration((d-previous)*24*60-last+first)*time.Minute)
		}
		previous = d
	}
	return gap
}

// cronDay reports whether the schedule runs on t's day, as robfig/cron decides it.
func cronDay(s *cron.SpecSchedule, t time.Time) bool {
	if s.Month&(1<<uint(t.Month())) == 0 {
		return false
	}
	dom := s.Dom&(1<<uint(t.Day())) != 0
	dow := s.Dow&(1<<uint(t.Weekday())) != 0
	if s.Dom&cronStar != 0 || s.Dow&cronStar != 0 {
		return dom && dow
	}
	return dom || dow
}
