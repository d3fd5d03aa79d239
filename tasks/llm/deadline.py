"""A wall deadline for the WHOLE of one HTTP call: connection, retries and every byte of the reply.

The HTTP clients' own timeouts (``httpx``'s and ``requests``' ``read``) bound the wait for each
read, not the reply: a server answering 200 and then one byte every 2 s never times out
(attack5 case 42 kept a run going past 400 s). :class:`Deadline` adds the missing bound: a timer
that, when the deadline passes, shuts down (``socket.shutdown(SHUT_RDWR)``) the socket of every
reply still being read, so the blocked read returns at once and the client fails with a
connection error; the caller then sees :attr:`Deadline.passed` and says one line. Requests
still to be made are refused by :meth:`Deadline.left` (zero left) and their per-read timeout
is capped to what is left, so the wait for a reply's headers ends by the deadline too.

Hooks: for the ``anthropic`` SDK, :meth:`Deadline.middleware` (a client middleware: each
attempt's timeouts capped) and :meth:`Deadline.httpx_hook` (its ``httpx`` client's response
event hook, run before the body is read; the socket is httpcore's ``network_stream``
extension); :meth:`Deadline.requests_hook` for ``requests`` (a response hook runs before the
body of a non-streamed reply is read; the socket is urllib3's ``response.connection.sock``).

The same hooks bound the reply's size while it arrives (``max_bytes``, :func:`tasks.llm.limits.max_reply_bytes`):
each reply's body is counted as its chunks are read (decoded, so a compressed reply counts at its
size unpacked), and past ``max_bytes`` the read stops with :class:`ReplyTooLarge`, the socket is
shut and :attr:`Deadline.too_large` set; no attempt is made after it (a larger reply would come
again). A 256 MB reply was once read whole (1.56 GB of memory) before the 16 M characters a reply
may be were counted (attack7 row 24).
"""

from __future__ import annotations

import logging
import socket
import threading
import time

from urllib3.util import Retry


