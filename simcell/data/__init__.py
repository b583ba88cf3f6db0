"""The shipped game data: one commented TOML file per kind (board, rules, cards, events, goals, epigenetic, report)."""
