package engine

// Int64 reads a count or an id from a row of any engine: an int64 as it
// is, a float64 truncated, anything else (NULL included) as 0.
func Int64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}
