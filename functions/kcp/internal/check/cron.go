package check

import (
	"strings"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxCronJobName is the longest name the API server accepts for a CronJob: its Jobs are
// named <cronjob>-<minutes since the epoch> and must stay valid label values.
const MaxCronJobName = 52

// CronSchedule refuses a schedule the API server would refuse on a CronJob: what the cron
// parser Kubernetes uses rejects (five fields, or a @ macro), and a time zone written into
// the schedule.
func CronSchedule(p *field.Path, schedule string) field.ErrorList {
	if strings.Contains(schedule, "TZ=") {
		return field.ErrorList{field.Invalid(p, schedule, "must not carry a time zone (TZ= or CRON_TZ=): the schedule is in UTC")}
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		return field.ErrorList{field.Invalid(p, schedule, "must be a cron schedule of five fields (minute hour day-of-month month day-of-week), for example \"0 */6 * * *\", or a macro such as @daily: "+err.Error())}
	}
	return nil
}

// MaxJobName is the longest name a Job may have for its pods to be labelled with it
// (batch.kubernetes.io/job-name, a label value of at most 63 characters).
const MaxJobName = 63
