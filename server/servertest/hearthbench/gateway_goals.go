package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// GoalCheck is one of the gateway hot path's goals
// (docs/benchmarks.md#gateway-hot-path) read off the gateway rows of this
// run: a figure against its target. It is a report, not a test: the
// figures move with the machine's load, and the run prints them whatever
// they are.
type GoalCheck struct {
	Goal     string  `json:"goal"`
	Run      string  `json:"run"`
	Conc     int     `json:"concurrency"`
	Measured float64 `json:"measured"`
	// Target is the bound; AtLeast says which side of it is met.
	Target  float64 `json:"target"`
	AtLeast bool    `json:"at_least"`
	Met     bool    `json:"met"`
}

// goalRuns are the routes the goals name: agent.run and pipes.run with a
// pipe of store: false, plain and streamed.
var goalRuns = []string{"agent", "pipe nostore"}

// The goals' bounds: what the gateway may add to a direct call to the upstream.
const (
	goalShareOfDirect = 0.47 // at 16 clients: Hearth's rps / the direct leg's
	goalAddedP50Conc  = 0.40 // ms, at 16 clients
	goalAddedP50One   = 0.15 // ms, at 1 client
	goalAddedTTFT     = 0.20 // ms, streams, at 1 client
	goalAllocsPerReq  = 150  // at 16 clients, every route and its stream
	// goalDirectRPS is the direct leg's requests a second at 16 clients in
	// the run the goals were set from: the added p50, a time, is met or
	// not at the machine's speed, which the direct leg shows.
	goalDirectRPS = 33658
)

// gatewayGoals checks the goals against the rows there are; a goal whose
// row was not run (-runs, -conc) is left out.
func gatewayGoals(rs []GatewayResult) []GoalCheck {
	row := func(run string, conc int) *GatewayResult {
		for i := range rs {
			if rs[i].Run == run && rs[i].Concurrency == conc {
				return &rs[i]
			}
		}
		return nil
	}
	var out []GoalCheck
	add := func(goal, run string, conc int, measured, target float64, atLeast bool) {
		met := measured <= target
		if atLeast {
			met = measured >= target
		}
		out = append(out, GoalCheck{Goal: goal, Run: run, Conc: conc, Measured: measured, Target: target, AtLeast: atLeast, Met: met})
	}
	for _, run := range goalRuns {
		if r := row(run, 16); r != nil && r.Direct.RPS > 0 {
			add("share of direct rps", run, 16, r.share(r.Hearth), goalShareOfDirect, true)
			add("added p50 ms", run, 16, r.AddedP50ms, goalAddedP50Conc, false)
		}
		if r := row(run, 1); r != nil {
			add("added p50 ms", run, 1, r.AddedP50ms, goalAddedP50One, false)
		}
		if r := row(run+" stream", 1); r != nil && r.Hearth.TTFTP50ms > 0 {
			add("added TTFT p50 ms", run+" stream", 1, r.AddedTTFTP50ms, goalAddedTTFT, false)
		}
	}
	for _, run := range goalRuns {
		for _, kind := range []string{run, run + " stream"} {
			if r := row(kind, 16); r != nil {
				add("allocations a request", kind, 16, r.AddedAllocsPerR, goalAllocsPerReq, false)
			}
		}
	}
	return out
}

// directSpeed describes the direct leg's speed at 16 clients against the
// run the goals were set from: the mean of the goals' plain (not
// streamed) rows, as goalDirectRPS was measured ("" without such a row).
func directSpeed(rs []GatewayResult) string {
	var sum float64
	n := 0
	for _, r := range rs {
		if r.Concurrency == 16 && r.Direct.RPS > 0 && slices.Contains(goalRuns, r.Run) {
			sum += r.Direct.RPS
			n++
		}
	}
	if n == 0 {
		return ""
	}
	avg := sum / float64(n)
	return fmt.Sprintf("The direct leg ran %.0f rps at 16 clients, %.2f of the %d of the run the goals were set from.", avg, avg/goalDirectRPS, goalDirectRPS)
}

// printGoals prints gatewayGoals under the gateway table; speed is
// directSpeed's line.
func printGoals(w io.Writer, gs []GoalCheck, speed string) {
	if len(gs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nGateway hot path goals (pipe nostore = pipes.run with a pipe of store: false), read off the rows above.")
	fmt.Fprintln(w, "Share and added p50 at 16 clients move with the machine's load: compare alternating runs, not one. The added p50")
	fmt.Fprintln(w, "is a time: on a machine slower than the one the goals were set on it grows while the share of direct holds.")
	if speed != "" {
		fmt.Fprintln(w, speed)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "goal\trun\tconc\tmeasured\ttarget\tresult\t")
	for _, g := range gs {
		bound, verdict, format := "≤", "not met", "%s\t%s\t%d\t%.2f\t%s %.2f\t%s\t\n"
		if g.AtLeast {
			bound = "≥"
		}
		if g.Met {
			verdict = "met"
		}
		if g.Goal == "allocations a request" {
			format = "%s\t%s\t%d\t%.0f\t%s %.0f\t%s\t\n"
		}
		fmt.Fprintf(tw, format, g.Goal, g.Run, g.Conc, g.Measured, bound, g.Target, verdict)
	}
	tw.Flush()
}
