package reportfmt

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/model"
)

// MarshalJSONValue encodes v (a struct of the kinds a report model uses) in
// the reports' JSON conventions, indented by two spaces (see JSONValue).
func MarshalJSONValue(v any) ([]byte, error) {
	return json.MarshalIndent(JSONValue(v), "", "  ")
}

// JSONValue converts v to a tree of values that encoding/json writes in the
// reports' documented JSON shape: fields in struct order under their json
// tags, every field present (a nil pointer with omitempty left out),
// ingest.Time as an RFC3339Nano UTC string (null when zero), time.Duration
// as float seconds, NaN and ±Inf as null, nil slices as []. It handles
// exactly the kinds the report models use and panics on others (maps,
// interfaces): a programmer error the renderers' tests catch.
func JSONValue(v any) any { return toJSONValue(reflect.ValueOf(v)) }

var (
	timeType     = reflect.TypeFor[model.Time]()
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

func toJSONValue(v reflect.Value) any {
	switch v.Type() {
	case timeType:
		t := model.Time(v.Int())
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
	panic("reportfmt: JSONValue: unsupported kind " + v.Kind().String())
}
