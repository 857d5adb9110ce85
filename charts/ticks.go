package charts

import (
	"math"
	"strconv"
	"time"

	"github.com/tablewise/tablewise/core/format"
	"gonum.org/v1/plot"
)

// numberTicks places about six ticks at round numbers (1, 2, 2.5 or 5
// times a power of ten), covering the range, and labels them with
// thousands separators and as many decimals as the spacing needs. Used with
// Axis.AutoRescale, the axis ends on a tick.
type numberTicks struct{}

// Ticks implements plot.Ticker.
func (numberTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep(lo, hi, false)
	dec := decimalsFor(step)
	return stepTicks(lo, hi, step, func(v float64) string { return format.Number(v, dec) })
}

// integerTicks is numberTicks for whole numbers: years (written without
// separators) and counts (with them).
type integerTicks struct{ separators bool }

// Ticks implements plot.Ticker.
func (t integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep(lo, hi, true)
	return stepTicks(lo, hi, step, func(v float64) string {
		if t.separators {
			return format.Number(v, 0)
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	})
}

// niceStep is the finest round tick spacing (1, 2, 2.5 or 5 times a power
// of ten) that covers [lo, hi] in at most seven intervals; integer steps
// are whole numbers.
func niceStep(lo, hi float64, integer bool) float64 {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		span = math.Max(math.Abs(hi), 1)
		lo, hi = hi-span/2, hi+span/2
	}
	e := math.Pow10(int(math.Floor(math.Log10(span / 10))))
	for range 6 {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * e
			if integer && (step < 1 || step != math.Trunc(step)) {
				continue
			}
			n := math.Ceil(hi/step-1e-9) - math.Floor(lo/step+1e-9)
			if n <= 7 {
				return step
			}
		}
		e *= 10
	}
	return e
}

// stepTicks lists the multiples of step from just below lo to just above
// hi.
func stepTicks(lo, hi, step float64, label func(float64) string) []plot.Tick {
	if !(step > 0) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return nil
	}
	first := math.Floor(lo/step+1e-9) * step
	var ts []plot.Tick
	for i := 0; i < 200; i++ {
		v := first + float64(i)*step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: label(v)})
		if v >= hi-step*1e-9 {
			break
		}
	}
	return ts
}

// categoryTicks labels category positions 0…n-1, every nth one when there
// are more than fit, shifted left by shift (for rotated labels).
type categoryTicks struct {
	labels []string
	every  int
	shift  float64
}

// Ticks implements plot.Ticker.
func (t categoryTicks) Ticks(lo, hi float64) []plot.Tick {
	every := max(1, t.every)
	ts := make([]plot.Tick, 0, len(t.labels)/every+1)
	for i, l := range t.labels {
		if i%every == 0 {
			ts = append(ts, plot.Tick{Value: float64(i) - t.shift, Label: l})
		}
	}
	return ts
}

// timeTicks places ticks on calendar boundaries (whole years, quarters,
// months, days, hours…) for an axis of Unix seconds and labels them as
// dates.
type timeTicks struct{ most int }

// timeStep is one candidate tick spacing.
type timeStep struct {
	months int           // calendar months, when non-zero
	d      time.Duration // otherwise a fixed duration
	layout string
}

var timeSteps = []timeStep{
	{d: time.Second, layout: "15:04:05"},
	{d: 5 * time.Second, layout: "15:04:05"},
	{d: 15 * time.Second, layout: "15:04:05"},
	{d: 30 * time.Second, layout: "15:04:05"},
	{d: time.Minute, layout: "15:04"},
	{d: 5 * time.Minute, layout: "15:04"},
	{d: 15 * time.Minute, layout: "15:04"},
	{d: 30 * time.Minute, layout: "15:04"},
	{d: time.Hour, layout: "Jan 2 15:04"},
	{d: 3 * time.Hour, layout: "Jan 2 15:04"},
	{d: 6 * time.Hour, layout: "Jan 2 15:04"},
	{d: 12 * time.Hour, layout: "Jan 2 15:04"},
	{d: 24 * time.Hour, layout: "2006-01-02"},
	{d: 2 * 24 * time.Hour, layout: "2006-01-02"},
	{d: 7 * 24 * time.Hour, layout: "2006-01-02"},
	{d: 14 * 24 * time.Hour, layout: "2006-01-02"},
	{months: 1, layout: "Jan 2006"},
	{months: 2, layout: "Jan 2006"},
	{months: 3, layout: "Jan 2006"},
	{months: 6, layout: "Jan 2006"},
	{months: 12, layout: "2006"},
	{months: 24, layout: "2006"},
	{months: 60, layout: "2006"},
	{months: 120, layout: "2006"},
	{months: 240, layout: "2006"},
	{months: 600, layout: "2006"},
	{months: 1200, layout: "2006"},
}

// Ticks implements plot.Ticker.
func (t timeTicks) Ticks(lo, hi float64) []plot.Tick {
	most := t.most
	if most <= 0 {
		most = 8
	}
	step, ok := pickTimeStep(lo, hi, most)
	if !ok {
		return numberTicks{}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	for _, tm := range timeMarks(lo, hi, step) {
		ts = append(ts, plot.Tick{Value: unixSeconds(tm), Label: tm.Format(step.layout)})
	}
	return ts
}

// pickTimeStep is the finest calendar step that puts at most most ticks
// between lo and hi.
func pickTimeStep(lo, hi float64, most int) (timeStep, bool) {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) || math.Abs(lo) > 1e13 || math.Abs(hi) > 1e13 {
		return timeStep{}, false
	}
	for _, s := range timeSteps {
		var secs float64
		if s.months > 0 {
			secs = float64(s.months) * 30.44 * 86400
		} else {
			secs = s.d.Seconds()
		}
		if span/secs <= float64(most) {
			return s, true
		}
	}
	return timeSteps[len(timeSteps)-1], true
}

// timeMarks lists the step boundaries between lo and hi.
func timeMarks(lo, hi float64, s timeStep) []time.Time {
	start := time.Unix(int64(math.Floor(lo)), 0).UTC()
	end := time.Unix(int64(math.Ceil(hi)), 0).UTC()
	var t time.Time
	if s.months > 0 {
		months := start.Year()*12 + int(start.Month()) - 1
		m := months / s.months * s.months
		if monthStart(m).Before(start) {
			m += s.months
		}
		var out []time.Time
		for ; ; m += s.months {
			t = monthStart(m)
			if t.After(end) || len(out) > 1000 {
				return out
			}
			out = append(out, t)
		}
	}
	t = start.Truncate(s.d)
	if t.Before(start) {
		t = t.Add(s.d)
	}
	var out []time.Time
	for ; !t.After(end) && len(out) <= 1000; t = t.Add(s.d) {
		out = append(out, t)
	}
	return out
}

// monthStart is the first instant of month m counted from year 0.
func monthStart(m int) time.Time {
	return time.Date(m/12, time.Month(m%12+1), 1, 0, 0, 0, 0, time.UTC)
}
