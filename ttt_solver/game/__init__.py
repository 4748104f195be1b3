"""The game: board geometry (:mod:`.variant`), notation and rules (:mod:`.board`), symmetry
(:mod:`.symmetry`), integer codes (:mod:`.codec`) and the rule that values a position from
its moves (:mod:`.values`). Pure Python, except the vectorised half of :mod:`.codec`."""
