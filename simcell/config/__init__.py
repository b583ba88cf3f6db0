"""The config layer: game data and run configs (TOML) in, a validated, content-hashed game definition out."""
