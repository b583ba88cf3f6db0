"""Policies: the players of simulated games, and their registry."""
