package ingest
import ("testing";"fmt";"os")
func TestSkewDiag(t *testing.T) {
	b, err := Read([]string{os.Getenv("DIAGDIR")}, nil, Options{})
	if err != nil { t.Fatal(err) }
	kinds := map[string]int{}
	for i, p := range b.Parent {
		if p < 0 { continue }
		s, ps := &b.Spans[i], &b.Spans[p]
		if outside(s.Start, s.Duration, ps.Start, ps.Duration, 1e6) {
			k := fmt.Sprintf("same=%v svc %s->%s node %q->%q pod %v->%v before=%v", sameClock(s, ps), ps.Service, s.Service, ps.Node, s.Node, ps.Pod!="", s.Pod!="", s.Start < ps.Start)
			kinds[k]++
		}
	}
	for k, v := range kinds { fmt.Println(v, k) }
}
