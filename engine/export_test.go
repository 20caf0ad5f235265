package engine

// RaceEnabled tells the external tests whether the race detector is on
// (it moves some values to the heap, so allocation counts differ).
const RaceEnabled = raceEnabled
