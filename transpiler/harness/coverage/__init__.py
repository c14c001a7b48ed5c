"""How much a check proves: what its scenarios reached, and the slips it must catch.

What the scenarios reached of the workflow and the script (:mod:`.coverage`,
against the script's map, :mod:`.scriptmap`), and mutants of a script for the
gate to catch (:mod:`.mutants`).
"""
