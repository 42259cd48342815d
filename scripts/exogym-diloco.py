"""EXO Gym's DiLoCo on dsgd's char-level Shakespeare, for comparing with dsgd's DiLoCo.

Runs EXO Gym's own Trainer and DiLoCoStrategy (N simulated workers = N processes joined by
torch.distributed gloo on this machine's CPU) on EXO Gym's example nanoGPT, fed the corpus that
scripts/prepare-shakespeare.sh writes, tokenised as dsgd tokenises it ("characters": the sorted
unique characters of the files read in name order, each ending in a newline; the last 10% of the
tokens held out for validation). It prints and writes a JSON with EXO Gym's own validation losses
(its validation.csv: "global" = the average of the workers' models, "local" = worker 0's), a
final validation loss of the returned (averaged) model over dsgd's validation windows
(consecutive seq_len + 1 token windows from the start of the held-out text), and wall seconds
per step.

EXO Gym is not on PyPI in usable form (PyPI's `exogym` 0.0.0a0 is an empty placeholder), so it
lives in its own venv, installed from a source snapshot of exo-explore/gym, outside this repo:

    python3 -m venv /work/exogym-venv
    /work/exogym-venv/bin/pip install torch numpy tqdm psutil einops
    /work/exogym-venv/bin/pip install --no-deps /work/exogym-src   # the exo-explore/gym tree

Its nanoGPT is in the snapshot's example/nanogpt (not installed by pip): --exogym-example.

    /work/exogym-venv/bin/python scripts/exogym-diloco.py --workers 4 --steps 20 --H 5 \
        --out /tmp/exogym-w4.json

Two EXO Gym defects are worked around here and named in the JSON: its gloo setup sets
GLOO_SOCKET_IFNAME=lo0 (macOS's loopback; Linux's is lo), and on CPU its DiLoCo aliases worker
0's parameters to the outer (master) copy after the first outer step, so later outer gradients
are zero (--fix-cpu-alias makes that copy; off by default, to measure EXO Gym as it is).
"""

import argparse
import csv
import importlib.metadata
import json
import os
import sys
import tempfile
import time

# Every simulated worker is a process; one thread each keeps 8 of them from fighting over cores.
# Set before torch is imported; the spawned workers inherit it.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

EXAMPLE_DEFAULT = os.environ.get("EXOGYM_EXAMPLE", "/work/exogym-src/example/nanogpt")
# The spawned workers import this file as __mp_main__ and inherit sys.path, so the patches and
# the nanoGPT import below run in them too.
if "--exogym-example" in sys.argv:
    EXAMPLE_DEFAULT = sys.argv[sys.argv.index("--exogym-example") + 1]
sys.path.insert(0, EXAMPLE_DEFAULT)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import exogym.trainer  # noqa: E402
from exogym.strategy.diloco import DiLoCoCommunicator, DiLoCoStrategy  # noqa: E402
from exogym.strategy.optim import OptimSpec  # noqa: E402
from exogym.train_node import TrainNode  # noqa: E402
from exogym.trainer import Trainer  # noqa: E402

from gpt_dataset import ContiguousGPTTrainDataset  # noqa: E402  (EXO Gym's example)
from nanogpt import GPT, GPTConfig  # noqa: E402  (EXO Gym's example)


# --- EXO Gym on Linux: exogym/utils.py sets GLOO_SOCKET_IFNAME=lo0, which gloo cannot find here.
def _init_process_group_linux(backend, rank, world_size, retries=10):
    port = int(os.environ.get("MASTER_PORT", "29500")) + 199  # as exogym.utils does
    os.environ["MASTER_ADDR"] = "localhost"
    if backend == "gloo":
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    errors = []
    for _ in range(retries):
        try:
            os.environ["MASTER_PORT"] = str(port)
            dist.init_process_group(backend, rank=rank, world_size=world_size)
            return
        except Exception as e:  # noqa: BLE001
            errors.append(str(e))
            port += 1
    raise RuntimeError(f"init_process_group failed: {errors}")


exogym.trainer.init_process_group_portsafe = _init_process_group_linux

# --- Instrumentation (rank 0): wall time of the training loop less evaluations, and the outer
# gradient's norm at each outer step (zero after the first shows the CPU aliasing).
_outer_grad_norms = []
_original_set_master_grad = DiLoCoCommunicator._set_master_grad


def _set_master_grad_recorded(self, model):
    _original_set_master_grad(self, model)
    norm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in self.master_model.parameters()))
    _outer_grad_norms.append(float(norm))


DiLoCoCommunicator._set_master_grad = _set_master_grad_recorded


def _synchronize_master_model_copied(self, model):
    for name, param in model.named_parameters():
        param.data = self.master_model.state_dict()[name].data.to(param.device).clone()


if os.environ.get("EXOGYM_FIX_CPU_ALIAS") == "1":
    DiLoCoCommunicator._synchronize_master_model = _synchronize_master_model_copied

_original_evaluate = TrainNode._evaluate
_original_train = TrainNode.train
_original_train_step = TrainNode._train_step
_step_seconds = []


def _train_step_timed(self):
    start = time.perf_counter()
    _original_train_step(self)
    _step_seconds.append(time.perf_counter() - start)


