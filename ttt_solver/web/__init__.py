"""``ttt-lookup serve``: the HTTP API and the web explorer (the ``[web]`` extra: FastAPI, uvicorn).

Only :mod:`ttt_solver.cli.serve` imports this package, so the lookup commands never pay for it.
:mod:`.data` is the one module that calls into the oracle and the store.
"""
