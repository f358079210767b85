"""The SDK installs beside a bot, not beside the server: it must import without FastAPI."""

import subprocess
import sys


def test_the_sdk_imports_without_fastapi_or_starlette() -> None:
    probe = (
        "import sys, agents\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in {'fastapi', 'starlette', 'uvicorn', 'redis'})\n"
        "print(','.join(loaded))\n"
    )
    finished = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert finished.stdout.strip() == ""
