package check

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCronInterval(t *testing.T) {
	type want struct {
		gap time.Duration
		err bool
	}
	day := 24 * time.Hour
	cases := map[string]struct {
		reason   string
		schedule string
		want     want
	}{
		"EveryMinute":      {reason: "Five stars: every minute.", schedule: "* * * * *", want: want{gap: time.Minute}},
		"EveryFiveMinutes": {reason: "A step in the minutes.", schedule: "*/5 * * * *", want: want{gap: 5 * time.Minute}},
		"Default":          {reason: "The package's default, every six hours.", schedule: "0 */6 * * *", want: want{gap: 6 * time.Hour}},
		"HalfPast":         {reason: "Production's second cluster, at half past.", schedule: "30 */6 * * *", want: want{gap: 6 * time.Hour}},
		"Hourly":           {reason: "The @hourly macro.", schedule: "@hourly", want: want{gap: time.Hour}},
		"Daily":            {reason: "Once a day.", schedule: "0 3 * * *", want: want{gap: day}},
		"Weekly":           {reason: "Once a week: the days between count.", schedule: "0 3 * * 0", want: want{gap: 7 * day}},
		"Monthly":          {reason: "The shortest month between two firsts is February's 28 days.", schedule: "0 0 1 * *", want: want{gap: 28 * day}},
		"Yearly":           {reason: "Once a year: 365 days.", schedule: "@yearly", want: want{gap: 365 * day}},
		"TwoMinutesAnHour": {reason: "Two runs a minute apart, once an hour: the minute counts.", schedule: "0,1 * * * *", want: want{gap: time.Minute}},
		"OnceADayBeforeMidnight": {
			reason:   "One run a day, at 23:59: a day from one to the next.",
			schedule: "59 23 * * *", want: want{gap: day},
		},
		"LastAndFirstOfTheDay": {
			reason:   "23:59 and 00:00 of the next day.",
			schedule: "0,59 0,23 * * *", want: want{gap: time.Minute},
		},
		"LeapDay": {
			reason:   "Every minute, on the 29th of February only: still every minute while it runs.",
			schedule: "* * 29 2 *", want: want{gap: time.Minute},
		},
		"DayOfMonthOrWeekday": {
			reason:   "With both day fields set, either matches (cron's rule): the 1st and every Monday can be consecutive days.",
			schedule: "0 0 1 * 1", want: want{gap: day},
		},
		"Every":   {reason: "robfig's @every, which the CronJob controller accepts.", schedule: "@every 90s", want: want{gap: 90 * time.Second}},
		"Never":   {reason: "The 30th of February never comes.", schedule: "0 0 30 2 *", want: want{gap: Never}},
		"Invalid": {reason: "Not a schedule.", schedule: "every minute", want: want{err: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			gap, err := CronInterval(tc.schedule)
			if diff := cmp.Diff(tc.want, want{gap: gap, err: err != nil}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nCronInterval(%q): -want, +got (err %v):\n%s", tc.reason, tc.schedule, err, diff)
			}
		})
	}
}
