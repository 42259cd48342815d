#!/usr/bin/env python3
"""Golden forward passes of the CIFAR ResNet-20 the DANA authors' simulator trains.

    python3 tests/golden/generate/resnet20_cifar_model.py MODEL_PY [--out DIR]
                                                         [--repository OWNER/NAME --commit SHA]

MODEL_PY defines `resnet20_cifar()` (ResNet_Cifar with BasicBlock and 1x1-conv + BatchNorm
"downsample" shortcuts). The simulator imports it as its `model` module; that text is
saareliad/FTPipe's visualize.py at 0f704ccd (docs/golden-references.md). Nothing of it is copied
here: this driver imports the file, with a stand-in for torchvision, which it needs only for its
CIFAR-10 loader, and runs the network in float64 on a fixed input.

Weights and input come from formulas, not a random generator, so that the C++ test can rebuild
them: parameter values are w_j = 0.1·sin(0.7·j + 0.3), j counting through every parameter in the
model's order (parameters(), each flattened row-major); the input (4 images, 3x32x32) is
x_j = sin(0.013·j). Written: the parameters' shapes in order, the log-probabilities of one
forward pass in training mode (BatchNorm on the batch's statistics, which also updates the running
statistics) and of one forward pass in evaluation mode right after it (BatchNorm on the running
statistics that single update left). Log-probabilities, because the file's forward adds 100 to
every logit, which a softmax ignores. File written (DIR defaults to tests/golden/data):
resnet20-proj-forward.json.
"""
import argparse
import importlib.util
import os
import sys
import types

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_problem as gp  # noqa: E402
from dana_simulator import git_blob  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def import_model_file(path):
    # The file imports torchvision at the top for its CIFAR-10 loader, which is not called here.
    torchvision = types.ModuleType("torchvision")
    torchvision.datasets = types.SimpleNamespace()
    torchvision.transforms = types.SimpleNamespace()
    torchvision.models = types.ModuleType("torchvision.models")
    for name, module in [("torchvision", torchvision), ("torchvision.models", torchvision.models)]:
        sys.modules.setdefault(name, module)
    spec = importlib.util.spec_from_file_location("dana_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fill_parameters(model):
    offset = 0
    with torch.no_grad():
        for p in model.parameters():
            j = torch.arange(offset, offset + p.numel(), dtype=torch.float64)
            p.copy_((0.1 * torch.sin(0.7 * j + 0.3)).view_as(p))
            offset += p.numel()
    return offset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_py")
    parser.add_argument("--out", default=os.path.join(HERE, "..", "data"))
    parser.add_argument("--repository", default="saareliad/FTPipe")
    parser.add_argument("--commit", default="0f704ccd62dce2d171a423eb808ff54cee33d3f4")
    args = parser.parse_args()

    module = import_model_file(args.model_py)
    torch.manual_seed(0)  # the constructor's own initialisation, overwritten below
    model = module.resnet20_cifar().double()
    count = fill_parameters(model)
    x = torch.sin(0.013 * torch.arange(4 * 3 * 32 * 32, dtype=torch.float64)).view(4, 3, 32, 32)
    with torch.no_grad():
        model.train()
        train = torch.log_softmax(model(x), dim=1)
        model.eval()
        evaluation = torch.log_softmax(model(x), dim=1)

    document = {
        "model": "resnet20-proj",
        "reference": {"repository": args.repository, "commit": args.commit,
                      "path": "visualize.py", "function": "resnet20_cifar",
                      "blob": git_blob(args.model_py)},
        "generator": "tests/golden/generate/resnet20_cifar_model.py",
        "torch": torch.__version__,
        "dtype": "float64",
        "parameters": count,
        "shapes": [list(p.shape) for p in model.parameters()],
        "weights": "0.1*sin(0.7*j + 0.3) over the parameters in order",
        "input": "sin(0.013*j), shape [4, 3, 32, 32]",
        "train_log_probs": gp.vec(train),
        "eval_log_probs": gp.vec(evaluation),
    }
    path = os.path.join(args.out, "resnet20-proj-forward.json")
    gp.write(path, document)
    print("%s: %d parameters, %d tensors" % (path, count, len(document["shapes"])))


if __name__ == "__main__":
    main()
