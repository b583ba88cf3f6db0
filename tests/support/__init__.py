"""Test support: stepping a game decision by decision, and the decoded reference evaluator."""
