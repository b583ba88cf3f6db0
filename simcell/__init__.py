"""simcell: a Monte Carlo game-balance simulator for the board game Cytosis."""

__version__ = "0.1.0"
