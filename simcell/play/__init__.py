"""The game loop over the rules (kernel/) and the policies (policies/): turns, the policy dispatch, the search's playouts, and the compiled entry points."""
