package scorecard

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// MarshalJSON encodes the Card in its documented JSON shape
// (docs/scorecard.schema.json): fields in struct order under their snake_case
// tags, every field present, ingest.Time as an RFC3339Nano UTC string (null
// when zero), time.Duration as float seconds, NaN and ±Inf as null, nil
// slices as [].
func (c Card) MarshalJSON() ([]byte, error) {
	return json.Marshal(toJSONValue(reflect.ValueOf(c)))
}

func renderJSON(w io.Writer, c *Card, _ RenderOptions) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

var (
	timeType     = reflect.TypeFor[ingest.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// jsonObject is an object whose members keep their order.
type jsonObject []jsonMember

type jsonMember struct {
	key string
	val any
}

// MarshalJSON writes the members in order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// toJSONValue converts v to a tree of values encoding/json writes in the
// Card's documented shape. It handles exactly the kinds the Card uses; it
// panics on others (a programmer error caught by the tests).
func toJSONValue(v reflect.Value) any {
	switch v.Type() {
	case timeType:
		t := ingest.Time(v.Int())
		if t == 0 {
			return nil
		}
		return t.Std().Format(time.RFC3339Nano)
	case durationType:
		return time.Duration(v.Int()).Seconds()
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return toJSONValue(v.Elem())
	case reflect.Struct:
		t := v.Type()
		obj := make(jsonObject, 0, t.NumField())
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || opts == "omitempty" && v.Field(i).Kind() == reflect.Pointer && v.Field(i).IsNil() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			obj = append(obj, jsonMember{name, toJSONValue(v.Field(i))})
		}
		return obj
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toJSONValue(v.Index(i))
		}
		return out
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	}
	panic("scorecard: toJSONValue: unsupported kind " + v.Kind().String())
}
