"""A run directory as the report reads it: metadata, the resolved config, block aggregates, and
record columns loaded on demand (only the columns a section needs, one segment at a time)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from simcell.vocabulary import COMPLETED_TYPES, HP_SOURCES, MIN_PLAYERS, RECORD_COLUMNS_ADDED, RESOLVED_FILE, RUN_FILE


class ReportError(Exception):
    """A directory the report cannot be built from."""


@dataclass(frozen=True)
class SegmentInfo:
    players: int
    field: int
    field_name: str
    games: int
    rotations: int
    blocks: int
    policies: tuple[str, ...]  # the records' policy labels, in label order
    homogeneous: bool

    @property
    def label(self) -> str:
        return f"{self.players}p · {self.field_name}"


class RunData:
    def __init__(self, root: Path):
        self.root = Path(root)
        run = self.root / RUN_FILE
        if not run.is_file():
            raise ReportError(f"{self.root} is not a simcell run directory (no run.json)")
        self.meta = json.loads(run.read_text())
        if self.meta.get("status") != "complete":
            raise ReportError(
                f"{self.root}: the run is {self.meta.get('status')!r}, not complete; finish it with "
                f"simcell run CONFIG --resume {self.root}"
            )
        self.resolved = json.loads((self.root / RESOLVED_FILE).read_text())
        self.cache: dict = {}  # figures several sections share, computed once
        fields = self.resolved["fields"]
        self.segments = []
        for s in self.resolved["segments"]:
            f = fields[s["field"]]
            if "policy" in f:
                by_player = [f["policy"]] * s["players"]
            elif "seats" in f:
                by_player = f["seats"]
            else:
                by_player = [f["pool"][i % len(f["pool"])] for i in range(s["players"])]
            labels = tuple(dict.fromkeys(by_player))
            self.segments.append(SegmentInfo(s["players"], s["field"], s["field_name"], s["games"],
                                             s["rotations"], s["blocks"], labels, len(labels) == 1))

    @property
    def seed(self) -> int:
        return int(self.resolved["seed"])

    def rounds(self, players: int) -> int:
        """Rounds of every game at this player count: one per event revealed, plus the last
        (docs/rules.md §2; fixed by the event deck, so game length is not a random figure)."""
        return len(self.game["events"]) - self.game["board"]["events_set_aside"][players - MIN_PLAYERS] + 1

    def seat_band(self, players: int) -> float:
        """The seat band (pp of win share) at this player count: the config's, or its band in ATP
        times the calibrated win share per ATP at that player count."""
        r = self.resolved["report"]
        by_players = r.get("seat_band_pp")
        return float(by_players[str(players)]) if by_players else float(r["bands"]["seat_win_share_pp"])

    def seat_band_label(self) -> str:
        """The seat band as the report states it: "±2 pp", or "±1 ATP (≈ ±1.02 pp at 5 players)"."""
        r = self.resolved["report"]
        by_players = r.get("seat_band_pp")
        if not by_players:
            return f"±{float(r['bands']['seat_win_share_pp']):g} pp"
        pp = ", ".join(f"±{v:.2f} pp at {p} players" for p, v in by_players.items())
        return f"±{float(r['bands']['seat_win_share_atp']):g} ATP (≈ {pp}, calibrated)"

    @property
    def game(self) -> dict:
        return self.resolved["game"]["definition"]

    @cached_property
    def card_names(self) -> dict[int, str]:
        return {c["id"]: c["name"] for c in self.game["cards"]}

    @cached_property
    def card_types(self) -> dict[int, str]:
        return {c["id"]: c["type"] for c in self.game["cards"]}

    def blocks(self, name: str) -> pd.DataFrame:
        path = self.root / "blocks" / f"{name}.parquet"
        if not path.is_file():
            raise ReportError(f"{path} is missing: the run directory is incomplete")
        return pd.read_parquet(path)

    @cached_property
    def seat_blocks(self) -> pd.DataFrame:
        return self.blocks("seat")

    def seg_blocks(self, name: str, seg: SegmentInfo) -> pd.DataFrame:
        df = self.blocks(name) if name != "seat" else self.seat_blocks
        return df[(df["players"] == seg.players) & (df["field"] == seg.field)]

    def _parts(self, table: str, seg: SegmentInfo) -> list[Path]:
        folder = self.root / table / f"players={seg.players}" / f"field={seg.field}"
        if not folder.is_dir():
            raise ReportError(f"{folder} is missing: the run directory is incomplete")
        return sorted(folder.glob("part-*.parquet"))

    def record_columns(self, table: str, seg: SegmentInfo) -> list[str]:
        """The columns a segment's record table holds (those of its first part)."""
        parts = self._parts(table, seg)
        return pq.ParquetFile(parts[0]).schema_arrow.names if parts else []

    def _held(self, table: str, seg: SegmentInfo, columns: list[str]) -> tuple[list[str], dict]:
        """The columns to read from the part files, and those a run of an older record schema
        lacks, with the value its games held (vocabulary.RECORD_COLUMNS_ADDED)."""
        have = set(self.record_columns(table, seg))
        added = {c: RECORD_COLUMNS_ADDED[c] for c in columns if c not in have and c in RECORD_COLUMNS_ADDED}
        return [c for c in columns if c not in added], added

    def record_parts(self, table: str, seg: SegmentInfo, columns: list[str]) -> Iterator[pd.DataFrame]:
        """As `records`, one part file at a time (each holds consecutive games, game-major and
        seat-minor), for figures that are sums over games: memory stays that of one part however
        many games the run has."""
        keys = ["game", "seat"] if table == "players" else ["game"]
        cols, added = self._held(table, seg, list(dict.fromkeys(keys + columns)))
        last = -1
        for path in self._parts(table, seg):
            # ParquetFile.read, not pq.read_table: the same table without the dataset layer,
            # 1.9 ms a part instead of 4.8 (a 1M-game report reads ~500 parts a process)
            df = pq.ParquetFile(path).read(columns=cols).to_pandas().assign(**added)
            games = df["game"].to_numpy()
            if len(games) and (games[0] <= last or np.any(games[1:] < games[:-1])):
                raise ReportError(f"{path}: records out of game order")
            last = games[-1] if len(games) else last
            yield df

    def records(self, table: str, seg: SegmentInfo, columns: list[str]) -> pd.DataFrame:
        """Columns of a segment's records, in game (and seat) order."""
        files = self._parts(table, seg)
        keys = ["game", "seat"] if table == "players" else ["game"]
        cols, added = self._held(table, seg, list(dict.fromkeys(keys + columns)))
        df = ds.dataset(files, format="parquet").to_table(columns=cols).to_pandas().assign(**added)
        # parts hold consecutive games in file-name order, game-major and seat-minor inside
        order = df["game"].to_numpy() * 8 + (df["seat"].to_numpy() if "seat" in df else 0)
        if len(order) > 1 and not np.all(order[1:] > order[:-1]):
            df = df.sort_values(keys, kind="stable").reset_index(drop=True)
        return df

    def block_of_games(self, seg: SegmentInfo, games: np.ndarray) -> np.ndarray:
        groups = seg.games // seg.rotations
        return (np.asarray(games, np.int64) // seg.rotations) * seg.blocks // groups


HP_SOURCE_COLUMNS = [f"hp_{s}" for s in HP_SOURCES]
COMPLETED_COLUMNS = [f"completed_{t}" for t in COMPLETED_TYPES]
