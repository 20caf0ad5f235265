package engine

// readOnlyRun reports whether a run is made with a read-only key: such a
// run answers but never writes a thread (docs/accounts-and-keys.md#scoped-keys). Continuing
// a thread is refused, since the run would append to it; a run without a
// thread id creates none, and answers no thread id.
func readOnlyRun(in *RunRequest) (bool, error) {
	if in.Principal == nil || in.Principal.Scope == nil || !in.Principal.Scope.ReadOnly {
		return false, nil
	}
	if in.ThreadID != "" {
		return true, &Error{Code: CodeForbidden, Field: "read_only",
			Message: "this API key's read_only scope forbids continuing thread " + quote(in.ThreadID) +
				": the run would append to it; run without threadId (a read-only key's runs store no thread)"}
	}
	return true, nil
}
