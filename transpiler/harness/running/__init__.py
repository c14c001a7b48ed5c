"""Running both sides and deciding: one tool checked (:mod:`.check`), one served call judged
(:mod:`.replay`)."""
