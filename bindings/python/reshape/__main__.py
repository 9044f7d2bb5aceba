"""``python -m reshape``: the ``reshape`` command line (see reshape._cli)."""

import os
import signal
import sys


def _run() -> int:
    # As a command, like the CLI: a closed pipe downstream (`| head`) ends it quietly, and Ctrl-C
    # ends it by SIGINT, as the shell expects. Only here, where this process is the command.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    from ._cli import main

    try:
        return main()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130


if __name__ == "__main__":
    sys.exit(_run())
