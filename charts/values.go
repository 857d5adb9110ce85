package charts

import "time"

// unixSeconds is the position of t on a time axis.
func unixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}
