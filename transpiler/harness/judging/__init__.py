"""Whether two runs are alike, and what explains or shows where they are not.

The relation (:mod:`.relation`), the readings of declared classes
(:mod:`.readings`), the values at a site (:mod:`.sites`), the differences
field by field (:mod:`.fields`, :mod:`.kinds`), the ``tools/list`` entries
(:mod:`.entries`), and the verdicts' words (:mod:`.verdict`).
"""
