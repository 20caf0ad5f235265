package server

// KeepStaleTurns stops s from taking back turns held too long, so a test
// sees whether a wait gave its turn back by itself.
func KeepStaleTurns(s *Server) {
	if s.turns != nil {
		s.turns.mu.Lock()
		s.turns.staleAfter = 1 << 62
		s.turns.mu.Unlock()
	}
}
