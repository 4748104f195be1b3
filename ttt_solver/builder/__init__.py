"""Building databases: :mod:`.build` solves a variant (:mod:`ttt_solver.solver`) and writes it
all or nothing through the store. The only layer that writes a database; nothing that reads
one imports it."""
