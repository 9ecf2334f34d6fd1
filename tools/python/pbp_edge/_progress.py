# SPDX-License-Identifier: Apache-2.0
"""Training progress, the Python way: tqdm when it is installed, else one line on stderr."""
import sys
import time


def progress_callback(verbose, label):
    """What fit passes to the trainer: None (silent), a bar, or the user's callable."""
    if callable(verbose):
        return verbose
    if not verbose:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _TextBar(label)
    return _TqdmBar(tqdm, label)


def close(callback):
    if isinstance(callback, (_TextBar, _TqdmBar)):
        callback.close()


class _TextBar:
    """'PBPRegressor.fit: 45% (900/2000 epochs)', redrawn at most 10 times a second."""

    def __init__(self, label, stream=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.drawn = False
        self.last = 0.0

    def __call__(self, done, total):
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        percent = 100 * done // max(total, 1)
        self.stream.write(f"\r{self.label}: {percent:3d}% ({done}/{total} epochs)")
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


class _TqdmBar:
    def __init__(self, tqdm, label):
        self.tqdm = tqdm
        self.label = label
        self.bar = None

    def __call__(self, done, total):
        if self.bar is None:
            self.bar = self.tqdm(total=total, desc=self.label, unit="epoch")
        self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()
