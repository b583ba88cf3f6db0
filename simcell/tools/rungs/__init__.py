"""A run's rungs: its first deals played again under each rung of `[report] rungs` (stronger or
independently fitted fields), so that every headline verdict can be checked across skill
(reports/across_skill.py reads them)."""

from simcell.tools.rungs.loop import run_rungs

__all__ = ["run_rungs"]
