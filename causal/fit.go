package causal

import (
	"math"
	"sort"
)

// Scored is one candidate node of the default method with its score
// terms, kept for every candidate (not only the card's) so that eval can
// refit and re-rank without rebuilding the graph.
type Scored struct {
	Node    int
	NodeID  string
	Service string
	Terms   map[string]float64
}

// TrainingCase is one labelled case's candidates: what the fit sees.
type TrainingCase struct {
	Name   string
	Set    string // the development set it belongs to (for leave-one-set-out)
	Truth  string // the true root cause's service
	Scored []Scored
}

// Score returns Σ_k w[k]·terms[k] over Terms().
func Score(w map[string]float64, terms map[string]float64) float64 {
	s := 0.0
	for _, k := range Terms() {
		s += w[k] * terms[k]
	}
	return s
}

// RankServices orders the candidates' services by their best candidate's
// score under weights w (ties by service name).
func RankServices(w map[string]float64, sc []Scored) []string {
	best, _ := bestPerService(w, sc)
	out := make([]string, 0, len(best))
	for s := range best {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if best[out[i]] != best[out[j]] {
			return best[out[i]] > best[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// bestPerService returns each service's best score and the index of the
// candidate that has it (the first on ties).
func bestPerService(w map[string]float64, sc []Scored) (map[string]float64, map[string]int) {
	best := map[string]float64{}
	arg := map[string]int{}
	for i, c := range sc {
		s := Score(w, c.Terms)
		if old, ok := best[c.Service]; !ok || s > old {
			best[c.Service], arg[c.Service] = s, i
		}
	}
	return best, arg
}

// ServiceProbabilities turns scores into the probabilities of each service
// being the root cause: a softmax over the services' best scores and
// "none of the candidates" (scored none). It returns the probabilities by
// service and the probability of none.
func ServiceProbabilities(w map[string]float64, none float64, sc []Scored) (map[string]float64, float64) {
	best, _ := bestPerService(w, sc)
	return serviceSoftmax(best, none)
}

// serviceSoftmax is the softmax over the services' best scores and none
// (ServiceProbabilities' model, for scores already computed).
func serviceSoftmax(best map[string]float64, none float64) (map[string]float64, float64) {
	names := make([]string, 0, len(best))
	for k := range best {
		names = append(names, k)
	}
	sort.Strings(names) // a fixed summation order: the same bits every run
	top := none
	for _, k := range names {
		top = math.Max(top, best[k])
	}
	z := math.Exp(none - top)
	p := map[string]float64{}
	for _, k := range names {
		p[k] = math.Exp(best[k] - top)
		z += p[k]
	}
	for k := range p {
		p[k] /= z
	}
	return p, math.Exp(none-top) / z
}

// FitOptions configure Fit.
type FitOptions struct {
	Terms      []string           // the terms fitted (others keep weight 0, or their Fixed weight)
	Fixed      map[string]float64 // weights held fixed (not fitted)
	L2         float64            // ridge penalty on the weights (default 0.01)
	Iterations int                // gradient steps (default 600)
	Rate       float64            // step size (default 0.5)
}

// Fit chooses the score weights and the none score by maximum likelihood
// of each case's true service under a softmax over the services' best
// candidate scores and "none" (the model ServiceProbabilities evaluates),
// with an L2 penalty, by deterministic gradient ascent (a subgradient at
// ties of the max). A case whose truth is not among its candidates
// contributes through "none". O(iterations · candidates · terms).
func Fit(cases []TrainingCase, opt FitOptions) (map[string]float64, float64) {
	if opt.L2 <= 0 {
		opt.L2 = 0.01
	}
	if opt.Iterations <= 0 {
		opt.Iterations = 600
	}
	if opt.Rate <= 0 {
		opt.Rate = 0.5
	}
	w := map[string]float64{}
	for k, v := range opt.Fixed {
		w[k] = v
	}
	for _, k := range opt.Terms {
		w[k] = 0
	}
	none := 0.0
	if len(cases) == 0 {
		return w, none
	}
	for it := 0; it < opt.Iterations; it++ {
		grad := map[string]float64{}
		gNone := 0.0
		for _, c := range cases {
			best, arg := bestPerService(w, c.Scored)
			names := make([]string, 0, len(best))
			for s := range best {
				names = append(names, s)
			}
			sort.Strings(names)
			top := none
			for _, s := range names {
				top = math.Max(top, best[s])
			}
			eNone := math.Exp(none - top)
			z := eNone
			for _, s := range names {
				z += math.Exp(best[s] - top)
			}
			_, truthIn := best[c.Truth]
			for _, s := range names {
				p := math.Exp(best[s]-top) / z
				q := 0.0
				if s == c.Truth {
					q = 1
				}
				terms := c.Scored[arg[s]].Terms
				for _, k := range opt.Terms {
					grad[k] += (q - p) * terms[k]
				}
			}
			qn := 0.0
			if !truthIn {
				qn = 1
			}
			gNone += qn - eNone/z
		}
		n := float64(len(cases))
		for _, k := range opt.Terms {
			w[k] += opt.Rate * (grad[k]/n - opt.L2*w[k])
		}
		none += opt.Rate * (gNone/n - opt.L2*none)
	}
	return w, none
}

// Calibration maps the softmax's probability of the top cause's service
// to a calibrated one: Platt scaling on its logit, σ(Slope·logit(p) +
// Intercept), fitted on the development sets' top causes as sets never
// seen get them (eval: each set's probabilities from weights fitted on
// the others). The zero Calibration leaves probabilities as they are.
type Calibration struct {
	Slope, Intercept float64
}

// MaxCalibrated is the most a calibrated probability says: the
// calibration was fitted on about a hundred labelled incidents, which can
// show a cause right 99 times in 100 but not more, so no card claims
// certainty (a simulated incident's 0.9999 reads 0.99).
const MaxCalibrated = 0.99

// Apply calibrates a probability (NaN stays NaN; 0 stays 0), at most
// MaxCalibrated.
func (c Calibration) Apply(p float64) float64 {
	if math.IsNaN(p) || p <= 0 || c == (Calibration{}) {
		return p
	}
	if p >= 1 {
		return MaxCalibrated
	}
	return math.Min(MaxCalibrated, 1/(1+math.Exp(-(c.Slope*math.Log(p/(1-p))+c.Intercept))))
}

// Calibrate turns the softmax's probabilities of the services into
// calibrated ones: the top service's through Apply; the others share the
// rest in proportion to their softmax probabilities, none above the top's:
// calibrating a near tie lowers its top (a softmax's 0.25 among four
// near-equal services reads about 0.2) and would leave the second above
// the first it ranks under; what the cap takes goes to "none of them".
func (c Calibration) Calibrate(prob map[string]float64) {
	if c == (Calibration{}) || len(prob) == 0 {
		return
	}
	names := make([]string, 0, len(prob))
	for s := range prob {
		names = append(names, s)
	}
	sort.Strings(names)
	top := names[0]
	for _, s := range names {
		if prob[s] > prob[top] {
			top = s
		}
	}
	pt, rest := c.Apply(prob[top]), 1-prob[top]
	for _, s := range names {
		switch {
		case s == top:
			prob[s] = pt
		case rest > 0:
			prob[s] = math.Min(prob[s]/rest*(1-pt), pt)
		}
	}
}

// CalPoint is one case's top-cause probability and whether it was right.
type CalPoint struct {
	P     float64
	Right bool
}

// FitCalibration fits Platt scaling by maximum likelihood: damped Newton
// steps on the logistic loss with a small ridge toward the identity, the
// logits clipped to ±8 (a probability of 1 − 3·10⁻⁴ says as much as any
// higher one) and the slope kept in [0.1, 3], the intercept in [−3, 3], so
// that nearly separable points cannot send it to infinity. Fewer than 5
// usable points give the identity. O(points · iterations).
func FitCalibration(pts []CalPoint) Calibration {
	const ridge, clip = 1.0, 8.0
	var xs, ys []float64
	for _, pt := range pts {
		if pt.P > 0 && pt.P < 1 && !math.IsNaN(pt.P) {
			xs = append(xs, math.Max(-clip, math.Min(clip, math.Log(pt.P/(1-pt.P)))))
			y := 0.0
			if pt.Right {
				y = 1
			}
			ys = append(ys, y)
		}
	}
	if len(xs) < 5 {
		return Calibration{Slope: 1}
	}
	loss := func(a, b float64) float64 {
		l := ridge / 2 * ((a-1)*(a-1) + b*b)
		for i, x := range xs {
			z := a*x + b
			// log(1 + e^z) − y·z, stable
			l += math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) - ys[i]*z
		}
		return l
	}
	a, b := 1.0, 0.0
	cur := loss(a, b)
	for it := 0; it < 100; it++ {
		ga, gb := ridge*(a-1), ridge*b
		haa, hab, hbb := ridge, 0.0, ridge
		for i, x := range xs {
			p := 1 / (1 + math.Exp(-(a*x + b)))
			d := p - ys[i]
			ga += d * x
			gb += d
			w := p * (1 - p)
			haa += w * x * x
			hab += w * x
			hbb += w
		}
		det := haa*hbb - hab*hab
		if det <= 1e-12 {
			break
		}
		da, db := (hbb*ga-hab*gb)/det, (haa*gb-hab*ga)/det
		step := 1.0
		for k := 0; k < 30; k++ {
			na := math.Max(0.1, math.Min(3, a-step*da))
			nb := math.Max(-3, math.Min(3, b-step*db))
			if l := loss(na, nb); l <= cur {
				if cur-l < 1e-12 {
					return Calibration{Slope: na, Intercept: nb}
				}
				a, b, cur = na, nb, l
				break
			}
			step /= 2
			if k == 29 {
				return Calibration{Slope: a, Intercept: b}
			}
		}
	}
	return Calibration{Slope: a, Intercept: b}
}
