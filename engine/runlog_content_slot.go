package engine

// RunContentSlot is storage for the content a run record carries, kept
// by the caller with its run (the agent's run state), so that attaching
// the content is not an allocation of its own. The record points into it
// until the run log has written the record; a slot is used for one record
// only. It is per run: nothing changes with several Hearth nodes.
type RunContentSlot struct {
	item runContentItem
}

// WithContentIn is WithContent with the content kept in slot.
func (r *RunRecord) WithContentIn(slot *RunContentSlot, messages []Message, completion string, toolCalls []ToolCall, pipeOptIn bool, secrets ...string) {
	slot.item = runContentItem{content: RunContent{Messages: messages, Completion: completion, ToolCalls: toolCalls},
		pipeOptIn: pipeOptIn, secrets: secrets}
	r.content = &slot.item
}
