package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestCronSchedule(t *testing.T) {
	p := field.NewPath("spec", "etcd", "managed", "backup", "schedule")
	cases := map[string]struct {
		reason   string
		schedule string
		want     []string
	}{
		"FiveFields": {reason: "The default, every six hours.", schedule: "0 */6 * * *"},
		"Macro":      {reason: "The macros the CronJob controller accepts.", schedule: "@daily"},
		"Names":      {reason: "Month and weekday names.", schedule: "30 2 * JAN-DEC MON-FRI"},
		"SixFields": {
			reason:   "Seconds are not part of a CronJob's schedule.",
			schedule: "0 0 */6 * * *",
			want:     []string{`spec.etcd.managed.backup.schedule: Invalid value: "0 0 */6 * * *": must be a cron schedule of five fields (minute hour day-of-month month day-of-week), for example "0 */6 * * *", or a macro such as @daily: expected exactly 5 fields, found 6: [0 0 */6 * * *]`},
		},
		"OutOfRange": {
			reason:   "Hour 24 does not exist.",
			schedule: "0 24 * * *",
			want:     []string{`spec.etcd.managed.backup.schedule: Invalid value: "0 24 * * *": must be a cron schedule of five fields (minute hour day-of-month month day-of-week), for example "0 */6 * * *", or a macro such as @daily: end of range (24) above maximum (23): 24`},
		},
		"TimeZone": {
			reason:   "The API server refuses a zone in the schedule; the CronJob's zone is UTC.",
			schedule: "CRON_TZ=Europe/Berlin 0 3 * * *",
			want:     []string{`spec.etcd.managed.backup.schedule: Invalid value: "CRON_TZ=Europe/Berlin 0 3 * * *": must not carry a time zone (TZ= or CRON_TZ=): the schedule is in UTC`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, messages(CronSchedule(p, tc.schedule))); diff != "" {
				t.Errorf("%s\nCronSchedule(%q): -want, +got:\n%s", tc.reason, tc.schedule, diff)
			}
		})
	}
}
