"""Long library calls that Ctrl-C can stop, without changing anything process-wide.

A signal handler runs on the main thread only, at the next bytecode boundary: when the library
calls back into Python there, that is the first instruction of the callback, before any of its
code can catch what the handler raises. ctypes would then pass the exception (KeyboardInterrupt on
Ctrl-C) to sys.unraisablehook, print it, and hand the library an undefined return value.

So a call made on the main thread runs on a helper thread, where no signal handler ever runs,
while the main thread waits for it in Python code that catches what a handler raises: it then
asks the call to stop (the callbacks answer "cancel" from then on), waits for the library to
return, and raises the exception. The `progress` callable is still called on the caller's thread:
the helper thread hands each report over and waits for it. A call made on any other thread runs
where it is, with its callbacks there too.
"""

import threading
from typing import Any, Callable, List, Optional, Tuple, TypeVar

T = TypeVar("T")

#: How often a waiting thread looks again (seconds). The caller's thread never blocks without a
#: timeout: a signal that lands just before it blocks (its C handler runs, but the wait has not
#: begun, so nothing interrupts it) is then handled at the next look, not never.
_POLL = 0.05


class Call:
    """One call of the library with callbacks: progress reports, cancellation, kept exceptions.

    The callbacks (`report`, and any other that checks `cancelled`) run on the thread of the
    library call. An exception cannot cross the library's C frames: one raised by ``progress`` or
    by a signal handler is kept in `raised`, `cancelled` turns true, and the callbacks answer
    "stop" from then on; `run` raises it once the library has returned.
    """

    def __init__(self, progress: Optional[Callable[[int, int], object]] = None) -> None:
        self.progress = progress
        self.raised: Optional[BaseException] = None
        self.cancelled = False
        self._relayed = False
        self._finished = False
        self._pending: Optional[threading.Event] = None
        self._messages: Any = None  # a queue.SimpleQueue while the call runs on a helper thread

    def fail(self, error: BaseException) -> None:
        """Keeps the first exception, and makes every callback answer "stop" from now on."""
        if self.raised is None:
            self.raised = error
        self.cancelled = True
        pending = self._pending
        if pending is not None:
            pending.set()

    def report(self, done: int, total: int) -> int:
        """The progress callback's body: 0 to go on, 1 to cancel."""
        if self.progress is None:
            return 1 if self.cancelled else 0
        return self.call_back(self.progress, done, total)

    def call_back(self, function: Callable[..., object], *arguments: Any) -> int:
        """Calls ``function(*arguments)`` on the caller's thread (relayed there from the helper
        thread, which waits for it): 0 to go on, 1 to cancel. What it raises is kept (`fail`)."""
        if self.cancelled:
            return 1
        if not self._relayed:
            try:
                function(*arguments)
            except BaseException as error:  # noqa: B902 - raised again by run()
                self.fail(error)
                return 1
            return 0
        reply = threading.Event()
        self._messages.put((function, arguments, reply))
        while not reply.wait(_POLL):
            if self.cancelled:
                return 1
        return 1 if self.cancelled else 0

    def run(self, work: Callable[[], T]) -> T:
        """Runs `work` (the library call), and raises what a callback or a signal handler raised."""
        if threading.current_thread() is not threading.main_thread():
            result = work()
        else:
            result = self._run_beside(work)
        if self.raised is not None:
            raised, self.raised = self.raised, None
            raise raised
        return result

    def _run_beside(self, work: Callable[[], T]) -> T:
        from queue import SimpleQueue  # here, not at import: `import reshape` stays quick

        outcome: List[Tuple[bool, Any]] = []
        self._messages = SimpleQueue()
        self._relayed = True
        # The helper calls the library only once the main thread is in the loop below, which
        # catches what a signal handler raises: Ctrl-C inside thread.start() (which waits for the
        # new thread) would otherwise leave the library running, on the caller's buffers, after
        # the caller has gone on. Then the helper is told to give up without calling it.
        go = threading.Event()
        abandoned = [False]

        def helper() -> None:
            go.wait()
            try:
                if not abandoned[0]:
                    outcome.append((True, work()))
            except BaseException as error:  # noqa: B902 - a bug of the binding: raised on the caller's thread
                outcome.append((False, error))
            finally:
                self._finished = True
                self._messages.put(None)

        thread = threading.Thread(target=helper, name="reshape call", daemon=True)
        serving = False
        while True:
            try:
                if not serving:
                    try:
                        thread.start()
                    except RuntimeError:  # no new threads (the interpreter is shutting down): call here
                        self._relayed = False
                        return work()
                    serving = True
                # From here until the helper has finished, whatever a signal handler raises is
                # caught, and the wait goes on: the library reads the caller's buffers and rules.
                go.set()
                self._serve()
                thread.join()
                break
            except BaseException as error:  # noqa: B902 - raised again by run()
                if not serving:
                    abandoned[0] = True
                    go.set()
                    raise
                self.fail(error)
        succeeded, value = outcome[0]
        if not succeeded:
            raise value
        return value  # type: ignore[no-any-return]

    def _serve(self) -> None:
        """On the caller's thread: makes each call the helper relays (`call_back`), until it finishes."""
        from queue import Empty

        while not self._finished:
            try:
                message = self._messages.get(timeout=_POLL)
            except Empty:
                continue
            if message is None:
                continue
            function, arguments, reply = message
            self._pending = reply
            if not self.cancelled:
                try:
                    function(*arguments)
                except BaseException as error:  # noqa: B902 - raised again by run()
                    self.fail(error)
            self._pending = None
            reply.set()
