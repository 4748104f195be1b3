"""Charts drawn with matplotlib (the ``[plot]`` extra, imported only when a chart is drawn): a
tournament's results (:mod:`.tournament_chart`) and a solved variant's counts
(:mod:`.variant_chart`)."""
