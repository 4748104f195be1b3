"""The players: the seeds' agents and the perfect one (:mod:`.agents`), exact and sampled
matches (:mod:`.arena`), round robins and accuracy (:mod:`.tournament`)."""
