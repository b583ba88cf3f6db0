"""The human-readable log of one refereed game: setup, every turn, every Phase 2, final score,
with card, goal, event and location names from the game definition."""

from __future__ import annotations

from simcell.config.model import Effect, GameDefinition
from simcell.vocabulary import HP_SOURCES, decode_action
from simcell.referee.actions import (
    RESOURCE_NAMES,
    amounts_text,
    budding_name,
    card_name,
    describe_action,
    resource_name,
)
from simcell.referee.records import RefereeResult
from simcell.referee.state import LogEvent


def format_log(game: GameDefinition, players: int, result: RefereeResult) -> str:
    """The whole game as text, one line per happening."""
    return "\n".join(_Writer(game, players, result).lines()) + "\n"


class _Writer:
    def __init__(self, game: GameDefinition, players: int, result: RefereeResult) -> None:
        self.game = game
        self.players = players
        self.result = result
        self.goals_in_play: list[int] = []
        self.out: list[str] = []

    # -- names ---------------------------------------------------------------------------
    def card(self, card_id: int | None) -> str:
        return "(empty)" if card_id is None else card_name(self.game, card_id)

    def event_name(self, event_id: int) -> str:
        return next(e.name for e in self.game.events if e.id == event_id)

    def goal_name(self, goal_id: int) -> str:
        return next(g.name for g in self.game.goals if g.id == goal_id)

    def location_name(self, index: int) -> str:
        return self.game.board.locations[index].name

    @staticmethod
    def seat(seat: int | None) -> str:
        return f"seat {seat}"

    # -- the log -------------------------------------------------------------------------
    def lines(self) -> list[str]:
        record = self.result.game_record
        self.out.append(
            f"Cytosis — game {record['game']} (deal {record['deal']}, rotation "
            f"{record['rotation']}), {self.players} players, {record['rounds']} rounds"
        )
        for p in self.result.player_records:
            self.out.append(f"  seat {p['seat']}: player {p['player']}, policy {p['policy']}")
        rules = self.game.rules
        self.out.append(
            f"  rules: epigenetic={rules.epigenetic}, supply_limited={rules.supply_limited}, "
            f"grey_per_player={rules.grey_per_player}, turn_order={rules.turn_order}, "
            f"laureates_holder_may_take={rules.laureates_holder_may_take}, "
            f"two_player_remove_detox={rules.two_player_remove_detox}"
            + (f", placement_order={rules.placement_order}"
               if rules.placement_order != "clockwise" else "")
            + (", laureates_once_each=True" if rules.laureates_once_each else "")
            + (f", starting_hp_by_seat={list(rules.starting_hp_by_seat)}"
               if any(rules.starting_hp_by_seat) else "")
            + (f", first_marker_hp={list(rules.first_marker_hp)}" if rules.first_marker_hp else "")
            + (f", goals_open_round={rules.goals_open_round}" if rules.goals_open_round != 1 else "")
            + (", laureates_marker_only=True" if rules.laureates_marker_only else "")
        )
        self.out.append("")
        self.out.append("== Setup ==")
        for event in self.result.log:
            handler = getattr(self, f"_{event.kind}", None)
            if handler is not None:
                handler(event)
        self._final_score()
        return self.out

    # setup
    def _events(self, e: LogEvent) -> None:
        aside = ", ".join(self.event_name(i) for i in e.detail["set_aside"]) or "none"
        self.out.append(f"Events set aside unseen: {aside}")
        deck = ", ".join(self.event_name(i) for i in e.detail["deck"])
        self.out.append(f"Event deck, in reveal order: {deck}")

    def _goals(self, e: LogEvent) -> None:
        self.goals_in_play = list(e.detail["goals"])
        goals = ", ".join(f"{i}: {self.goal_name(g)}" for i, g in enumerate(self.goals_in_play))
        self.out.append(f"Goals in play: {goals}")

    def _detox_removed(self, e: LogEvent) -> None:
        cards = ", ".join(self.card(c) for c in e.detail["cards"])
        self.out.append(f"Detoxification cards removed (2 players): {cards}")

    def _card_area(self, e: LogEvent) -> None:
        self.out.append("Card Area: " + self._slots(e.detail["slots"]))

    def _slots(self, slots: list[int | None]) -> str:
        prices = self.game.board.slot_prices
        return ", ".join(
            f"slot {i} [{prices[i]} ATP] {self.card(c)}" for i, c in enumerate(slots)
        )

    def _dealt(self, e: LogEvent) -> None:
        cards = ", ".join(self.card(c) for c in e.detail["cards"])
        self.out.append(f"{self.seat(e.seat)} is dealt {cards}")

    def _epigenetic(self, e: LogEvent) -> None:
        name = next(c.name for c in self.game.epigenetic if c.id == e.detail["card"])
        self.out.append(f"{self.seat(e.seat)} gets the Epigenetic Modification {name}")

    def _return(self, e: LogEvent) -> None:
        self.out.append(f"{self.seat(e.seat)} returns {self.card(e.detail['card'])}")

    def _setup_shuffle(self, e: LogEvent) -> None:
        self.out.append(f"The returned cards are shuffled into the deck ({e.detail['cards']} cards)")

    def _starting_atp(self, e: LogEvent) -> None:
        self.out.append(f"{self.seat(e.seat)} receives {e.detail['atp']} starting ATP")

    def _starting_hp(self, e: LogEvent) -> None:
        self.out.append(f"{self.seat(e.seat)} starts with {e.detail['hp']} HP")

    def _combo(self, e: LogEvent) -> None:
        a, b = self.game.board.combos[e.detail["combo"]]
        self.out.append(
            f"{self.seat(e.seat)} takes {RESOURCE_NAMES[a]} + {RESOURCE_NAMES[b]} "
            f"(gained {amounts_text(e.detail['got'])})"
        )

    def _kept_additional_resource(self, e: LogEvent) -> None:
        self.out.append(
            f"{self.seat(e.seat)} resolves the kept {self.card(e.detail['card'])}: gains "
            f"{amounts_text(e.detail['got'])}; the card goes to the discard pile"
        )

    def _start_bonus(self, e: LogEvent) -> None:
        self.out.append(
            f"{self.seat(e.seat)} start bonus: {e.detail['got']} {resource_name(e.detail['resource'])}"
        )

    def _setup_done(self, e: LogEvent) -> None:
        for seat, stock in enumerate(e.detail["stocks"]):
            self.out.append(f"{self.seat(seat)} starts with {amounts_text(stock)}")

    # rounds
    def _round(self, e: LogEvent) -> None:
        if e.round > 1:
            self._hp_after(e.round - 1)
        self.out.append("")
        final = " (final round: Phase 1 only)" if e.round == self.result.game_record["rounds"] else ""
        first = e.detail.get("first_to_move", e.seat)
        moves = f", {self.seat(first)} moves first" if first != e.seat else ""
        self.out.append(f"== Round {e.round}{final} — first player {self.seat(e.seat)}{moves} ==")
        for location, resource, n in e.detail["location_bonuses"]:
            self.out.append(
                f"  in effect: the first placement at {self.location_name(location)} gains "
                f"{n} {resource_name(resource)}"
            )
        if e.detail["card_discount"]:
            self.out.append(
                f"  in effect: Card Area purchases cost {e.detail['card_discount']} ATP less"
            )

    def _hp_after(self, round_number: int) -> None:
        hps = ", ".join(
            f"{self.seat(p['seat'])} {p['hp_by_round'][round_number - 1]}"
            for p in self.result.player_records
        )
        self.out.append(f"  HP after round {round_number}: {hps}")

    def _turn(self, e: LogEvent) -> None:
        d = e.detail
        auto = " [automatic]" if d["automatic"] else ""
        text = describe_action(self.game, d["code"], self.goals_in_play)
        parts = [self._note(d["code"], n) for n in d["notes"]]
        parts = [p for p in parts if p]
        for seat, delta in d["stock_delta"].items():
            who = "stock" if seat == e.seat else f"{self.seat(seat)} stock"
            parts.append(f"{who} {amounts_text(delta, signed=True)}")
        if any(d["shortfall"]):
            parts.append(f"the supply was short of {amounts_text(d['shortfall'])}")
        explained = sum(n[2] for n in d["notes"] if n[0] in ("completed", "goal_marker"))
        for seat, delta in d["hp_delta"].items():
            if seat == e.seat and sum(delta) == explained:
                continue  # the notes already say where the HP came from
            who = "" if seat == e.seat else f"{self.seat(seat)} "
            parts.append(f"{who}{sum(delta):+d} HP")
        tail = (" — " + "; ".join(parts)) if parts else ""
        self.out.append(f"  {self.seat(e.seat)}{auto}: {text}{tail}")

    def _note(self, code: int, note: tuple) -> str:
        kind = note[0]
        if kind == "spot":
            loc = self.game.board.locations[decode_action(code)[2]]
            if loc.action in ("collect", "card_area") or len(loc.spots) == 1:
                return ""  # the action already names the spot
            return f"takes spot {loc.spots[note[1]].label}"
        if kind == "yield_bonus":
            return f"epigenetic bonus {note[2]} {resource_name(note[1])}"
        if kind == "location_bonus":
            return f"event bonus {note[3]} {resource_name(note[1])}"
        if kind == "bought":
            return f"buys {self.card(note[1])}"
        if kind == "additional_resource":
            return f"{self.card(note[1])} resolves at once and goes to the discard pile"
        if kind == "completed":
            return f"completes {self.card(note[1])} (+{note[2]} HP)"
        if kind == "displaced":
            owner, organelle, index, cargo = note[1:]
            return (
                f"displaces {self.seat(owner)}'s vesicle at {budding_name(organelle, index)} "
                f"(lost to the supply: {amounts_text(cargo)})"
            )
        if kind == "vesicle":
            organelle, index, cargo = note[1:]
            return f"vesicle at {budding_name(organelle, index)} carrying {amounts_text(cargo)}"
        if kind == "moved":
            organelle, index, target = note[1:]
            return f"vesicle moves from {budding_name(organelle, index)} to {budding_name(2, target)}"
        if kind == "cargo_returned":
            return f"cargo back to the supply: {amounts_text(note[1])}"
        if kind == "marker":
            return "keeps the First Player Marker" if note[1] else "takes the First Player Marker"
        if kind == "goal_marker":
            goal_id = self.goals_in_play[note[1]]
            return f"goal marker on {self.goal_name(goal_id)} (+{note[2]} HP)"
        return str(note)

    # phase 2
    def _event(self, e: LogEvent) -> None:
        event = next(ev for ev in self.game.events if ev.id == e.detail["event"])
        self.out.append(f"-- Phase 2 of round {e.round}: flasks retrieved; event {event.name}")
        for effect, outcome in zip(event.effects, e.detail["outcomes"]):
            self.out.append("  " + self._outcome(effect, outcome))

    def _outcome(self, effect: Effect, o: dict) -> str:
        kind = o["kind"]
        if kind == "location_bonus":
            return (
                f"next round, the first placement at {self.location_name(o['location'])} gains "
                f"{o['n']} {resource_name(o['resource'])}"
            )
        if kind == "all_gain":
            got = ", ".join(f"{self.seat(s)} +{n}" for s, n in o["got"].items())
            return f"every player gains {effect.n} {resource_name(o['resource'])}: {got}"
        if kind == "card_discount":
            return f"next round, Card Area purchases cost {o['n']} ATP less"
        if kind == "discard_down":
            lost = "; ".join(f"{self.seat(s)} returns {amounts_text(v)}" for s, v in o["lost"].items())
            return f"discard macromolecules down to {o['limit']} each: {lost or 'nobody is over'}"
        if kind == "hp_if":
            applied = ", ".join(f"{self.seat(s)} {n:+d} HP" for s, n in o["applied"].items())
            return f"{self._condition(effect)} → {effect.n:+d} HP: {applied or 'nobody'}"
        return str(o)

    def _condition(self, effect: Effect) -> str:
        if effect.condition == "completed_at_least":
            return f"players with at least {effect.m} completed {effect.type}"
        what = RESOURCE_NAMES[effect.resource or "atp"]
        sign = "at least" if effect.condition == "stock_at_least" else "at most"
        return f"players holding {sign} {effect.m} {what}"

    def _refresh(self, e: LogEvent) -> None:
        d = e.detail
        parts = []
        parts.append(f"discards {self.card(d['discarded'])}" if d["discarded"] is not None
                     else "slot 0 is empty, nothing discarded")
        for n in d["reshuffled"]:
            parts.append(f"the deck is empty: the discard pile ({n} cards) is reshuffled")
        if d["drawn"]:
            parts.append("draws " + ", ".join(self.card(c) for c in d["drawn"]))
        self.out.append("  Card Area refresh: " + "; ".join(parts))
        self.out.append(f"  Card Area: {self._slots(d['slots'])} (deck {d['deck']}, discard {d['discard']})")

    def _marker_passes(self, e: LogEvent) -> None:
        self.out.append(f"  the First Player Marker passes to {self.seat(e.seat)}")

    # end
    def _goal_bonus(self, e: LogEvent) -> None:
        self.out.append(
            f"Goal {self.goal_name(e.detail['goal'])}: {self.seat(e.seat)} +{e.detail['hp']} HP"
        )

    def _receptor_bonus(self, e: LogEvent) -> None:
        self.out.append(f"Receptor bonus: {self.seat(e.seat)} +{e.detail['hp']} HP")

    def _scoring(self, e: LogEvent) -> None:
        last = self.result.game_record["rounds"]
        self._hp_after(last)
        self.out.append("")
        self.out.append("== End of game: goal bonuses, then receptor bonuses ==")

    def _final_score(self) -> None:
        self.out.append("")
        self.out.append("== Final score ==")
        for p in self.result.player_records:
            sources = ", ".join(
                f"{name} {hp}" for name, hp in zip(HP_SOURCES, p["hp_by_source"]) if hp
            )
            self.out.append(
                f"{self.seat(p['seat'])}: {p['final_hp']} HP ({sources or 'nothing'}), "
                f"rank {p['rank']}, win share {p['win_share']:.3g}"
            )
        won = [p["seat"] for p in self.result.player_records if p["win_share"] > 0]
        if len(won) == 1:
            self.out.append(f"Winner: {self.seat(won[0])}")
        else:
            self.out.append("Tie, the win is split between " + ", ".join(self.seat(s) for s in won))
