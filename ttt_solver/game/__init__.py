"""The game: board geometry (:mod:`.variant`), notation, legality and the rules of play
(:mod:`.rules`, with the :class:`~.rules.Board` wrapper), symmetry (:mod:`.symmetry`), integer
codes (:mod:`.codec`), the same rules over numpy arrays of codes (:mod:`.array_rules`), the rule
that values a position from its moves (:mod:`.values`) and "did you mean" (:mod:`.suggest`).
Pure Python, except :mod:`.array_rules`."""
