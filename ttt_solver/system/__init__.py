"""What the process needs of the machine: memory (:mod:`.memory`: running out is one clear
error, and the default budgets), what a build takes of it (:mod:`.cost_model`), and whether the
compiled loops run (:mod:`.compiled_loops`)."""
