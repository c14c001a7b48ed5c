"""One analysis of a tool's workflow, made once per check and handed to every reader of it.

Its template sites (:func:`~transpiler.plan.dataflow.template_sites`), found
once; the dataflow between its steps and what its templates read of each step,
both from those sites (:mod:`transpiler.plan.reads`); and the step deadlines no
script keeps (:func:`~transpiler.emit.timeouts.step_deadlines`). The scenario
shapes (:mod:`.shapes`), the ordinary run (:mod:`.happy`) and the tool's
findings read them here instead of walking the templates again.
"""

from __future__ import annotations

from dataclasses import dataclass

from transpiler.config.model import CompositeToolConfig
from transpiler.emit.timeouts import StepDeadline, step_deadlines
from transpiler.plan.dataflow import DataflowEdge, TemplateSite, dataflow, template_sites
from transpiler.plan.reads import Needs, reads_of, site_reads


@dataclass(frozen=True)
class ToolAnalysis:
    """``tool``'s template ``sites`` in order, the ``edges`` of its dataflow, the ``needs``
    of its templates (which parts of which steps they read) and its step ``deadlines``."""

    tool: CompositeToolConfig
    sites: tuple[TemplateSite, ...]
    edges: tuple[DataflowEdge, ...]
    needs: Needs
    deadlines: tuple[StepDeadline, ...]


def analyse(tool: CompositeToolConfig) -> ToolAnalysis:
    """The :class:`ToolAnalysis` of ``tool``, each template site found once."""
    sites = tuple(template_sites(tool))
    edges = dataflow(tool, sites)
    needs = reads_of(tool, site_reads(tool, sites), edges)
    return ToolAnalysis(tool, sites, edges, needs, step_deadlines(tool))
