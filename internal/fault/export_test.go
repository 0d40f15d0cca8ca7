package fault

import "context"

// NewGroup returns a group whose Cancel cancels the returned context, derived from ctx (the
// gate builds its groups with Cancel set by hand).
func NewGroup(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{Cancel: cancel}, ctx
}
