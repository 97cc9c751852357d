"""Reports a designer would share: figures, a plain-text verdict and provenance in one
self-contained HTML page, plus each figure as PNG and SVG.

    from sim.report import report_run
    report_run(sim.run("scenarios/gods_and_monsters/yeti.yaml"), "reports/yeti")

Figure functions (sim.report.figures, sim.report.analysis_figures) take plain
DataFrames and return matplotlib Figures, for use in notebooks.
"""
from sim.report.build import (analysis_figure, report_frame, report_results, report_run, report_sensitivity,
                              report_sweep, report_tournament, report_tune)
from sim.report.compare import report_comparison
from sim.report.tables import RunTables, load_tables

__all__ = ["report_run", "report_results", "report_sweep", "report_sensitivity", "report_tournament", "report_tune",
           "report_frame", "report_comparison", "analysis_figure", "RunTables", "load_tables"]
