"""The solver: every position of a variant solved by retrograde analysis over tiers of
positions (see :mod:`.tiers` and :mod:`.passes`), and the memoised negamax kept as the
independent reference (:mod:`.reference`)."""