class _NoRetryLines(logging.Filter):
    """Drops urllib3's ``Retrying (Retry(total=…)) after connection broken by …`` warnings: a
    call that fails after its retries is one line of ours naming its attempts (the Mathpix
    client, the OpenAI-compatible backends), and an image Mathpix linked that could not be
    fetched printed three of these first (attack7 row 52)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Retrying (")


logging.getLogger("urllib3.connectionpool").addFilter(_NoRetryLines())


class DeadlinePassed(Exception):
    """A request was to start after the deadline had passed (not retried by the SDKs)."""


class ReplyTooLarge(DeadlinePassed):
    """A reply's body passed the call's ``max_bytes`` while it was read (and no attempt is
    made after it: a subclass of :class:`DeadlinePassed`, which the SDKs do not retry)."""


class WaitPastDeadline(DeadlinePassed):
    """The wait before the next attempt (a server's ``Retry-After``, or the backoff) would end
    after the deadline: the call fails now, in one line, instead of sleeping past it."""


class Deadline:
    """``seconds`` (a positive number) from the call's first request; ``attempt`` the client's
    own timeout of one attempt (the middleware's cap when a request names none). Use as a context manager
    around the call: the clock starts at the first :meth:`left` (the first HTTP attempt, not
    the client's set-up: the SDK's first use imports its types, seconds on a loaded machine),
    the timer is cancelled on exit; :attr:`passed` is True once the deadline passed (the
    caller's failure is then this deadline's)."""

    def __init__(self, seconds: float, attempt: float | None = None, max_bytes: int | None = None,
                 setting: str = "SHEET2LAMBDA_LLM_DEADLINE"):
        self.seconds = seconds
        self.setting = setting  # the variable that sets it, named when a wait would pass it
        self.max_bytes = max_bytes
        self.too_large = False
        self.attempt = attempt  # the client's own timeout for an attempt, capped by the middleware
        self.ends: float | None = None
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()
        with self._lock:
            self._sockets.clear()

    def start(self) -> None:
        """Start the clock (once; later calls do nothing)."""
        with self._lock:
            if self.ends is None:
                self.ends = time.monotonic() + self.seconds
                self._timer.start()

    def left(self) -> float:
        """Seconds left (the clock started if it was not); raises :class:`DeadlinePassed`
        when none are."""
        self.start()
        if self.too_large:
            raise ReplyTooLarge(self.too_large_reason())
        left = self.ends - time.monotonic()
        if left <= 0:
            self.passed = True
            raise DeadlinePassed(f"no whole reply within {self.seconds:g} s")
        return left

    def wait(self, seconds: float, asked: bool = False) -> None:
        """Sleep ``seconds`` before the next attempt (``asked``: the server's ``Retry-After``,
        else our backoff) when the wait ends before the deadline; else raise
        :class:`WaitPastDeadline` at once (one line naming the wait, the seconds left and
        :attr:`setting`), or :class:`DeadlinePassed` when none are left. Every retry wait of
        every client goes through here, so none outlasts the call's deadline."""
        left = self.left()
        if seconds >= left:
            what = f"the server asked to wait {seconds:g} s (Retry-After)" if asked else f"the backoff of {seconds:g} s"
            raise WaitPastDeadline(f"{what} would end past the deadline ({left:.0f} s left of {self.seconds:g} s, "
                                   f"{self.setting}): not retried")
        if seconds > 0:
            time.sleep(seconds)

    def too_large_reason(self) -> str:
        """The one line for a reply cut at ``max_bytes``."""
        return (f"a reply over {self.max_bytes / (1 << 20):g} MiB (SHEET2LAMBDA_MAX_REPLY_MIB): "
                "not read past it, not taken")

    def count(self, chunks, sock=None):
        """``chunks`` (an iterator of bytes) passed on while they add up to at most
        ``max_bytes``; past it :attr:`too_large` is set, ``sock`` shut, and
        :class:`ReplyTooLarge` raised before the chunk that passed it is handed on."""
        seen = 0
        for chunk in chunks:
            seen += len(chunk)
            if self.max_bytes is not None and seen > self.max_bytes:
                self.too_large = True
                if isinstance(sock, socket.socket):
                    _shut(sock)
                raise ReplyTooLarge(self.too_large_reason())
            yield chunk

    def watch(self, sock) -> None:
        """Shut ``sock`` down when the deadline passes (at once if it already has)."""
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            if not self.passed:
                self._sockets.append(sock)
                return
        _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _shut(sock)

    def middleware(self, request, call_next):
        """``anthropic`` client middleware (runs once per HTTP attempt, retries included): no
        attempt after the deadline, and each attempt's timeouts capped to what is left."""
        timeout = request.timeout if isinstance(request.timeout, (int, float)) else self.attempt
        left = self.left()
        cap = left if timeout is None else min(float(timeout), left)
        return call_next(request.copy(timeout=cap))

    def httpx_hook(self, response) -> None:
        """``httpx`` response event hook (it runs once the headers are in, before the body is
        read: the SDK's middleware sees the response only once its body is read): the
        reply's socket (httpcore's ``network_stream`` extension) is watched."""
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        self.watch(sock)
        if self.max_bytes is not None:
            response.stream = _counted_httpx_stream(response.stream, self, sock)

    def requests_hook(self, response, *args, **kwargs):
        """``requests`` response hook: the reply's socket is watched while its body is read."""
        connection = getattr(response.raw, "connection", None)
        sock = getattr(connection, "sock", None)
        self.watch(sock)
        raw = response.raw
        if self.max_bytes is not None and hasattr(raw, "stream"):
            read = raw.stream  # requests reads a body through raw.stream(chunk, decode_content=True)
            raw.stream = lambda *a, **k: self.count(read(*a, **k), sock)
        return response


def _counted_httpx_stream(stream, deadline: Deadline, sock):
    """``stream`` (an ``httpx``/``httpx2`` response's byte stream) with its chunks counted by
    :meth:`Deadline.count`: an instance of the client's own ``SyncByteStream`` (which the
    response checks it is), found on ``stream``'s class so either client works."""
    base = next((c for c in type(stream).__mro__ if c.__name__ == "SyncByteStream"), object)

    class Counted(base):
        def __iter__(self):
            return deadline.count(iter(stream), sock)

        def close(self) -> None:
            stream.close()

    return Counted()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: nothing is reading it


class DeadlineRetry(Retry):
    """``urllib3``'s ``Retry`` whose wait between attempts is bounded by ``deadline`` (a
    :class:`Deadline`, keyword ``deadline``): a wait (``Retry-After``, already capped by
    ``retry_after_max``, else the backoff) that would end after the deadline raises
    :class:`WaitPastDeadline` at once (naming the wait asked and the seconds left) rather than
    sleeping; none left raises :class:`DeadlinePassed`. Both leave ``requests``' ``post``
    uncaught (not an ``OSError``), so the caller says its one line. Without a deadline it is
    ``Retry`` itself. (Attacker round 8: ``Retry-After: 100000`` kept a run waiting 240 s and
    more past a 30 s deadline.)"""

    def __init__(self, *args, deadline: Deadline | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = deadline

    def new(self, **kw) -> DeadlineRetry:
        retry = super().new(**kw)  # urllib3 copies only its own parameters: the deadline goes with it
        retry.deadline = self.deadline
        return retry

    def sleep(self, response=None) -> None:
        if self.deadline is None:
            return super().sleep(response)
        asked = self.get_retry_after(response) if self.respect_retry_after_header and response else None
        self.deadline.wait(asked if asked else self.get_backoff_time(), asked=bool(asked))
