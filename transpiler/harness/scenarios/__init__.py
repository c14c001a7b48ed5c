"""The scenarios ``check`` runs: what a tool's templates read, and the data drawn to fill it.

The shapes its backends' answers must fill (:mod:`.shapes`), the ordinary run
(:mod:`.happy`), every outcome combination (:mod:`.paths`), seeded random draws
(:mod:`.generate` over :mod:`.draws`), answers that take time (:mod:`.timed`),
probes of what the script alone reads (:mod:`.probes` from :mod:`.scriptreads`),
and random composite tools for testing the transpiler (:mod:`.workflows`).
"""
