package driver

import (
	"fmt"
	"reflect"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/spf13/pflag"
)

// The analysis, output and live flags are generated from the fields of
// their configuration structs (analysis.Settings, cmdrun.Output,
// cmdrun.Live), as pprof's internal/driver/config.go generates its
// settings: a field tagged `flag:"NAME"` is the flag --NAME (`short:"o"`
// adds -o, `hidden:"true"` hides it), its value in the struct's default
// (analysis.DefaultSettings, cmdrun.DefaultOutput, ...) is the flag's
// default, and flagHelp[NAME] is its help. A field is written once; the
// flag, its help line, its default and the rerun filter (cmdrun.RerunArgs
// reads the live tags) all come from it.

// flagField is one generated flag.
type flagField struct {
	name, short string
	hidden      bool
	ptr         any // *string, *bool, *int, *int64, *float64, *time.Duration or *[]string
}

// flagFields lists the tagged fields of the struct ptr points to, in field
// order. It panics when ptr is no pointer to a struct or a tagged field has
// a type without a flag kind (a programmer error).
func flagFields(ptr any) []flagField {
	v := reflect.ValueOf(ptr).Elem()
	t := v.Type()
	var out []flagField
	for i := range t.NumField() {
		sf := t.Field(i)
		name := sf.Tag.Get("flag")
		if name == "" {
			continue
		}
		f := flagField{name: name, short: sf.Tag.Get("short"), hidden: sf.Tag.Get("hidden") == "true", ptr: v.Field(i).Addr().Interface()}
		switch f.ptr.(type) {
		case *string, *bool, *int, *int64, *float64, *time.Duration, *[]string:
		default:
			panic(fmt.Sprintf("flagFields: field %s (--%s) has type %s, which has no flag kind", sf.Name, name, sf.Type))
		}
		out = append(out, f)
	}
	return out
}

// registerFields defines a flag for every tagged field of the struct ptr
// points to, with the field's current value as default and help[name] as
// help, and files the visible ones under group. Fill the struct with its
// defaults first.
func registerFields(fs *pflag.FlagSet, ptr any, help map[string]string, group string) {
	var visible []string
	for _, f := range flagFields(ptr) {
		h, ok := help[f.name]
		if !ok {
			panic("registerFields: no help for --" + f.name)
		}
		switch p := f.ptr.(type) {
		case *string:
			fs.StringVarP(p, f.name, f.short, *p, h)
		case *bool:
			fs.BoolVarP(p, f.name, f.short, *p, h)
		case *int:
			fs.IntVarP(p, f.name, f.short, *p, h)
		case *int64:
			fs.Int64VarP(p, f.name, f.short, *p, h)
		case *float64:
			fs.Float64VarP(p, f.name, f.short, *p, h)
		case *time.Duration:
			fs.DurationVarP(p, f.name, f.short, *p, h)
		case *[]string:
			fs.StringArrayVarP(p, f.name, f.short, *p, h)
		}
		if f.hidden {
			_ = fs.MarkHidden(f.name)
			continue
		}
		visible = append(visible, f.name)
	}
	clihelp.SetGroup(fs, group, visible...)
}
