package engine

// CheckPipeWrite refuses a pipe configuration change that would take a
// pipe outside the key's pipes scope or point it at a memory outside its
// memories scope: creating a pipe (or upserting one) whose name is not in
// the list, renaming a pipe to such a name, or attaching a memory the key
// may not use (docs/accounts-and-keys.md#scoped-keys). name is the pipe's current name
// ("" when creating).
func (s *Scope) CheckPipeWrite(name string, in *PipeInput) error {
	if s == nil {
		return nil
	}
	if in.Name != nil && *in.Name != name {
		if err := s.CheckPipe(*in.Name); err != nil {
			verb := "create"
			if name != "" {
				verb = "rename a pipe to"
			}
			err.(*Error).Message += ": a key scoped to pipes cannot " + verb + " a pipe outside its list"
			return err
		}
	}
	if in.Memory != nil {
		for _, m := range *in.Memory {
			if err := s.CheckMemory(m.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckMemoryCreate refuses creating a memory whose name is outside the
// key's memories scope (docs/accounts-and-keys.md#scoped-keys).
func (s *Scope) CheckMemoryCreate(name string) error {
	if err := s.CheckMemory(name); err != nil {
		err.(*Error).Message += ": a key scoped to memories cannot create a memory outside its list"
		return err
	}
	return nil
}
