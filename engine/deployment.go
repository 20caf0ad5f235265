package engine

import (
	"context"
	"sync"
	"time"
)

// DeploymentStatus is one deployment's state as this node sees it: health,
// calls in flight and latency are kept per node (each node of a cluster
// learns its own); the token counts of TPM limits are shared.
type DeploymentStatus struct {
	// Model is the model id the deployment serves ("local:llama-70b").
	Model    string `json:"model"`
	Strategy string `json:"strategy"`
	Name     string `json:"name"`
	// State is "healthy", "cooling" (failed, gets no calls until
	// CoolingUntil) or "probing" (its cool-down ended; a health probe
	// decides whether calls come back).
	State        string     `json:"state"`
	CoolingUntil *time.Time `json:"cooling_until,omitempty"`
	// LastError is why it last failed ("" when it never did).
	LastError string `json:"last_error,omitempty"`
	InFlight  int    `json:"in_flight"`
	// LatencyMs is the recent average latency (time to first token for
	// streams), P50Ms the median of the last calls; 0 before any call.
	LatencyMs float64 `json:"latency_ms"`
	P50Ms     float64 `json:"p50_ms"`
	// Requests and Errors count the calls sent to it and those that failed
	// on its side, since this node started.
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
	// Weight, MaxConcurrency and TPM are its configured share and limits.
	Weight         int   `json:"weight"`
	MaxConcurrency int   `json:"max_concurrency,omitempty"`
	TPM            int64 `json:"tpm,omitempty"`
}

// DeploymentNote records which deployment served a run's model calls, for
// the run log; it lives in the run's context (WithDeploymentNote).
type DeploymentNote struct {
	mu   sync.Mutex
	name string
}

type deploymentNoteKey struct{}

// WithDeploymentNote returns ctx carrying a new note the provider router
// writes the serving deployment into (NoteDeployment).
func WithDeploymentNote(ctx context.Context) (context.Context, *DeploymentNote) {
	n := &DeploymentNote{}
	return context.WithValue(ctx, deploymentNoteKey{}, n), n
}

// NoteDeployment records name as the deployment that served a call made
// in ctx, when ctx carries a note.
func NoteDeployment(ctx context.Context, name string) {
	if n, ok := ctx.Value(deploymentNoteKey{}).(*DeploymentNote); ok {
		n.mu.Lock()
		n.name = name
		n.mu.Unlock()
	}
}

// DeploymentOf is the deployment noted in ctx ("" without a note).
func DeploymentOf(ctx context.Context) string { return DeploymentNoteOf(ctx).Name() }

// DeploymentNoteOf is the note ctx carries (nil: none).
func DeploymentNoteOf(ctx context.Context) *DeploymentNote {
	n, _ := ctx.Value(deploymentNoteKey{}).(*DeploymentNote)
	return n
}

// Name is the deployment noted last ("" when none served, or n is nil).
func (n *DeploymentNote) Name() string {
	if n == nil {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.name
}

// DeploymentRouter is implemented by a provider registry with
// deployments; HasDeployments lets run code skip the note otherwise.
type DeploymentRouter interface {
	HasDeployments() bool
}

// HasDeployments reports whether p (or the registry it wraps) routes some
// model over deployments.
func HasDeployments(p Providers) bool {
	dr, ok := p.(DeploymentRouter)
	return ok && dr.HasDeployments()
}