def _evaluate_timed(self):
    start = time.perf_counter()
    _original_evaluate(self)
    self._eval_seconds = getattr(self, "_eval_seconds", 0.0) + time.perf_counter() - start


def _train_timed(self):
    start = time.perf_counter()
    state = _original_train(self)
    total = time.perf_counter() - start
    if self.rank == 0:
        master = self.strategy.diloco_comm.master_model
        aliased = master is not None and all(
            p.data_ptr() == m.data_ptr()
            for p, m in zip(self.model.parameters(), master.parameters())
        )
        with open("exogym_rank0_timing.json", "w") as f:
            json.dump({"train_seconds": total, "eval_seconds": getattr(self, "_eval_seconds", 0.0),
                       "steps": int(self.local_step), "step_seconds": _step_seconds,
                       "outer_grad_norms": _outer_grad_norms,
                       "worker0_params_alias_master": aliased}, f)
    return state


TrainNode._evaluate = _evaluate_timed
TrainNode._train_step = _train_step_timed
TrainNode.train = _train_timed


def char_corpus(folder, validation_fraction=0.1):
    """dsgd's read_text_corpus(folder, characters): ids, vocabulary, train and validation."""
    names = sorted(n for n in os.listdir(folder)
                   if n.endswith(".txt") and os.path.isfile(os.path.join(folder, n)))
    if not names:
        sys.exit(f"no .txt files in {folder}: run scripts/prepare-shakespeare.sh")
    text = ""
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            text += f.read().decode("utf-8")
        if text and not text.endswith("\n"):
            text += "\n"
    vocabulary = sorted(set(text))  # code-point order = dsgd's UTF-8 byte order
    id_of = {c: i for i, c in enumerate(vocabulary)}
    ids = np.fromiter((id_of[c] for c in text), dtype=np.int64, count=len(text))
    held_out = max(1, int(np.floor(len(ids) * validation_fraction + 0.5)))  # llround
    return ids[: len(ids) - held_out], ids[len(ids) - held_out:], vocabulary, len(names)


def validation_windows(tokens, seq_len, max_windows):
    """dsgd's validation_windows: consecutive seq_len + 1 windows overlapping by one token."""
    windows = (len(tokens) - 1) // seq_len
    if max_windows > 0:
        windows = min(windows, max_windows)
    index = np.arange(windows)[:, None] * seq_len + np.arange(seq_len + 1)[None, :]
    return torch.from_numpy(tokens[index])


