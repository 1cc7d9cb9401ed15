package model

import (
	"strings"
)

// X-Ray's service map names one component several times: the function
// itself, its invocation and its bare name ("fn", "fn_AWS::Lambda",
// "fn_AWS::Lambda::Function"), each a vertex with its own metrics. They
// are one component whose parts are signals.

// xraySep separates a vertex's name from its AWS resource type in X-Ray
// service-map names ("payforadoption_AWS::ECS::Container").
const xraySep = "_AWS::"

// ComponentBase returns the component a service-map vertex name belongs
// to: its name before an X-Ray resource type ("fn" for "fn_AWS::Lambda",
// "fn_AWS::Lambda::Function" and "fn"); the name itself for any other.
func ComponentBase(name string) string {
	if i := strings.Index(name, xraySep); i > 0 {
		return name[:i]
	}
	return name
}
