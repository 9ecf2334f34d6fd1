# SPDX-License-Identifier: Apache-2.0
"""Training from Python: progress, interruption, the GIL released, threads."""
import os
import signal
import sys
import threading
import time

import pytest

from pbp_edge import PBPRegressor

FAST = dict(recipe="paper", hidden=(10,), epochs=10)


def test_verbose_zero_prints_nothing(capfd, regression):
    PBPRegressor(**FAST, verbose=0).fit(*regression)
    assert capfd.readouterr() == ("", "")


def test_progress_goes_to_stderr(capfd, regression):
    PBPRegressor(**FAST, verbose=1).fit(*regression)
    out, err = capfd.readouterr()
    assert out == "" and "PBPRegressor.fit" in err and "100%" in err


def test_a_callable_sees_every_epoch(regression):
    seen = []
    PBPRegressor(**FAST, verbose=lambda done, total: seen.append((done, total))).fit(*regression)
    assert seen == [(e, 10) for e in range(1, 11)]
    seen.clear()
    PBPRegressor(hidden=(4,), epochs=10, verbose=lambda d, t: seen.append((d, t))).fit(*regression)
    planned = (3 + 1) * 10  # the recipe: 3 folds of one candidate, then the final training
    assert seen[-1] == (planned, planned) and len(seen) == planned


def test_an_exception_in_the_callback_stops_training(regression):
    def stop(done, total):
        if done == 3:
            raise RuntimeError("enough")
    model = PBPRegressor(**FAST, verbose=stop)
    with pytest.raises(RuntimeError, match="enough"):
        model.fit(*regression)
    assert not model.__sklearn_is_fitted__()


def test_ctrl_c_interrupts_training(regression):
    # Ctrl-C while the trainer runs (no Python code in between: the progress callback is a C
    # function) stops it after the epoch, not after the 100 000 planned.
    epochs = {}
    model = PBPRegressor(recipe="paper", hidden=(50,), epochs=100_000,
                         verbose=epochs.__setitem__)

    def interrupt_once_training():
        while not epochs:
            time.sleep(0.001)
        os.kill(os.getpid(), signal.SIGINT)
    # Python raises KeyboardInterrupt only if SIGINT had a handler when it started: a shell
    # running the tests as a background job starts it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt_once_training).start()
        with pytest.raises(KeyboardInterrupt):
            model.fit(*regression)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert 1 <= len(epochs) < 100_000 and not model.__sklearn_is_fitted__()


def test_training_releases_the_gil(regression):
    # With a switch interval longer than the test, a thread holding the GIL keeps it until it
    # blocks: the main thread counts while the fit runs only if training released it.
    X, y = regression
    counts = []
    count = [0]
    started, finished = threading.Event(), threading.Event()

    def progress(done, total):
        started.set()
        counts.append(count[0])

    def fit():
        try:
            PBPRegressor(recipe="paper", hidden=(50,), epochs=1000, verbose=progress).fit(X, y)
        finally:
            finished.set()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        worker = threading.Thread(target=fit)
        worker.start()
        started.wait()
        while not finished.is_set():
            count[0] += 1
            finished.wait(0.0005)  # blocks, so the fit gets the GIL for its callback
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert len(counts) == 1000 and counts[-1] > 0


def test_fits_in_threads_give_the_models_of_fits_in_turn(regression):
    X, y = regression
    expected = [PBPRegressor(**FAST, random_state=s, verbose=0).fit(X, y).blob_ for s in (1, 2)]
    models = [PBPRegressor(**FAST, random_state=s, verbose=0) for s in (1, 2)]
    threads = [threading.Thread(target=m.fit, args=(X, y)) for m in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [m.blob_ for m in models] == expected


def test_hidden_activations(regression):
    """activation= trains erf and sign hidden layers: deterministic, and not ReLU's model."""
    relu = PBPRegressor(**FAST, verbose=0).fit(*regression).predict(regression[0][:5])
    for activation in ("erf", "sign"):
        model = PBPRegressor(**FAST, verbose=0, activation=activation).fit(*regression)
        again = PBPRegressor(**FAST, verbose=0, activation=activation).fit(*regression)
        assert model.blob_ == again.blob_
        assert list(model.predict(regression[0][:5])) != list(relu)
    with pytest.raises(ValueError, match="activation"):
        PBPRegressor(**FAST, verbose=0, activation="tanh").fit(*regression)
