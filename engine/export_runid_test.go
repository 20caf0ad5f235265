package engine

// PreparedRunID is the run id of a prepared run, for the external tests.
func PreparedRunID(pr *PreparedRun) string { return pr.runID }
