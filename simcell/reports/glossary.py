"""The report's plain-language glossary: every term the front sheet uses, each with an anchor
(`#g-KEY`) the sheet links to, so a reviewer who has never run simcell can read the first page
alone. The Glossary section lists them; `link(key, text)` writes a link to one."""

from __future__ import annotations

# key: (term, gloss). The gloss is for a reviewer, not a statistician: what the word means on
# the page, and what would change it.
TERMS: dict[str, tuple[str, str]] = {
    "win-share": ("win share", "how often a seat wins, counting a shared win as a fraction (a "
                  "two-way tie gives each winner half a win)."),
    "fair-share": ("fair share", "the win share every seat would have if seats did not matter: "
                   "one in two at 2 players, one in five at 5."),
    "band": ("tolerance band", "how far from fair a figure may be before the designer calls it a "
             "problem, set in the run's config (by default ±2 points of win share for a seat, "
             "±1 point for a card type or a card)."),
    "in-band": ("in band", "shown to lie inside the tolerance band: the whole likely range of the "
                "figure is within it."),
    "out-of-band": ("out of band", "shown to lie outside the tolerance band: the whole likely range "
                    "of the figure is beyond it. This is a finding, not noise."),
    "inconclusive": ("inconclusive", "neither shown inside nor outside the band: the likely range "
                     "straddles its edge, and more games would decide."),
    "interval": ("95% interval", "the range the figure's true value lies in, 19 times out of 20, "
                 "given the games played; the numbers in brackets."),
    "type-gap": ("card type against the average card", "how much more (or less) often a player "
                 "wins when dealt a card of this type at the start than when dealt the average "
                 "card, in points of win share."),
    "contrast": ("card against its type", "the same for one card, measured against the middle of "
                 "the other cards of its own type (types differ by design), which one card far out "
                 "of line does not move."),
    "rungs": ("rungs, across skill", "the same games played again by other bots, stronger or "
              "differently tuned. A verdict that **holds** is reached under every rung: it is about "
              "the game. One that is **skill-dependent** changes with the bots: it is about them."),
    "content-hash": ("game content hash", "a fingerprint of every card, board and rule value the "
                     "games used: two reports with the same hash describe the same game."),
    "bots": ("bots", "the programs that played the games: `planner` plans towards target cards "
             "and plays its best action; every seat played the same bot, so seats differ only by "
             "their place at the table."),
    "lead-change": ("lead change", "the sole leader after a round (or at the final scores) is "
                    "another player than the last sole leader; a shared lead changes nothing."),
}


def link(key: str, text: str | None = None) -> str:
    """A Markdown link to the glossary entry `key` (its term, or `text`)."""
    return f"[{text or TERMS[key][0]}](#g-{key})"


def entries() -> list[str]:
    """The glossary as paragraphs, each opening with its anchor ({#g-KEY}, render.py)."""
    return [f"{{#g-{key}}} **{term}**: {gloss}" for key, (term, gloss) in TERMS.items()]
