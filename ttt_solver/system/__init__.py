"""What the process needs of the machine: memory (:mod:`.memory`: running out is one clear
error, and the default budgets)."""
