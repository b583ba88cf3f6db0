"""`simcell studio`: a local web page where a designer edits card (and rule) values and sees what
moves, paired game by game against the baseline on the same seeds, as the games finish.

One file, one job: `blocks.py` plays one block of games in a warm worker and sums what the paired
figures need; `session.py` keeps the baseline, the current edit and the worker pool; `figures.py`
turns the blocks both have finished into the compare report's paired tables; `edits.py` checks
an edit through the config layer and exports the edited set; `server.py` is the HTTP API and the
page (`page.html`)."""
