"""A moto server standing in for S3, reached by this process and a Dask cluster's workers
through the standard AWS variables (the workers' set with ``client.run(set_environ, ...)``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def set_environ(values: dict[str, str | None]) -> None:
    """Set (None: unset) variables of this process's environment."""
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@contextmanager
def s3_bucket(client: Any, bucket: str) -> Iterator[str]:
    """A new ``bucket`` on a moto server started here, which this process and ``client``'s
    workers reach during the block; its URL."""
    import fsspec
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env: dict[str, str | None] = {
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
    }  # fmt: skip
    before = {name: os.environ.get(name) for name in env}
    set_environ(env)
    client.run(set_environ, env)
    try:
        fsspec.filesystem("s3", skip_instance_cache=True).mkdir(bucket)
        yield f"s3://{bucket}"
    finally:
        set_environ(before)
        client.run(set_environ, before)
        server.stop()
