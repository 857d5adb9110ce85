package files

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tablewise/tablewise/core/engine/sqlite"
)

// pqColumn is how one Parquet column becomes a SQLite value.
type pqColumn struct {
	conv  func(v parquet.Value) sqlite.Value
	index int // the leaf column's index in a row
}

// parquet loads a Parquet file with a flat schema: each column becomes a
// column, its type from the file's own (integers, reals, booleans, text,
// dates, timestamps as ISO text, decimals as reals, other bytes as blobs).
func (t *tableLoad) parquet(f *os.File, size int64) (err error) {
	defer func() { // the library panics on some malformed files
		if r := recover(); r != nil {
			err = t.finish(&InputError{File: t.file, Msg: fmt.Sprintf("not a readable Parquet file (%v)", r)})
		}
	}()
	pf, err := parquet.OpenFile(f, size)
	if err != nil {
		return &InputError{File: t.file, Msg: "not a readable Parquet file: " + err.Error()}
	}
	fields := pf.Schema().Fields()
	convs := make([]pqColumn, len(fields))
	names := make([]string, len(fields))
	types := make([]string, len(fields))
	for i, fl := range fields {
		if !fl.Leaf() || fl.Repeated() {
			return &InputError{File: t.file, Msg: fmt.Sprintf("column %s is nested (a list, map or group): tablewise reads Parquet files whose columns are flat", fl.Name())}
		}
		names[i] = fl.Name()
		types[i], convs[i].conv = pqType(fl.Type())
		convs[i].index = i
	}
	t.cols = columnNames(names)
	for i, c := range t.cols {
		c.typ = types[i]
	}
	if err := t.create(); err != nil {
		return err
	}
	return t.finish(t.parquetRows(pf, convs, size))
}

func (t *tableLoad) parquetRows(pf *parquet.File, convs []pqColumn, size int64) error {
	r := parquet.NewReader(pf)
	defer r.Close()
	total := max(pf.NumRows(), 1)
	rows := make([]parquet.Row, 256)
	var n int64
	for {
		k, err := r.ReadRows(rows)
		for _, row := range rows[:k] {
			n++
			if err := t.insertValues(row, convs, n); err != nil {
				return err
			}
		}
		t.prog.Bytes.Store(size * n / total)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &InputError{File: t.file, Line: n + 1, Msg: "row " + strconv.FormatInt(n+1, 10) + ": " + err.Error()}
		}
	}
}

// insertValues queues one Parquet row; at is its number.
func (t *tableLoad) insertValues(row parquet.Row, convs []pqColumn, at int64) error {
	w := t.w
	b := w.cur
	start := len(b.vals)
	for range convs {
		b.vals = append(b.vals, sqlite.Value{})
	}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= len(convs) || v.IsNull() {
			continue
		}
		b.vals[start+c] = convs[c].conv(v)
	}
	return t.queued(at)
}

// pqType is the declared type of a Parquet column and how its values
// convert.
func pqType(typ parquet.Type) (string, func(parquet.Value) sqlite.Value) {
	lt := typ.LogicalType()
	var logical format.LogicalTypeValue
	if lt != nil {
		logical = lt.Value
	}
	switch dt := logical.(type) {
	case *format.DateType:
		return typeDate, func(v parquet.Value) sqlite.Value {
			return textValue(time.Unix(int64(v.Int32())*86400, 0).UTC().Format("2006-01-02"))
		}
	case *format.TimestampType:
		unit := time.Microsecond
		switch dt.Unit.Value.(type) {
		case *format.MilliSeconds:
			unit = time.Millisecond
		case *format.NanoSeconds:
			unit = time.Nanosecond
		}
		return typeDatetime, func(v parquet.Value) sqlite.Value {
			n := v.Int64()
			var tm time.Time
			switch unit {
			case time.Millisecond:
				tm = time.UnixMilli(n)
			case time.Nanosecond:
				tm = time.Unix(0, n)
			default:
				tm = time.UnixMicro(n)
			}
			return textValue(tm.UTC().Format("2006-01-02 15:04:05.999999999"))
		}
	case *format.DecimalType:
		scale := math.Pow10(int(dt.Scale))
		return typeReal, func(v parquet.Value) sqlite.Value {
			var n float64
			switch v.Kind() {
			case parquet.Int32:
				n = float64(v.Int32())
			case parquet.Int64:
				n = float64(v.Int64())
			default: // big-endian two's complement bytes
				b := v.ByteArray()
				var x int64
				if len(b) > 0 && b[0]&0x80 != 0 {
					x = -1
				}
				for _, c := range b {
					x = x<<8 | int64(c)
				}
				n = float64(x)
			}
			return sqlite.Value{Kind: sqlite.Float, Float: n / scale}
		}
	}
	switch typ.Kind() {
	case parquet.Boolean:
		return typeBoolean, func(v parquet.Value) sqlite.Value {
			if v.Boolean() {
				return sqlite.Value{Kind: sqlite.Int, Int: 1}
			}
			return sqlite.Value{Kind: sqlite.Int}
		}
	case parquet.Int32:
		return typeInteger, func(v parquet.Value) sqlite.Value { return sqlite.Value{Kind: sqlite.Int, Int: int64(v.Int32())} }
	case parquet.Int64:
		return typeInteger, func(v parquet.Value) sqlite.Value { return sqlite.Value{Kind: sqlite.Int, Int: v.Int64()} }
	case parquet.Int96: // a legacy timestamp: nanoseconds of the day, then the Julian day
		return typeDatetime, func(v parquet.Value) sqlite.Value {
			i := v.Int96()
			nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
			day := int64(i[2])
			tm := time.Unix((day-2440588)*86400, nanos)
			return textValue(tm.UTC().Format("2006-01-02 15:04:05.999999999"))
		}
	case parquet.Float:
		return typeReal, func(v parquet.Value) sqlite.Value { return sqlite.Value{Kind: sqlite.Float, Float: float64(v.Float())} }
	case parquet.Double:
		return typeReal, func(v parquet.Value) sqlite.Value { return sqlite.Value{Kind: sqlite.Float, Float: v.Double()} }
	}
	if _, uuid := logical.(*format.UUIDType); uuid {
		return "BLOB", bytesValue
	}
	if logical == nil && typ.Kind() == parquet.FixedLenByteArray {
		return "BLOB", bytesValue
	}
	return typeText, bytesValue
}

func textValue(s string) sqlite.Value { return sqlite.Value{Kind: sqlite.Text, Text: []byte(s)} }

// bytesValue is text when the bytes are UTF-8, else a blob. The bytes are
// copied: the reader reuses its buffers.
func bytesValue(v parquet.Value) sqlite.Value {
	b := append([]byte(nil), v.ByteArray()...)
	if utf8.Valid(b) {
		return sqlite.Value{Kind: sqlite.Text, Text: b}
	}
	return sqlite.Value{Kind: sqlite.Blob, Text: b}
}
