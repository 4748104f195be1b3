"""What the process needs of the machine: memory (:mod:`.memory`: running out is one clear
error, and the default budgets), and what a build takes of it (:mod:`.cost_model`)."""