@torch.no_grad()
def mean_loss(model, windows, batch=256):
    model.eval()
    total, count = 0.0, 0
    for start in range(0, windows.shape[0], batch):
        w = windows[start:start + batch]
        total += float(model((w[:, :-1], w[:, 1:]))) * w.shape[0]
        count += w.shape[0]
    return total / count


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "data", "shakespeare"))
    p.add_argument("--exogym-example", default=EXAMPLE_DEFAULT,
                   help="EXO Gym's example/nanogpt folder (its GPT and datasets)")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--bias", action="store_true",
                   help="biases in Linear and LayerNorm (off: nanoGPT train.py's and dsgd's)")
    p.add_argument("--batch", type=int, default=16, help="sequences per worker per step")
    p.add_argument("--steps", type=int, default=20, help="inner steps of each worker")
    p.add_argument("--H", type=int, default=10, help="inner steps between outer steps")
    p.add_argument("--lr", type=float, default=1e-3, help="inner AdamW learning rate")
    p.add_argument("--weight-decay", type=float, default=0.0,
                   help="inner AdamW weight decay (torch's default is 0.01; dsgd's is 0)")
    p.add_argument("--max-norm", type=float, default=0.0, help="gradient clip; 0: off")
    p.add_argument("--warmup", type=int, default=0,
                   help="inner lr warmup steps (EXO Gym's lambda_cosine); 0: constant lr")
    p.add_argument("--cosine", action="store_true", help="cosine-anneal the inner lr after warmup")
    p.add_argument("--outer-lr", type=float, default=0.7)
    p.add_argument("--outer-momentum", type=float, default=0.9)
    p.add_argument("--no-nesterov", action="store_true")
    p.add_argument("--fix-cpu-alias", action="store_true",
                   help="copy the master parameters into worker 0 after each outer step")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--val-interval", type=int, default=0,
                   help="EXO Gym's evaluation interval in steps; 0: H")
    p.add_argument("--val-size", type=int, default=256,
                   help="sequences in each EXO Gym evaluation (random validation windows)")
    p.add_argument("--eval-windows", type=int, default=0,
                   help="final dsgd-style evaluation: validation windows read (0: all)")
    p.add_argument("--port", type=int, default=15000)
    p.add_argument("--out", default="", help="JSON file to write (also printed)")
    p.add_argument("--log-dir", default="", help="where EXO Gym's logs/ go (default: a temp dir)")
    args = p.parse_args()
    if args.workers < 2:
        sys.exit("--workers must be at least 2 (EXO Gym evaluates the averaged model on rank 1)")
    if args.fix_cpu_alias:
        os.environ["EXOGYM_FIX_CPU_ALIAS"] = "1"  # read by the workers at import
        DiLoCoCommunicator._synchronize_master_model = _synchronize_master_model_copied

    train_ids, val_ids, vocabulary, files = char_corpus(os.path.abspath(args.data))
    train_dataset = ContiguousGPTTrainDataset(train_ids, block_size=args.seq_len, device="cpu")
    val_dataset = ContiguousGPTTrainDataset(val_ids, block_size=args.seq_len, device="cpu")

    torch.manual_seed(args.seed)
    config = GPTConfig(block_size=args.seq_len, vocab_size=len(vocabulary), n_layer=args.layers,
                       n_head=args.heads, n_embd=args.width, dropout=args.dropout, bias=args.bias)
    model = GPT(config)
    parameters = sum(p.numel() for p in model.parameters())

    inner = dict(lr=args.lr, weight_decay=args.weight_decay)
    strategy = DiLoCoStrategy(
        optim_spec=OptimSpec(torch.optim.AdamW, **inner),
        outer_optim_spec=OptimSpec(torch.optim.SGD, lr=args.outer_lr,
                                   momentum=args.outer_momentum,
                                   nesterov=not args.no_nesterov),
        H=args.H,
        lr_scheduler="lambda_cosine" if args.warmup > 0 or args.cosine else None,
        lr_scheduler_kwargs={"warmup_steps": args.warmup, "cosine_anneal": args.cosine},
        max_norm=args.max_norm or None,
    )

    log_dir = os.path.abspath(args.log_dir) if args.log_dir else None
    if log_dir is None:
        log_dir = tempfile.mkdtemp(prefix="exogym-")
    os.makedirs(log_dir, exist_ok=True)
    here = os.getcwd()
    os.chdir(log_dir)  # EXO Gym's CSVLogger writes ./logs/<run_name>/ relative to the cwd
    run_name = f"diloco_w{args.workers}_H{args.H}_s{args.seed}"
    trainer = Trainer(model, train_dataset, val_dataset, start_port=args.port, device="cpu")
    start = time.perf_counter()
    final = trainer.fit(
        num_epochs=1, max_steps=args.steps, strategy=strategy, num_nodes=args.workers,
        batch_size=args.batch, minibatch_size=args.batch, shuffle=True,
        val_size=args.val_size, val_interval=args.val_interval or args.H,
        run_name=run_name, seed=args.seed,
    )
    fit_seconds = time.perf_counter() - start
    os.chdir(here)

    with open(os.path.join(log_dir, "exogym_rank0_timing.json")) as f:
        timing = json.load(f)
    curve = []
    with open(os.path.join(log_dir, "logs", run_name, "validation.csv")) as f:
        for row in csv.DictReader(f):
            curve.append({"step": int(row["step"]),
                          "global_loss": float(row["global_loss"]) if row["global_loss"] else None,
                          "local_loss": float(row["local_loss"]) if row["local_loss"] else None})

    start = time.perf_counter()
    windows = validation_windows(val_ids, args.seq_len, args.eval_windows)
    final_loss = mean_loss(final, windows)
    eval_seconds = time.perf_counter() - start

    loop = timing["train_seconds"] - timing["eval_seconds"]
    result = {
        "what": "EXO Gym DiLoCo, char-level Shakespeare (dsgd's tokenisation)",
        "exogym_version": importlib.metadata.version("exogym"),
        "torch_version": torch.__version__,
        "workers": args.workers, "steps": args.steps, "H": args.H, "seed": args.seed,
        "model": {"layers": args.layers, "heads": args.heads, "width": args.width,
                  "seq_len": args.seq_len, "vocabulary": len(vocabulary),
                  "parameters": parameters},
        "batch_per_worker": args.batch,
        "inner": {"optimizer": "AdamW", **inner, "max_norm": args.max_norm,
                  "warmup": args.warmup, "cosine": args.cosine},
        "outer": {"optimizer": "SGD", "lr": args.outer_lr, "momentum": args.outer_momentum,
                  "nesterov": not args.no_nesterov},
        "corpus": {"files": files, "train_tokens": int(len(train_ids)),
                   "validation_tokens": int(len(val_ids))},
        "exogym_validation": curve,
        "final_validation_loss": final_loss,
        "final_validation_windows": int(windows.shape[0]),
        "seconds_per_step": loop / timing["steps"],
        "seconds_per_step_note": "rank 0's training loop (inner steps, outer steps, barriers) "
                                 "less its evaluations, over the steps; the first step included",
        "step_seconds_median": float(np.median(timing["step_seconds"])),
        "step_seconds_first": timing["step_seconds"][0],
        "train_loop_seconds": timing["train_seconds"],
        "exogym_eval_seconds": timing["eval_seconds"],
        "fit_seconds": fit_seconds,
        "final_eval_seconds": eval_seconds,
        "outer_grad_norms": timing["outer_grad_norms"],
        "worker0_params_alias_master": timing["worker0_params_alias_master"],
        "fix_cpu_alias": args.fix_cpu_alias,
        "threads_per_worker": int(os.environ["OMP_NUM_THREADS"]),
        "log_dir": log_dir,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
