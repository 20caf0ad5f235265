package engine

// RunMeter is told of every batch of run records inside the transaction
// that writes them, so what it counts can never drift from the run log
// (Budgets is the one implementation). An error abandons the batch.
type RunMeter interface {
	MeterTx(tx Tx, batch []RunRecord) error
}

// SetMeter installs the meter of every batch written from now on; call it
// before serving.
func (l *RunLog) SetMeter(m RunMeter) {
	if l != nil {
		l.meter = m
	}
}
