package features

import "github.com/pipeline-analyze/pipeline-analyze/ingest"
import "testing"

func TestComponentAliases(t *testing.T) {
	names := map[string]bool{
		"lambda_step_readDDB": true, "lambda_step_readDDB_AWS::Lambda": true, "lambda_step_readDDB_AWS::Lambda::Function": true,
		"PetSearch_AWS::ECS::Fargate": true, "PetSearch_client": true, "DynamoDB_AWS::DynamoDB": true, "AWS::StepFunctions::StateMachine": true,
		"frontend": true,
	}
	got := componentAliases(names)
	want := map[string]string{
		"lambda_step_readDDB":             "lambda_step_readDDB_AWS::Lambda::Function",
		"lambda_step_readDDB_AWS::Lambda": "lambda_step_readDDB_AWS::Lambda::Function",
	}
	if len(got) != len(want) {
		t.Fatalf("aliases %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s → %q, want %q", k, got[k], v)
		}
	}
	if ingest.ComponentBase("payforadoption_AWS::ECS::Container") != "payforadoption" || ingest.ComponentBase("AWS::StepFunctions::StateMachine") != "AWS::StepFunctions::StateMachine" {
		t.Errorf("ComponentBase: %q, %q", ingest.ComponentBase("payforadoption_AWS::ECS::Container"), ingest.ComponentBase("AWS::StepFunctions::StateMachine"))
	}
}
