"""What ``check`` writes and reads back: its reports (:mod:`.reports`), GitHub annotations
(:mod:`.github`) at the places a reviewer should read (:mod:`.places`), and an earlier report
for ``--since`` (:mod:`.since`)."""
