"""Ctrl-C in a script: the run stops at the next update with a checkpoint, the call raises
KeyboardInterrupt, Python's own Ctrl-C works again afterwards, and dsgd.resume finishes the run
exactly as the uninterrupted one went."""
import os
import signal
import subprocess
import sys
import time

import pandas as pd

import dsgd

KEYS = dict(algo="dana-zero", workers=4, epochs=1.5, eval_every=0.25, threads=1, seed=5)

SCRIPT = f"""
import os, signal, sys
import dsgd
try:
    dsgd.train("lenet5-bn", "fashion-mnist", out="stopped", progress="lines", **{KEYS!r})
except KeyboardInterrupt as e:
    print("KeyboardInterrupt:", str(e).splitlines()[0], flush=True)
    print(type(e).__name__, e.exit_code, isinstance(e, Exception), flush=True)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    try:
        os.kill(os.getpid(), signal.SIGINT)  # the next Ctrl-C: Python's, as before the run
        signal.pause()
    except KeyboardInterrupt:
        print("the next Ctrl-C works", flush=True)
        sys.exit(7)
print("finished without an interrupt", flush=True)
"""


def test_sigint_stops_with_a_checkpoint_raises_keyboard_interrupt_and_resume_finishes_exactly():
    with open("script.py", "w") as f:
        f.write(SCRIPT)
    child = subprocess.Popen([sys.executable, "script.py"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    # Once the first evaluation's checkpoint is written, training is under way: Ctrl-C then.
    deadline = time.time() + 300
    for line in child.stderr:
        if "checkpoint at update" in line:
            child.send_signal(signal.SIGINT)
            break
        assert time.time() < deadline, "no evaluation within 300 s"
    out, err = child.communicate(timeout=300)
    assert child.returncode == 7, out + err
    assert "KeyboardInterrupt: interrupted by SIGINT" in out
    # dsgd.RunInterrupted, with the CLI's exit code, and not an Exception (`except Exception`
    # must not swallow a Ctrl-C).
    assert "RunInterrupted 130 False" in out
    assert "the next Ctrl-C works" in out
    assert os.path.exists("stopped/checkpoint.pt")
    assert dsgd.Run("stopped").status == "interrupted"

    resumed = dsgd.resume("stopped", progress=None)
    assert resumed.status == "ok"
    whole = dsgd.train("lenet5-bn", "fashion-mnist", out="whole", progress=None, **KEYS)
    pd.testing.assert_frame_equal(resumed.metrics.drop(columns=["wall_time"]),
                                  whole.metrics.drop(columns=["wall_time"]))
